# Op kinds of irscore._ranking.compute, defined once here and exported to Python
# (``irscore._ranking.OpKind``; the façade's measure table reads them from there).

cpdef enum OpKind:
    K_NUM_Q = 0
    K_NUM_RET = 1
    K_NUM_REL = 2
    K_NUM_REL_RET = 3
    K_MAP = 4
    K_GM_MAP = 5
    K_RPREC = 6
    K_BPREF = 7
    K_RECIP_RANK = 8
    K_IPREC = 9
    K_P = 10
    K_RECALL = 11
    K_INFAP = 12
    K_GM_BPREF = 13
    K_RPREC_MULT = 14
    K_UTILITY = 15
    K_11PT = 16
    K_BING = 17
    K_G = 18
    K_NDCG = 19
    K_NDCG_REL = 20
    K_RNDCG = 21
    K_NDCG_CUT = 22
    K_MAP_CUT = 23
    K_REL_P = 24
    K_SUCCESS = 25
    K_SET_P = 26
    K_SET_REL_P = 27
    K_SET_RECALL = 28
    K_SET_MAP = 29
    K_SET_F = 30
    K_NUM_NONREL_JUDGED_RET = 31
    K_RBP = 32
    K_RBP_RESID = 33
    K_UNJ = 34
    K_DCG = 35
    K_IDEAL_DCG = 36
    K_DCG_CUT = 37
    K_JUDGED = 38
    K_YAAP = 60
    # measure-name extensions (RR@k reuses K_RECIP_RANK with an optional cutoff)
    K_NDCG_GAINS_CUT = 50   # nDCG(gains={...})@k: trec_eval's ndcg gain pairs, cut at k
    K_JUDGED_RATE = 51      # ir_measures' Judged(@k): judged / min(k, ranking length)
    K_RBP_BIN = 52          # ir_measures' RBP(rel=l): binary RBP at level l
    K_HITS = 53             # ranx's hits(@k): relevant documents in the top k
    K_F1 = 54               # ranx's f1(@k): harmonic mean of P@k and R@k
    K_AP_MIN_K_R = 55       # sentence-transformers' MAP@k: AP@k with denominator min(k, R)
    K_RBP_GRADE = 56        # ranx's rbp.p: RBP with the raw grades as gains

cpdef enum OpFlag:
    # or-ed into an op kind: compute the op on the ranking without its unjudged
    # documents (ir_measures' judged_only=True, trec_eval's -J for one measure)
    F_JUDGED_ONLY = 1024
