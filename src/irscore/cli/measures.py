"""``irscore measures [--family NAME]``: the measure names and their parameters.

The listing is built from the declarations of the core (each measure's
`irscore.core.specs` entry: definition, cutoff rule, keywords; ``FAMILIES``,
``MEASURE_SETS`` and ``ALIASES`` of `irscore.core.measures` derived from them; the
registered families and their typed parameters of `irscore.core.registry`; the
XML forms of ``irscore.core.specs.XML_FORMS``)
and the judgment formats' own tables, never from a list written here; which
keywords and cutoffs an ir_measures-style name takes is asked of the parser
itself ([`parse_measure`][irscore.core.measures.parse_measure]), so the listing says what
the parser accepts.  ``irscore eval -m help`` prints the same listing.
"""
from __future__ import annotations

import argparse
import difflib
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from irscore.core.registry import Param
from irscore.core.specs import BY_NAME

if TYPE_CHECKING:  # pragma: no cover
    from irscore.core.specs import Spec

HELP = "list the measure names and their parameters (trec_eval and ir_measures styles)"

# Keywords of the ir_measures-style syntax, with a value to try and how to show it.
# Each is listed for a name only where parse_measure accepts it.
_KEYWORDS: Tuple[Tuple[str, str, str], ...] = (
    ("rel", "1", "INT"), ("judged_only", "True", "BOOL"), ("gain", "exp", "linear|exp"),
    ("discount", "jarvelin", "log2|jarvelin"), ("gains", "{0:0,1:1}", "{GRADE:GAIN,...}"),
    ("p", "0.5", "FLOAT"), ("denominator", "min_k_R", "R|min_k_R"),
)
# keywords left out of the listing: other spellings of what it shows (cutoff= is @k,
# dcg= is gain=, params= is the trec_eval parameter string of -m FAMILY.PARAMETERS)
UNLISTED_KEYWORDS = ("cutoff", "dcg", "params")
_PTYPE = {
    "none": "none",
    "long_cuts": "cutoffs, positive integers",
    "float_cuts": "points, numbers",
    "float_params": "numbers",
    "pairs": "KEY=VALUE pairs",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", default=None, metavar="NAME",
                   help="show one family (a trec_eval family, an ir_measures-style name or a registered "
                        "family: ndcg, nDCG, P, Rnorm, alpha_nDCG, ...)")


