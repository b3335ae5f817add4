"""Calls of the compiled kernels' entry points for the tests of tests/native/:
valid arguments of each entry point (recorded from façade calls on small
examples, the arrays the kernels really receive, or written out), the table of
entry points and their argument names, and the random-garbage driver that hands
every entry point damaged arguments."""
import copy
import sys

import numpy as np

from irscore import (
    _batch,
    _crp,
    _dicts,
    _diversity,
    _join,
    _org_bcubed,
    _org_core,
    _org_rs,
    _prefs,
    _ranking,
    _rocchio,
    _trec_io,
    _usermodel,
    _xml_eprum,
    _xml_focused,
    _xml_gp,
    _xml_inex,
    _xml_xcg,
)

i32, i64, u64, f64, u8 = np.int32, np.int64, np.uint64, np.float64, np.uint8


def _gs_args():
    buf = np.frombuffer(b"abcdef", dtype=u8)
    return dict(qidx=np.array([0, 0, 1], i32), qrank=np.array([1, 0], i64), nq=2,
                doc_off=np.array([0, 2, 4, 6], i64), doc_hash=np.zeros(3, u64),
                scores=np.array([1.0, 2.0, 3.0]), doc_buf=buf, mode=0)


def _join_args():
    buf = np.frombuffer(b"abc", dtype=u8)
    return [np.array([0, 2], i64), np.array([0, 1], i64), np.array([1, 1], i32), np.zeros(2, u64),
            np.array([1, 0], i32), buf,
            np.array([0, 3], i64), np.array([0, 1, 2], i64), np.array([1, 1, 1], i32), np.zeros(3, u64),
            np.array([3.0, 2.0, 1.0]), buf,
            np.array([0], i64), np.array([0], i64), 1, -1, False]


def _compute_args():
    return dict(rel=np.array([1, 0, -1], i32), ret_off=np.array([0, 3], i64), levels=np.array([[1, 1]], i64),
                op_kind=np.array([10], i32), op_level=np.array([1], i64), op_col=np.array([0], i64),
                par_off=np.array([0, 1], i64), params=np.array([2.0]), out=np.zeros((1, 1)))


def _side_arrays(side, level=True):
    """A ``_org_core.Side``'s arrays (``level`` too unless False), as recorded."""
    arrays = [side.ptr, side.doc] + ([side.level] if level else []) + [side.cluster]
    return [np.asarray(a) for a in arrays]


def _rs_side(x_ptr, x_doc, x_level, x_cluster, g_ptr, g_doc, g_level, g_cluster, n_docs, c, uniform,
             foreign_tail, out_priority, out_relatedness, pairwise=False):
    """``_org_rs.rs_side`` with its arguments flat, in the order of ENTRY_POINTS."""
    return _org_rs.rs_side(_org_core.Side(x_ptr, x_doc, x_level, x_cluster),
                           _org_core.Side(g_ptr, g_doc, g_level, g_cluster), n_docs, out_priority,
                           out_relatedness, c=c, uniform=uniform, foreign_tail=foreign_tail, pairwise=pairwise)


def _extended_bcubed_side(x_ptr, x_doc, x_cluster, g_ptr, g_doc, g_cluster, n_docs, out, pairwise=False):
    """``_org_bcubed.extended_bcubed_side`` with its arguments flat (the clusters
    stand for the levels, which it does not read)."""
    return _org_bcubed.extended_bcubed_side(_org_core.Side(x_ptr, x_doc, x_cluster, x_cluster),
                                            _org_core.Side(g_ptr, g_doc, g_cluster, g_cluster), n_docs, out,
                                            pairwise=pairwise)


# entry points taking structures: their recorded call, flattened in the order of ENTRY_POINTS
_FLATTEN = {
    "_org_rs.rs_side": lambda x, g, n_docs, out_p, out_r, *, c, uniform, foreign_tail, pairwise=False: [
        *_side_arrays(x), *_side_arrays(g), n_docs, c, uniform, foreign_tail, out_p, out_r],
    "_org_bcubed.extended_bcubed_side": lambda x, g, n_docs, out, *, pairwise=False: [
        *_side_arrays(x, False), *_side_arrays(g, False), n_docs, out],
}

