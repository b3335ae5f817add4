"""Type stub for the compiled XML / focused retrieval kernels (csrc/irscore/_xml.pyx)."""
import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

def focused_pass(
    run_off: I64, run_doc: I64, run_start: I64, run_end: I64,
    hl_off: I64, hl_doc: I64, hl_start: I64, hl_end: I64,
    el_off: I64, el_doc: I64, el_start: I64, el_end: I64, el_q: F64, el_rsize: F64,
    id_off: I64, id_doc: I64, id_start: I64, id_end: I64,
    ndocs: int, alpha_hix: float, alpha_xcg: float, seen_mode: int,
    out_size: I64, out_covered: I64, out_contained: I64, out_rsize: I64, out_novel_rel: I64,
    out_rval: F64, out_tree_w: F64, out_match: I64, out_ideal: I64,
) -> None: ...
def xcg_cap(run_off: I64, ideal_of: I64, ideal_gain: F64, gain: F64) -> None: ...
def xcg_passage_cap(
    run_off: I64, run_doc: I64, run_start: I64, run_end: I64,
    id_off: I64, id_doc: I64, id_start: I64, id_end: I64,
    ideal_gain: F64, ndocs: int, alpha: float, gain: F64, out_first: I64,
) -> None: ...
def xcg_measures(
    run_off: I64, gain: F64, count_rank: I64, id_off: I64, ideal_sorted: F64, cutoffs: I64,
    npoints: int, maep_mode: int,
    out_xcg: F64, out_nxcg: F64, out_maep: F64, out_iep: F64,
) -> None: ...
def ep_gr_curve(gain: F64, ideal_sorted: F64, out_ep: F64, out_gr: F64) -> None: ...
def hixeval_at(run_off: I64, rval: F64, size: I64, trel: F64, cutoffs: I64, out_p: F64, out_r: F64) -> None: ...
def interpolated_precision(
    run_off: I64, rel: I64, size: I64, trel: I64, npoints: int, bucketing: int, out_ip: F64,
) -> None: ...
def check_nesting(off: I64, doc: I64, start: I64, end: I64) -> tuple[int, int, int]: ...
def ideal_elements(off: I64, doc: I64, start: I64, end: I64, q: F64, rule: int, out_keep: I64) -> None: ...
def pairwise_sum(a: F64) -> float: ...
def segment_sums(off: I64, values: F64, out: F64) -> None: ...
def epgr_at(run_off: I64, gain: F64, id_off: I64, ideal_sorted: F64, cutoffs: I64, out_ep: F64, out_gr: F64) -> None: ...
def eprum_measures(
    run_off: I64, run_doc: I64, run_start: I64, run_end: I64,
    id_off: I64, id_doc: I64, id_start: I64, id_end: I64,
    ideal_gain: F64, ndocs: int, p_ancestor: float, p_descendant: float, p_sibling: float,
    pair_off: I64, pair_p: F64, cutoffs: I64, levels: F64,
    out_gr: F64, out_ep: F64, out_valid: I64,
) -> None: ...
def gp_measures(
    run_off: I64, run_doc: I64, run_start: I64, novel: F64, novel_rel: F64,
    hl_off: I64, hl_doc: I64, hl_start: I64, hl_end: I64,
    bep_off: I64, bep_doc: I64, bep_pos: I64,
    ndocs: int, task: int, beta: float, bep_distance: int, cutoffs: I64,
    out_gp: F64, out_magp: F64, out_valid: I64,
) -> None: ...
def precall_published(
    run_off: I64, q: F64, score: F64, total: F64, collection_size: F64, ties: int, npoints: int,
    out_pre: F64, out_mean: F64,
) -> None: ...
def ng_at(
    run_off: I64, exh: F64, spe: F64, size: F64, w: F64, tot_exh: F64, cutoffs: I64, out_p: F64, out_r: F64,
) -> None: ...
def t2i_at(
    run_off: I64, run_doc: I64, run_start: I64, run_end: I64,
    hl_off: I64, hl_doc: I64, hl_start: I64, hl_end: I64,
    doclen: I64, ndocs: int, tolerance: int, cutoffs: I64,
    out_p: F64, out_r: F64, out_valid: I64,
) -> None: ...
def precall_reprec_at(
    run_off: I64, q: F64, score: F64, total: F64, collection_size: F64, ties: int, npoints: int, out_pre: F64,
) -> None: ...
def row_means(a: F64, out: F64) -> None: ...
def gp_inex2008(
    run_off: I64, run_doc: I64, entry_pos: I64, size: I64, rel: I64,
    rel_off: I64, rel_doc: I64, rel_size: I64, bep_off: I64, bep_doc: I64, bep_pos: I64,
    ndocs: int, task: int, beta: float, bep_distance: int, cutoffs: I64,
    out_gp: F64, out_agp: F64, out_warn: I64,
) -> None: ...
