# Codes of irscore._batch.evaluate_rows, defined once here and exported to
# Python (``irscore._batch.Op``, ``Ties``, ``Error``); irscore.batch reads them
# from there.

cpdef enum Op:
    K_NDCG = 0        # nDCG@k (k < 0: whole ranking)
    K_DCG = 1
    K_AP = 2          # AP, AP@k
    K_P = 3
    K_R = 4
    K_RR = 5          # RR, RR@k (k < 0: whole ranking)
    K_RPREC = 6
    K_SUCCESS = 7
    K_NUM_RET = 8
    K_NUM_REL = 9
    K_NUM_REL_RET = 10

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