# the XML kernels: module of each entry point; those taking span-set tuples and a
# parameter dict, flattened in the order of ENTRY_POINTS and packed again to call
_XML_MODULES = {"focused": _xml_focused, "xcg": _xml_xcg, "eprum": _xml_eprum, "gp": _xml_gp, "inex": _xml_inex}
_XML_FAMILY = {"focused_pass": "focused", "hixeval_at": "focused", "interpolated_precision": "focused", "check_nesting": "focused", "ideal_elements": "focused", "xcg_cap": "xcg", "xcg_passage_cap": "xcg", "xcg_measures": "xcg", "ep_gr_curve": "xcg", "epgr_at": "xcg", "eprum_measures": "eprum", "gp_measures": "gp", "gp_inex2008": "gp", "precall_published": "inex", "ng_at": "inex", "t2i_at": "inex", "segment_sums": "inex", "precall_reprec_at": "inex", "row_means": "inex"}


def _xml_params(d, *keys):
    return [d[k] for k in keys]


_XML_FLAT = {
    "_xml_focused.focused_pass": (
        lambda run, hl, el, ideal, el_rsize, p, out_int, out_float: [
            *run, *hl, *el, el_rsize, *ideal, *_xml_params(p, "ndocs", "alpha_hix", "alpha_xcg", "seen_mode"),
            out_int, out_float],
        lambda *a: [tuple(a[0:4]), tuple(a[4:8]), tuple(a[8:13]), tuple(a[14:18]), a[13],
                    dict(zip(("ndocs", "alpha_hix", "alpha_xcg", "seen_mode"), a[18:22])), a[22], a[23]]),
    "_xml_focused.check_nesting": (lambda el: [*el], lambda *a: [tuple(a)]),
    "_xml_focused.ideal_elements": (lambda el, rule, out_keep: [*el, rule, out_keep],
                                    lambda *a: [tuple(a[:5]), a[5], a[6]]),
    "_xml_xcg.xcg_passage_cap": (lambda run, ideal, *rest: [*run, *ideal, *rest],
                                 lambda *a: [tuple(a[0:4]), tuple(a[4:8]), *a[8:]]),
    "_xml_xcg.xcg_measures": (lambda run, count_rank, ideal, *rest: [*run, count_rank, *ideal, *rest],
                              lambda *a: [tuple(a[0:2]), a[2], tuple(a[3:5]), *a[5:]]),
    "_xml_xcg.epgr_at": (lambda run, ideal, *rest: [*run, *ideal, *rest],
                         lambda *a: [tuple(a[0:2]), tuple(a[2:4]), *a[4:]]),
    "_xml_eprum.eprum_measures": (
        lambda run, ideal, gain, nav, pairs, *rest: [
            *run, *ideal, gain, *_xml_params(nav, "ndocs", "p_ancestor", "p_descendant", "p_sibling"), *pairs, *rest],
        lambda *a: [tuple(a[0:4]), tuple(a[4:8]), a[8],
                    dict(zip(("ndocs", "p_ancestor", "p_descendant", "p_sibling"), a[9:13])), tuple(a[13:15]),
                    *a[15:]]),
    "_xml_gp.gp_measures": (
        lambda run, hl, bep, p, *rest: [*run, *hl, *bep, *_xml_params(p, "ndocs", "task", "beta", "bep_distance"),
                                        *rest],
        lambda *a: [tuple(a[0:5]), tuple(a[5:9]), tuple(a[9:12]),
                    dict(zip(("ndocs", "task", "beta", "bep_distance"), a[12:16])), *a[16:]]),
    "_xml_gp.gp_inex2008": (
        lambda run, rel, bep, p, *rest: [*run, *rel, *bep, *_xml_params(p, "ndocs", "task", "beta", "bep_distance"),
                                         *rest],
        lambda *a: [tuple(a[0:5]), tuple(a[5:8]), tuple(a[8:11]),
                    dict(zip(("ndocs", "task", "beta", "bep_distance"), a[11:15])), *a[15:]]),
    "_xml_inex.t2i_at": (lambda run, hl, *rest: [*run, *hl, *rest],
                         lambda *a: [tuple(a[0:4]), tuple(a[4:8]), *a[8:]]),
}


