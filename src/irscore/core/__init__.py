"""The core: what every measure family shares.

Architecture
------------
irscore has three layers.  The **core** (this package) holds the data model
and everything that is not specific to one family; the **families** (each a
module or a package of :mod:`irscore`) compute measures; the **front ends**
(:mod:`irscore.cli`, :mod:`irscore.plot`, the package root) present them.
The compiled kernels ``irscore._<name>`` (built from
``csrc/irscore/<name>.pyx``) are leaves: they import nothing of the package.

Modules of the core (each imports only the core and the compiled kernels):

- ``data``      :class:`Qrels` and :class:`Run`, columnar (CSR) qrels and runs
- ``io``        TREC qrels/run readers (:func:`read_qrels`, :func:`read_run`),
                ``as_qrels``/``as_run`` (objects, dicts, DataFrames, paths)
- ``files``     one way to open a file: gzip detected by its magic bytes,
                errors naming the path (every reader of every family uses it)
- ``measures``  measure names (trec_eval, ir_measures, ranx spellings),
                :class:`Measure`, trec_eval's families, the kernel plan
- ``registry``  the families computed outside the trec_eval kernel (Rocchio,
                CRP): their names and declared parameters (:class:`Param`:
                name, type, default, allowed values; one parser), the module
                that computes them, and :func:`family_values`
- ``joined``    :class:`Joined` (frozen rank-ordered relevance lists, what
                every family consumes), :func:`join`, :func:`sort_arrays`
                (ranked lists from score/label arrays), :func:`ranked_lists`,
                :class:`ResultCache`
- ``checks``    shared checks of parameter values and ranked lists
- ``deprecation``  old spellings kept for one release (warn once)
- ``parallel``  the thread pool and the ``n_jobs`` rule
- ``report``    trec_eval's output line format

Families: :mod:`irscore.classic` (trec_eval's measures: name -> plan ->
:class:`Joined` -> ``irscore._ranking`` -> aggregate), :mod:`irscore.batch`,
:mod:`irscore.rocchio`, :mod:`irscore.crp`, :mod:`irscore.organization`,
:mod:`irscore.xml`.  A family imports the core and its own package, never
another family (``tests/test_structure.py`` checks it).
"""
