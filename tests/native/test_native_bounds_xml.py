"""The XML retrieval kernels check their arguments: each precondition of each
entry point, violated on its own, is a ValueError (valid arguments recorded
from façade calls, tests/kernel_calls.py)."""
import numpy as np
import pytest

from kernel_calls import entry_point_tests

i32, i64, u64, f64, u8 = np.int32, np.int64, np.uint64, np.float64, np.uint8

# (entry point, {argument: bad value}) -> ValueError
VIOLATIONS = [
    # _xml_focused, _xml_xcg, _xml_eprum, _xml_gp, _xml_inex
    ("_xml_focused.focused_pass", dict(ndocs=0)),
    ("_xml_focused.focused_pass", dict(ndocs=-1)),
    ("_xml_focused.focused_pass", dict(run_off=np.array([0, 99], i64))),
    ("_xml_focused.focused_pass", dict(run_end=np.zeros(0, i64))),
    ("_xml_focused.focused_pass", dict(el_q=np.zeros(0))),
    ("_xml_focused.focused_pass", dict(out_float=np.zeros((2, 0)))),
    ("_xml_focused.focused_pass", dict(out_int=np.zeros((7, 0), i64))),
    ("_xml_xcg.xcg_cap", dict(ideal_of=np.array([99, 99, 99, 99], i64))),
    ("_xml_xcg.xcg_cap", dict(run_off=np.array([0, 99], i64))),
    ("_xml_xcg.xcg_passage_cap", dict(run_off=np.array([0, 99], i64))),
    ("_xml_xcg.xcg_passage_cap", dict(run_doc=np.array([0, 0, 0, 99], i64))),
    ("_xml_xcg.xcg_passage_cap", dict(id_off=np.array([0, 99], i64))),
    ("_xml_xcg.xcg_passage_cap", dict(ideal_gain=np.zeros(0))),
    ("_xml_xcg.xcg_passage_cap", dict(gain=np.zeros(0))),
    ("_xml_xcg.xcg_passage_cap", dict(out_first=np.zeros(0, i64))),
    ("_xml_xcg.xcg_passage_cap", dict(ndocs=-1)),
    ("_xml_xcg.xcg_passage_cap", dict(id_start=np.array([0, 300, 0], i64))),
    ("_xml_xcg.xcg_measures", dict(count_rank=np.zeros(1, i64))),
    ("_xml_xcg.xcg_measures", dict(cutoffs=np.array([-1], i64))),
    ("_xml_xcg.xcg_measures", dict(npoints=-1)),
    ("_xml_xcg.xcg_measures", dict(out_iep=np.zeros((1, 1)))),
    ("_xml_xcg.xcg_measures", dict(id_off=np.array([0, 99], i64))),
    ("_xml_focused.hixeval_at", dict(trel=np.zeros(0))),
    ("_xml_focused.hixeval_at", dict(out_p=np.zeros((1, 0)))),
    ("_xml_focused.hixeval_at", dict(run_off=np.array([0, 99], i64))),
    ("_xml_focused.interpolated_precision", dict(npoints=1000)),
    ("_xml_focused.interpolated_precision", dict(run_off=np.array([0, 99], i64))),
    ("_xml_focused.interpolated_precision", dict(trel=np.zeros(0, i64))),
    ("_xml_focused.check_nesting", dict(off=np.array([0, 99], i64))),
    ("_xml_focused.check_nesting", dict(end=np.zeros(0, i64))),
    ("_xml_focused.ideal_elements", dict(out_keep=np.zeros(0, i64))),
    ("_xml_focused.ideal_elements", dict(q=np.zeros(0))),
    ("_xml_focused.ideal_elements", dict(off=np.array([3, 2], i64))),
    ("_xml_xcg.epgr_at", dict(run_off=np.array([0, 99], i64))),
    ("_xml_xcg.epgr_at", dict(id_off=np.array([0, 99], i64))),
    ("_xml_xcg.epgr_at", dict(cutoffs=np.array([0], i64))),
    ("_xml_xcg.epgr_at", dict(out_gr=np.zeros((1, 0)))),
    ("_xml_eprum.eprum_measures", dict(run_off=np.array([0, 99], i64))),
    ("_xml_eprum.eprum_measures", dict(run_end=np.zeros(0, i64))),
    ("_xml_eprum.eprum_measures", dict(run_doc=np.array([0, -1, 0, 0, 0], i64))),
    ("_xml_eprum.eprum_measures", dict(id_off=np.array([0, 99], i64))),
    ("_xml_eprum.eprum_measures", dict(id_doc=np.full(2, 99, i64), id_start=np.zeros(2, i64), id_end=np.ones(2, i64),
                                 ideal_gain=np.ones(2), id_off=np.array([0, 2], i64))),
    ("_xml_eprum.eprum_measures", dict(ideal_gain=np.zeros(0))),
    ("_xml_eprum.eprum_measures", dict(ndocs=-1)),
    ("_xml_eprum.eprum_measures", dict(p_sibling=1.5)),
    ("_xml_eprum.eprum_measures", dict(pair_off=np.array([0, 1, 1, 1, 1, 99], i64))),
    ("_xml_eprum.eprum_measures", dict(pair_off=np.zeros(3, i64))),
    ("_xml_eprum.eprum_measures", dict(pair_off=np.zeros(6, i64), pair_p=np.zeros(0))),
    ("_xml_eprum.eprum_measures", dict(levels=np.array([0.0]))),
    ("_xml_eprum.eprum_measures", dict(out_ep=np.zeros((1, 0)))),
    ("_xml_eprum.eprum_measures", dict(out_valid=np.zeros(0, i64))),
    ("_xml_gp.gp_measures", dict(run_off=np.array([0, 99], i64))),
    ("_xml_gp.gp_measures", dict(novel=np.zeros(0))),
    ("_xml_gp.gp_measures", dict(run_doc=np.array([0, 0, 99, 0, 0], i64))),
    ("_xml_gp.gp_measures", dict(hl_off=np.array([0, 99], i64))),
    ("_xml_gp.gp_measures", dict(bep_off=np.array([0, 99], i64))),
    ("_xml_gp.gp_measures", dict(bep_doc=np.array([99], i64))),
    ("_xml_gp.gp_measures", dict(bep_pos=np.zeros(0, i64))),
    ("_xml_gp.gp_measures", dict(task=2)),
    ("_xml_gp.gp_measures", dict(bep_distance=0)),
    ("_xml_gp.gp_measures", dict(out_gp=np.zeros((0, 0)))),
    ("_xml_gp.gp_measures", dict(out_magp=np.zeros(0))),
    ("_xml_inex.precall_published", dict(run_off=np.array([0, 99], i64))),
    ("_xml_inex.precall_published", dict(score=np.zeros(0))),
    ("_xml_inex.precall_published", dict(total=np.zeros(0))),
    ("_xml_inex.precall_published", dict(npoints=0)),
    ("_xml_inex.precall_published", dict(out_pre=np.zeros((1, 1)))),
    ("_xml_inex.precall_published", dict(out_mean=np.zeros(0))),
    ("_xml_inex.ng_at", dict(run_off=np.array([0, 99], i64))),
    ("_xml_inex.ng_at", dict(w=np.zeros(0))),
    ("_xml_inex.ng_at", dict(tot_exh=np.zeros(0))),
    ("_xml_inex.ng_at", dict(out_r=np.zeros((1, 0)))),
    ("_xml_inex.t2i_at", dict(run_off=np.array([0, 99], i64))),
    ("_xml_inex.t2i_at", dict(run_doc=np.array([0, 0, 99, 0, 0], i64))),
    ("_xml_inex.t2i_at", dict(hl_end=np.zeros(0, i64))),
    ("_xml_inex.t2i_at", dict(tolerance=0)),
    ("_xml_inex.t2i_at", dict(ndocs=-1)),
    ("_xml_inex.t2i_at", dict(out_valid=np.zeros(0, i64))),
    ("_xml_inex.segment_sums", dict(off=np.array([0, 99], i64))),
    ("_xml_inex.segment_sums", dict(out=np.zeros(0))),
    ("_xml_inex.precall_reprec_at", dict(run_off=np.array([0, 99], i64))),
    ("_xml_inex.precall_reprec_at", dict(score=np.zeros(0))),
    ("_xml_inex.precall_reprec_at", dict(total=np.zeros(0))),
    ("_xml_inex.precall_reprec_at", dict(npoints=0)),
    ("_xml_inex.precall_reprec_at", dict(out_pre=np.zeros((1, 1)))),
    ("_xml_inex.precall_reprec_at", dict(q=np.full(5, 1e300), total=np.ones(1))),
    ("_xml_inex.row_means", dict(out=np.zeros(0))),
    ("_xml_gp.gp_inex2008", dict(run_off=np.array([0, 99], i64))),
    ("_xml_gp.gp_inex2008", dict(size=np.zeros(0, i64))),
    ("_xml_gp.gp_inex2008", dict(run_doc=np.array([0, 0, 99, 0, 0], i64))),
    ("_xml_gp.gp_inex2008", dict(rel_off=np.array([0, 99], i64))),
    ("_xml_gp.gp_inex2008", dict(rel_doc=np.array([99], i64), rel_size=np.ones(1, i64), rel_off=np.array([0, 1], i64))),
    ("_xml_gp.gp_inex2008", dict(bep_off=np.array([0, 99], i64))),
    ("_xml_gp.gp_inex2008", dict(bep_pos=np.zeros(0, i64))),
    ("_xml_gp.gp_inex2008", dict(task=5)),
    ("_xml_gp.gp_inex2008", dict(out_warn=np.zeros(1, i64))),
    ("_xml_gp.gp_inex2008", dict(out_gp=np.zeros((0, 0)))),
    ("_xml_inex.row_means", dict(a=np.zeros((1, 0)))),
]


