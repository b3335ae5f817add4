"""The native measure library's Python face: the op enum of every ranked
measure (``OpKind``, ``OpFlag``), defined once in ``_measurelib.pxd`` and
exported here; ``irscore._ranking`` and ``irscore._batch`` re-export these same
objects.  The measures themselves are the inline functions of
``_measurelib.pxd``, which the kernels cimport; this module has no code.
"""
