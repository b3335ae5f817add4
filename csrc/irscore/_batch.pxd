# Codes of irscore._batch.evaluate_rows, defined once here and exported to
# Python (``irscore._batch.Ties``, ``Error``); irscore.batch reads them from
# there.  The op kinds are the measure library's (``_measurelib.pxd``,
# ``irscore._batch.OpKind`` is ``irscore._measurelib.OpKind``).

cpdef enum Ties:
    TIES_TREC = 0     # score descending, then column descending
    TIES_INPUT = 1    # score descending, then column ascending
    TIES_AVERAGE = 2  # expected value over the orders of tied candidates

cpdef enum Error:
    E_OK = 0
    E_LABEL = 1       # NaN/inf label at a valid position
    E_NREL = 2        # n_relevant below the relevant candidates
    E_EXPGAIN = 3     # gain=exp on a label of 1024 or more (raised by the kernel's entry points)
    E_ORDER = 4       # order_off does not match a row's valid candidates (raised likewise)