test_entry_point_valid_call, test_entry_point_rejects = entry_point_tests(("_xml_",), VIOLATIONS)


def test_offsets_start_at_zero_and_errors_name_the_entry_point_and_argument():
    from irscore import _xml_focused, _xml_inex, _xml_xcg

    # offsets from 1 that stay within the data: a CSR array must start at 0
    with pytest.raises(ValueError, match=r"^segment_sums: off must start at 0 and end within 0\.\.2, got 1\.\.2$"):
        _xml_inex.segment_sums(np.array([1, 2], i64), np.ones(2), np.zeros(1))
    with pytest.raises(ValueError, match=r"^hixeval_at: run_off must start at 0"):
        _xml_focused.hixeval_at(np.array([1, 1], i64), np.ones(1), np.ones(1, i64), np.ones(1), np.ones(1, i64),
                                np.zeros((1, 1)), np.zeros((1, 1)))
    with pytest.raises(ValueError, match=r"^segment_sums: off must be non-decreasing \(off\[2\] = 1 < off\[1\] = 2\)$"):
        _xml_inex.segment_sums(np.array([0, 2, 1], i64), np.ones(2), np.zeros(2))
    with pytest.raises(ValueError, match=r"^xcg_cap: gain and ideal_of must have one length \(1 != 2\)$"):
        _xml_xcg.xcg_cap(np.array([0, 1], i64), np.zeros(2, i64), np.ones(1), np.ones(1))
    # a span set is a tuple of its arrays
    with pytest.raises(ValueError, match=r"^check_nesting: el must be a tuple of 4 arrays, got 3$"):
        _xml_focused.check_nesting((np.zeros(1, i64), np.zeros(0, i64), np.zeros(0, i64)))
    with pytest.raises(TypeError, match=r"^Argument 'el' has incorrect type \(expected tuple, got list\)$"):
        _xml_focused.check_nesting([np.zeros(1, i64)] * 4)