class MeasureAction(argparse.Action):
    """``-m`` of ``irscore eval`` and ``irscore compare``: append the name; ``-m help``
    prints the listing and exits with status 0."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: Any = None) -> None:
        if values == "help":
            sys.stdout.write(listing())
            parser.exit(0)
        items = list(getattr(namespace, self.dest) or [])
        items.append(values)
        setattr(namespace, self.dest, items)


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(listing(args.family))
    return 0


def _accepts(name: str) -> Optional[str]:
    """The family ``name`` parses to, or None."""
    from irscore.core.measures import parse_measure

    try:
        return parse_measure(name).family
    except (ValueError, TypeError):
        return None


def _irm_form(alias: str, family: str) -> Tuple[str, str, str]:
    """(cutoff suffix, keywords, family a cutoff turns ``alias`` into when not ``family``)
    of an ir_measures-style name, as the parser accepts them."""
    cut = next((c for c in ("10", "0.5") if _accepts(f"{alias}@{c}")), None)
    keys = ", ".join(f"{k}={shown}" for k, v, shown in _KEYWORDS
                     if _accepts(f"{alias}({k}={v})") or (cut and _accepts(f"{alias}({k}={v})@{cut}")))
    if not cut:
        return "", keys, ""
    at = "@k" if cut == "10" else "@x"
    reached = _accepts(f"{alias}@{cut}") or ""
    return (f"[{at}]" if _accepts(alias) else at), keys, (reached if reached != family else "")


def _names_line(family: str, aliases: List[str]) -> str:
    groups: Dict[Tuple[str, str, str], List[str]] = {}
    for a in aliases:
        groups.setdefault(_irm_form(a, family), []).append(a)
    parts = []
    for (at, keys, reached), names in groups.items():
        text = ", ".join(n + at for n in names)
        if keys:
            text += f" (keywords: {keys})"
        if reached:
            text += f"; with a cutoff: {reached}"
        parts.append(text)
    return "; ".join(parts)


def _trec_block(name: str) -> List[str]:
    from irscore.core.measures import ALIASES, FAMILIES, expand_spec

    f = FAMILIES[name]
    ptype = _PTYPE.get(f.ptype, f.ptype)
    if f.default:
        ptype += " (default " + ",".join(f"{v:g}" for v in f.default) + ")"
    outputs = [k for k, _ in expand_spec(name)]
    aliases = sorted({a for a, fam in ALIASES.items() if fam == name}, key=lambda a: (a.lower(), a != name, a))
    lines = [f"{name}", f"    {BY_NAME[name].doc}",
             f"    -m {name}" + (f", -m {name}.PARAMETERS: {ptype}" if f.ptype != "none" else ""),
             f"    outputs: {' '.join(outputs)}"]
    if aliases:
        lines.append("    names: " + _names_line(name, aliases))
    notes = [n for n, on in (("per query only (-q)", not f.summary), ("summary only", not f.per_query),
                              ("an integer count", f.integer)) if on]
    if notes:
        lines.append("    " + "; ".join(notes))
    return lines


def _spec_details(name: str) -> List[str]:
    """What ``--family`` adds to a family's block: its declaration in `irscore.core.specs`."""
    from irscore.core.specs import BY_NAME, KEYWORDS

    s = BY_NAME[name]
    if s.op is None:
        return []
    empty = {"rel": "0 (0/0: no relevant document, R = 0)", "gain": "0 (0/0: the ideal DCG is 0)"}
    cutoff = {"none": "none", "optional": "optional (@k)", "required": "required (@k; -m: one output per cutoff)"}
    lines = [f"    cutoff: {cutoff[s.cutoff]}" + (f"; NAME@k is {s.at_k}" if s.at_k else ""),
             "    a query without relevant documents: " + empty.get(s.empty or "", "as defined"),
             f"    aggregate: {s.agg}; native op: {s.op}; batch path: " + (s.batch or "no"),
             "    keywords:"]
    lines += [f"      {k}={KEYWORDS[k].allowed} (default {KEYWORDS[k].default or 'none'}): {KEYWORDS[k].doc}"
              for k in s.params]
    return lines


def _xml_block() -> List[str]:
    from irscore.core.specs import XML_FORMS

    return [f"    {' '.join(form.forms)}: {form.doc}" for form in XML_FORMS]


def _param_text(p: Param) -> str:
    if p.kind == "choice":
        shown = "|".join(p.choices)
    elif p.kind == "int" and p.minimum is not None:
        shown = f"INT>={p.minimum}"
    elif p.kind == "float":
        lo, hi = p.bounds
        lo_r, hi_r = round(lo, 6) + 0.0, round(hi, 6)      # bounds nudged by 1e-12 include the end
        shown = "FLOAT " + ("[" if lo < lo_r else "(") + f"{lo_r:g}, {hi_r:g}" + ("]" if hi > hi_r else ")")
    else:
        shown = p.kind.upper()
    return f"{p.name}={shown}"


def _external_block(name: str) -> List[str]:
    from irscore.core.plugins import compute_function
    from irscore.core.registry import EXTERNAL

    fam = EXTERNAL[name]
    form = name + ("[(" + ", ".join(_param_text(p) for p in fam.params) + ")]" if fam.params else "")
    if fam.cutoff:
        form += "@k" if fam.cutoff_required else "[@k]"
    lines = [f"{name}", f"    names: {form}", f"    computed by {compute_function(fam.group).__module__}"]
    for p in fam.params:
        about = [p.doc] if p.doc else []
        if p.default is not None:
            about.append(f"default {p.default!r}")
        if about:
            lines.append(f"    {p.name}: {'; '.join(about)}")
    return lines


def _sets() -> Dict[str, List[str]]:
    from irscore.core.measures import MEASURE_SETS

    return dict(MEASURE_SETS)


def _judgment_formats() -> List[str]:
    from irscore.cli.eval import JG_ORDER
    from irscore.prefs import PREFS_MEASURES, PREFS_SETS

    lines = ["With -R prefs or -R qrels_prefs (preference judgments): " + " ".join(PREFS_MEASURES)]
    lines += [f"    set {s}: {' '.join(v)}" for s, v in PREFS_SETS.items()]
    lines.append("With -R qrels_jg (judgment groups): " + " ".join(n for n in JG_ORDER if n not in ("runid", "num_q"))
                 + "; set qrels_jg")
    return lines


