import enum

class OpKind(enum.IntEnum):
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
    K_NDCG_GAINS_CUT = 50
    K_JUDGED_RATE = 51
    K_RBP_BIN = 52
    K_HITS = 53
    K_F1 = 54
    K_AP_MIN_K_R = 55
    K_RBP_GRADE = 56
    K_NCG = 57
    K_HOLE = 58


class OpFlag(enum.IntEnum):
    F_JUDGED_ONLY = 1024