def _xml_flat_module(fam, mod):
    """The family's entry points with their arguments flat (ENTRY_POINTS order)."""
    flat = type(sys)(f"_xml_{fam}_flat")
    for n, f in _XML_FAMILY.items():
        if f == fam:
            key, fn = f"_xml_{fam}.{n}", getattr(mod, n)
            pack = _XML_FLAT[key][1] if key in _XML_FLAT else None
            setattr(flat, n, fn if pack is None else (lambda fn, pack: lambda *a: fn(*pack(*a)))(fn, pack))
    return flat


MODULES = {"_rocchio": _rocchio, "_crp": _crp, "_org_rs": type(sys)("_org_rs_flat"),
           "_org_bcubed": type(sys)("_org_bcubed_flat"),
           "_batch": _batch, "_ranking": _ranking, "_join": _join, "_prefs": _prefs}


def _record_calls():
    """{"module.function": [args, ...]} of the kernel calls made by façade runs
    on small examples."""
    import irscore
    import irscore.batch
    from irscore import rocchio
    from irscore import xml as X

    calls = {}
    saved = []

    def wrap(mod, name):
        fn = getattr(mod, name)

        def rec(*args, **kwargs):
            key = f"{mod.__name__.split('.')[-1]}.{name}"
            flat = (_FLATTEN[key](*args, **kwargs) if key in _FLATTEN
                    else _XML_FLAT[key][0](*args) if key in _XML_FLAT else args)
            calls.setdefault(key, []).append(copy.deepcopy(
                [a.copy() if isinstance(a, np.ndarray) else a for a in flat]))
            return fn(*args, **kwargs)
        saved.append((mod, name, fn))
        setattr(mod, name, rec)

    for mod, names in [(_rocchio, ["min_collection_size", "rocchio"]),
                       (_crp, ["curve_lengths", "curves", "scalars"]),
                       (_org_rs, ["rs_side"]), (_org_bcubed, ["extended_bcubed_side"]),
                       *[(mod, [n for n, f in _XML_FAMILY.items() if f == fam]) for fam, mod in _XML_MODULES.items()],
                       (_batch, ["evaluate_rows"]), (_prefs, ["counts"])]:
        for n in names:
            wrap(mod, n)
    try:
        qrels = {"q1": {"a": 2, "b": 1, "c": 0, "z": 1}, "q2": {"x": 1, "y": 3}}
        run = {"q1": {"a": 3.0, "b": 3.0, "c": 2.0, "d": 1.0}, "q2": {"y": 2.0, "w": 1.0, "x": 0.5}}
        irscore.evaluate(qrels, run, ["Rnorm(N=10)", "Pnorm(N=10,graded=True)", "CRP_loss", "CRP_recovery"])
        irscore.crp_curves(qrels, run)
        rocchio.from_arrays(np.array([[0.9, 0.8, 0.8, 0.1]]), np.array([[1, 0, 2, 0]]), N=10, graded=True)
        irscore.batch.evaluate(np.array([[0.9, 0.8, 0.1, 0.4]]), np.array([[0, 2, 1, 1]]),
                               ["nDCG", "nDCG@2", "AP", "P@2", "RR", "R-prec", "nDCG(gain=exp)"])
        irscore.batch.evaluate(np.array([[0.9, 0.8, 0.8, 0.4]]), np.array([[0, 2, 1, 1]]), ["nDCG", "AP"],
                               ties="average", n_relevant=[5])
        gold = [[["a", "b"], ["c"]], [["d"]], [["e", "f"]]]
        system = [[["a"], ["c", "d"]], [["b", "e"]], [["f", "g"]]]
        irscore.reliability_sensitivity(gold, system)
        irscore.organization.extended_bcubed([["a", "b"], ["c", "d"]], [["a"], ["b", "c", "d"]])
        q = X.XmlQrels.from_passages({"1": [("d1", 200, 500), ("d1", 600, 800), ("d2", 0, 100)]},
                                     doclens={"d1": 1000, "d2": 400})
        xr = X.XmlRun.from_spans({"1": [("d1", 200, 400), ("d2", 0, 400), ("d1", 600, 1000), ("d1", 0, 200)]})
        X.evaluate(q, xr, ["MAiP", "iP[0.01]", "hixP@2", "hixR@2", "nxCG@2", "MAep"])
        els = [("a", 0, 1000, 0.5, 0.5), ("a", 0, 600, 1.0, 0.5), ("a", 0, 200, 0.0, 0.0),
               ("a", 200, 400, 1.0, 1.0), ("a", 400, 600, 0.5, 1.0), ("a", 600, 1000, 0.5, 0.5)]
        qe = X.XmlQrels.from_elements({"1": els})
        xr2 = X.XmlRun.from_spans({"1": [("a", 0, 600), ("a", 200, 400), ("a", 0, 1000), ("a", 600, 800)]})
        X.xcg(qe, xr2, cutoffs=(1, 2, 3), alpha=1.0, quantisation="generalised")
        X.ideal_recall_base(qe, "generalised")
        X.ep_gr_curves(qe, xr2) if hasattr(X, "ep_gr_curves") else None
        # preferences: two groups (so the pair codes are sorted), one with two sub-groups
        from irscore.prefs import evaluate_prefs
        evaluate_prefs({"q1": {"g1": {"s": {"a": 2, "b": 0, "c": 1, "z": 1}},
                               "g2": {"s1": {"b": 2, "a": 1}, "s2": {"a": 1, "d": 0, "z": 0}}}},
                       {"q1": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}}, "all_prefs")
        # the INEX families, on assessments with passages (and best entry points) and elements
        qb = X.XmlQrels.from_passages({"1": [("a", 200, 400), ("a", 650, 700), ("b", 0, 50)]},
                                      doclens={"a": 1000, "b": 100}, beps={("1", "a"): 210})
        qb.el_off, qb.el_doc, qb.el_start, qb.el_end = qe.el_off, qe.el_doc, qe.el_start, qe.el_end
        qb.el_exh, qb.el_spe, qb.el_small, qb.has_elements = qe.el_exh, qe.el_spe, qe.el_small, True
        xr3 = X.XmlRun(topics=["1"], docs=["a", "b", "c"], off=np.array([0, 5], i64),
                       doc=np.array([0, 0, 1, 0, 2], i64), start=np.array([0, 200, 0, 600, 0], i64),
                       end=np.array([600, 400, 100, 800, 10], i64), score=np.array([3.0, 2.0, 2.0, 1.0, 0.5]))
        X.evaluate(qb, xr3, ["MAgP_RiC", "gP_BiC@2", "inex_eval", "ngP_o@2", "GR@2", "EPRUM[0.50]", "T2IP@2",
                             "ep@2", "gr@3"], collection_size=50, navigation=X.default_navigation(0.5, 0.25, 0.1))
        X.evaluate(qb, xr3, ["GR@2", "EPRUM[1.00]"], navigation=lambda r, x: 0.5)
        X.evaluate(qb, xr3, ["inex_eval", "Precall[0.50]"], compat="reprec")
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            X.evaluate(qb, xr3, ["MAgP_RiC", "gP_BiC@2", "MAgP_BiC"], compat="inex2008")
    finally:
        for mod, name, fn in saved:
            setattr(mod, name, fn)
    return calls