def _resolve_family(name: str) -> Tuple[str, str]:
    """('trec' | 'external' | 'set', key) for a name given to --family."""
    from irscore.core.measures import ALIASES, FAMILIES
    from irscore.core.registry import EXTERNAL

    sets = _sets()
    for exact in (True, False):
        def same(a: str, b: str) -> bool:
            return a == b if exact else a.lower() == b.lower()
        for table, kind in ((FAMILIES, "trec"), (EXTERNAL, "external"), (sets, "set")):
            for key in table:
                if same(key, name):
                    return kind, key
        for alias, fam in ALIASES.items():
            if same(alias, name):
                return "trec", fam
    names = sorted(set(FAMILIES) | set(EXTERNAL) | set(ALIASES) | set(sets))
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ValueError(f"--family: unknown measure family {name!r}{hint} (irscore measures lists them)")


def listing(family: Optional[str] = None) -> str:
    """The text of ``irscore measures`` (one family with ``family``)."""
    from irscore.core.measures import FAMILIES
    from irscore.core.registry import EXTERNAL

    if family is not None:
        kind, key = _resolve_family(family)
        if kind == "trec":
            block = _trec_block(key) + _spec_details(key)
        elif kind == "external":
            block = _external_block(key)
        else:
            block = [f"{key} (measure set): {' '.join(_sets()[key])}"]
        return "\n".join(block) + "\n"
    out = ["Measure names of irscore eval -m, irscore.evaluate and irscore compare -m.",
           "Per family: the trec_eval -m forms and the output names they print, then the ir_measures-style "
           "names (NAME(KEY=VALUE,...)@k; [ ] marks what is optional). irscore measures --family NAME shows one.",
           "", "Measure sets (-m SET; default of irscore eval: official):"]
    out += [f"    {s}: {' '.join(v)}" for s, v in _sets().items()]
    out += ["", "trec_eval families (and irscore's extensions of them):"]
    for name in FAMILIES:
        out += _trec_block(name)
    out += ["", "Registered families (ir_measures-style names only):"]
    for name in EXTERNAL:
        out += _external_block(name)
    out += ["", "XML (INEX) measures (irscore xml -m; k a rank, x a recall level):"] + _xml_block()
    out += [""] + _judgment_formats()
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ the docs' names table

_CUTOFF_TEXT = {"none": "—", "required": "required", "optional": "optional"}
_EMPTY_TEXT = {"rel": "0 (0/0, R = 0; batch: `empty=`)", "gain": "0 (0/0, ideal DCG 0; batch: `empty=`)",
               None: "its definition"}


def _names_cell(s: "Spec") -> str:
    from irscore.core.measures import Measure

    point = {"long_cuts": (10.0, "@k"), "float_cuts": (0.5, "@x")}.get(s.ptype) if s.cutoff == "required" else None
    canonical = str(Measure(s.name, cutoff=point[0] if point else None))
    if point:
        canonical = canonical.replace("@" + format(point[0], "g"), point[1])
    bare = () if point else (s.irm or s.name,)      # a required cutoff: the name alone is not a measure
    names = [f"`{n}`" for n in dict.fromkeys((canonical, *bare, *s.aliases))]
    names += [f"ranx `{r}`" for r in s.ranx]
    return ", ".join(names)


def _cutoff_cell(s: "Spec") -> str:
    text = _CUTOFF_TEXT[s.cutoff]
    if s.cutoff == "required" and s.default:
        text += " (`-m`: " + ",".join(f"{v:g}" for v in s.default) + ")"
    if s.at_k:
        text = f"`@k`: `{s.at_k}`"
    return text


def names_table() -> str:
    """The Markdown table of every declared measure (``docs/names.md`` holds it;
    ``tests/classic/test_specs.py`` checks the two agree)."""
    from irscore.core.specs import DECLARATIONS

    rows = ["| `-m` | ir_measures-style and other names | keywords | cutoff | no relevant document | "
            "aggregate | batch | definition |",
            "|---|---|---|---|---|---|---|---|"]
    for s in DECLARATIONS:
        if s.op is None:
            continue
        keys = ", ".join(f"`{k}`" for k in s.params)
        rows.append(f"| `{s.name}` | {_names_cell(s)} | {keys} | {_cutoff_cell(s)} | {_EMPTY_TEXT[s.empty]} | "
                    f"{s.agg} | {'yes' if s.batch else '—'} | {s.doc} |")
    return "\n".join(rows) + "\n"