_CALLS = None


def recorded(name):
    global _CALLS
    if _CALLS is None:
        _CALLS = _record_calls()
    # the recorded call with the most data (every optional array filled)
    best = max(_CALLS[name], key=lambda args: sum(a.size for a in args if isinstance(a, np.ndarray)))
    return copy.deepcopy(best)


def _call(name, args):
    mod, fn = name.split(".")
    return getattr(MODULES[mod], fn)(*args)


# entry point -> its recorded arguments' names (positions)
ENTRY_POINTS = {
    "_rocchio.min_collection_size": ["rel", "offsets", "levels", "out"],
    "_rocchio.rocchio": ["rel", "scores", "offsets", "levels", "n_docs", "level", "graded", "smart1966", "out"],
    "_crp.curve_lengths": ["rel", "offsets", "condensed", "pad_to", "out"],
    "_crp.curves": ["rel", "offsets", "levels", "level", "condensed", "out_off", "rp", "crp"],
    "_crp.scalars": ["rel", "offsets", "levels", "level", "condensed", "pad_to", "matters", "out"],
    "_org_rs.rs_side": ["x_ptr", "x_doc", "x_level", "x_cluster", "g_ptr", "g_doc", "g_level",
                        "g_cluster", "n_docs", "c", "uniform", "foreign_tail", "out_priority",
                        "out_relatedness"],
    "_org_bcubed.extended_bcubed_side": ["x_ptr", "x_doc", "x_cluster", "g_ptr", "g_doc", "g_cluster",
                                         "n_docs", "out"],
    "_xml_focused.focused_pass": ["run_off", "run_doc", "run_start", "run_end", "hl_off", "hl_doc", "hl_start",
                          "hl_end", "el_off", "el_doc", "el_start", "el_end", "el_q", "el_rsize", "id_off",
                          "id_doc", "id_start", "id_end", "ndocs", "alpha_hix", "alpha_xcg", "seen_mode",
                          "out_int", "out_float"],
    "_xml_xcg.xcg_cap": ["run_off", "ideal_of", "ideal_gain", "gain"],
    "_xml_xcg.xcg_passage_cap": ["run_off", "run_doc", "run_start", "run_end", "id_off", "id_doc", "id_start",
                             "id_end", "ideal_gain", "ndocs", "alpha", "gain", "out_first"],
    "_xml_xcg.xcg_measures": ["run_off", "gain", "count_rank", "id_off", "ideal_sorted", "cutoffs", "npoints", "maep_mode",
                          "out_xcg", "out_nxcg", "out_maep", "out_iep"],
    "_xml_focused.hixeval_at": ["run_off", "rval", "size", "trel", "cutoffs", "out_p", "out_r"],
    "_xml_focused.interpolated_precision": ["run_off", "rel", "size", "trel", "npoints", "bucketing", "out_ip"],
    "_xml_focused.check_nesting": ["off", "doc", "start", "end"],
    "_xml_focused.ideal_elements": ["off", "doc", "start", "end", "q", "rule", "out_keep"],
    "_prefs.counts": ["q_off", "jg", "jsg", "level", "rank", "n_judged", "n_judged_ret", "out", "status", "bad_jg"],
    "_xml_xcg.epgr_at": ["run_off", "gain", "id_off", "ideal_sorted", "cutoffs", "out_ep", "out_gr"],
    "_xml_eprum.eprum_measures": ["run_off", "run_doc", "run_start", "run_end", "id_off", "id_doc", "id_start", "id_end",
                            "ideal_gain", "ndocs", "p_ancestor", "p_descendant", "p_sibling", "pair_off", "pair_p",
                            "cutoffs", "levels", "out_gr", "out_ep", "out_valid"],
    "_xml_gp.gp_measures": ["run_off", "run_doc", "run_start", "novel", "novel_rel", "hl_off", "hl_doc", "hl_start",
                         "hl_end", "bep_off", "bep_doc", "bep_pos", "ndocs", "task", "beta", "bep_distance",
                         "cutoffs", "out_gp", "out_magp", "out_valid"],
    "_xml_inex.precall_published": ["run_off", "q", "score", "total", "collection_size", "ties", "npoints",
                               "out_pre", "out_mean"],
    "_xml_inex.ng_at": ["run_off", "exh", "spe", "size", "w", "tot_exh", "cutoffs", "out_p", "out_r"],
    "_xml_inex.t2i_at": ["run_off", "run_doc", "run_start", "run_end", "hl_off", "hl_doc", "hl_start", "hl_end",
                    "doclen", "ndocs", "tolerance", "cutoffs", "out_p", "out_r", "out_valid"],
    "_xml_inex.segment_sums": ["off", "values", "out"],
    "_xml_inex.precall_reprec_at": ["run_off", "q", "score", "total", "collection_size", "ties", "npoints", "out_pre"],
    "_xml_inex.row_means": ["a", "out"],
    "_xml_gp.gp_inex2008": ["run_off", "run_doc", "entry_pos", "size", "rel", "rel_off", "rel_doc", "rel_size",
                         "bep_off", "bep_doc", "bep_pos", "ndocs", "task", "beta", "bep_distance", "cutoffs",
                         "out_gp", "out_agp", "out_warn"],
    "_batch.evaluate_rows": ["scores", "labels", "starts", "lens", "q0", "q1", "op_kind", "op_k", "op_thr",
                             "op_gain", "op_disc", "tie_mode", "default_thr", "extra_label", "nrel_mode",
                             "nrel1", "nrel2", "out"],
}


def _with(name, **changes):
    names = ENTRY_POINTS[name]
    args = recorded(name)
    for k, v in changes.items():
        args[names.index(k)] = v
    return args


# the dict encoder (``_dicts``)
ENCODERS = [_dicts.encode_sorted]


def entry_point_tests(prefixes, violations):
    """The two tests of a group of entry points (those whose name starts with one of
    ``prefixes``): each, called with the arguments its façade passed (recorded),
    returns; each call of ``violations`` (entry point, the arguments changed)
    raises ValueError.  A test module binds them to its own names."""
    import pytest

    @pytest.mark.parametrize("name", sorted(n for n in ENTRY_POINTS if n.startswith(prefixes)))
    def test_entry_point_valid_call(name):
        _call(name, recorded(name))

    @pytest.mark.parametrize("name,changes", violations,
                             ids=[f"{n}-{'-'.join(c)}-{i}" for i, (n, c) in enumerate(violations)])
    def test_entry_point_rejects(name, changes):
        with pytest.raises(ValueError):
            _call(name, _with(name, **changes))

    return test_entry_point_valid_call, test_entry_point_rejects


def _tagged_join(*args):
    """The join with tags, to its sparse (position, tag) lists."""
    j = _join.Join(*args)
    j.run(0, j.ne)
    j.result()
    return j.tags()


def _diversity_args():
    args = [np.array([0, 3], i64), np.array([0, 2], i64), np.array([0, 1], i64), np.array([0, 1], i32),
            np.array([0, 2], i64), np.array([0, 1, 3], i64), np.array([0, 0, 1], i32), np.array([1, 1, 1], i32),
            np.array([2], i64), 1, 0.5, 0.5, np.array([2, 5], i64), True, True, np.zeros((1, 15))]
    names = ["offsets", "judged_off", "judged_pos", "judged_row", "row_off", "int_off", "intent", "grade",
             "n_intents", "level", "alpha", "beta", "cutoffs", "need_nrbp", "whole", "out"]
    return args, names


MODULES["_join"] = _join
MODULES.update({f"_xml_{fam}": _xml_flat_module(fam, mod) for fam, mod in _XML_MODULES.items()})
MODULES["_org_rs"].rs_side = _rs_side
MODULES["_org_bcubed"].extended_bcubed_side = _extended_bcubed_side
MODULES["_join_tagged"] = type(sys)("_join_tagged")
MODULES["_join_tagged"].join = _tagged_join
MODULES["_diversity"] = _diversity
MODULES["_usermodel"] = _usermodel
MODULES["_trec_io"] = _trec_io


# counts drive the ideal-DCG loops of _ranking/_crp, cutoffs and intent counts the
# loops of _diversity: time, not memory
_COUNT_ARGS = {"levels", "cutoffs", "n_intents"}


def _garbage_value(rng, value, name):
    """A random replacement for one argument: other length, other values
    (negative, huge, boundary), other dtype or shape."""
    if isinstance(value, (bool, np.bool_)):
        return bool(rng.integers(2))
    if isinstance(value, (int, np.integer)):
        return int(rng.choice([-(1 << 62), -2, -1, 0, 1, 2, 3, 7, 1000, (1 << 31) - 1, 1 << 40, 1 << 62]))
    if isinstance(value, (float, np.floating)):
        return float(rng.choice([0.0, -1.0, 0.5, 1.0, 1e300, -1e300, np.nan, np.inf, -np.inf]))
    if not isinstance(value, np.ndarray):
        return value
    kind = rng.integers(6)
    shape = list(value.shape)
    if kind in (0, 1) or value.size == 0:
        shape[0] = int(rng.integers(0, 12))
        if len(shape) == 2 and rng.integers(2):
            shape[1] = int(rng.integers(0, 6))
    if kind == 2:                                  # wrong dtype
        dt = rng.choice([np.float64, np.int32, np.int64, np.uint8, np.float32])
        return np.zeros(shape, dtype=dt)
    if kind == 3 and value.ndim == 1:              # wrong dimensionality
        return np.zeros((max(shape[0], 1), 2), dtype=value.dtype)
    dt = value.dtype
    n = int(np.prod(shape)) if shape else 0
    if dt.kind == "f":
        pool = np.array([0.0, -1.0, 0.25, 1.0, 3.0, 1e300, -1e300, np.nan, np.inf, -np.inf])
        vals = np.where(rng.random(n) < 0.5, rng.normal(size=n) * 10, rng.choice(pool, n))
    else:
        info = np.iinfo(dt)
        hi = 1000 if name in _COUNT_ARGS else info.max
        lo = max(info.min, -1000) if name in _COUNT_ARGS else info.min
        pool = np.array([v for v in (0, 1, 2, -1, -2, n, n + 1, 2**31 - 1, -2**31, 2**62, -2**62, 255)
                         if lo <= v <= hi], dtype=np.int64)
        small = rng.integers(max(lo, -3), min(hi, 12) + 1, size=n)
        vals = np.where(rng.random(n) < 0.6, small, rng.choice(pool, n))
        if kind == 4:                               # sorted: plausible offsets
            vals = np.sort(vals)
    return np.ascontiguousarray(vals.reshape(shape).astype(dt))


_CLEAN = (ValueError, TypeError, MemoryError, OverflowError)


def run_garbage(seed, iterations):
    """Hand random garbage to every compiled entry point; only clean exceptions
    or results are allowed (IndexError from the bounds-checked build means a
    check is missing).  Returns the number of calls made."""
    rng = np.random.default_rng(seed)
    calls = 0
    names = sorted(ENTRY_POINTS)
    extra = {"_ranking.compute": (list(_compute_args().values()),
                                  ["rel", "ret_off", "levels", "op_kind", "op_level", "op_col", "par_off",
                                   "params", "out"]),
             "_join.join": (_join_args(), [f"a{i}" for i in range(17)]),
             "_join_tagged.join": (_join_args() + [True, False, np.array([5, 7], i32)], [f"a{i}" for i in range(20)]),
             "_diversity.diversity": _diversity_args(),
             "_usermodel.err": ([np.array([1, 0, -1, 3], i32), np.array([0, 3, 4], i64),
                                 np.array([[1, 1, 0, 0], [0, 0, 0, 1]], i64), 2, 4, np.zeros(2), np.zeros(2)],
                                ["rel", "offsets", "levels", "cutoff", "max_rel", "out_err", "out_nerr"]),
             "_join.group_sort": (list(_gs_args().values()),
                                  ["qidx", "qrank", "nq", "doc_off", "doc_hash", "scores", "doc_buf", "mode"]),
             "_trec_io.intern_keys": (list(_trec_io.encode_keys(["a", "bb", 3, "a", "é"])),
                                      ["buf", "off", "hashes"])}
    for it in range(iterations):
        for name in names + sorted(extra):
            if name in extra:
                args, argn = copy.deepcopy(extra[name][0]), extra[name][1]
            else:
                args, argn = recorded(name), ENTRY_POINTS[name]
            for _ in range(int(rng.integers(1, 4))):
                j = int(rng.integers(len(args)))
                args[j] = _garbage_value(rng, args[j], argn[j])
            try:
                _call(name, args)
            except _CLEAN:
                pass
            calls += 1
        # the tokenizer and the dict encoder
        data = bytes(rng.integers(0, 256, size=int(rng.integers(0, 200)), dtype=np.uint8))
        if rng.integers(2):
            data = b"q1 Q0 d1 1 " + data
        for kind in ("run", "qrels"):
            p = _trec_io.TrecParser(kind, "garbage")
            try:
                cut = int(rng.integers(0, len(data) + 1))
                p.feed(np.frombuffer(data[:cut], np.uint8))
                p.feed(np.frombuffer(data[cut:], np.uint8))
                p.finish()
            except _CLEAN:
                pass
            calls += 1
        vals = [1, -1, 2.5, float("nan"), 1 << 70, -(1 << 31), "x", None, np.int64(3), np.float32(2)]
        nested = {f"q{i}": {f"d{j}": vals[int(rng.integers(len(vals)))] for j in range(int(rng.integers(0, 4)))}
                  for i in range(int(rng.integers(0, 3)))}
        for is_run in (True, False):
            for encode in ENCODERS:
                try:
                    encode(nested, is_run)
                except _CLEAN:
                    pass
                calls += 1
    return calls
