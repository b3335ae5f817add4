"""XML and focused retrieval measures (definitions: docs/xml.md).

Elements and passages are character spans ``(doc, start, end)``, half-open;
nesting is containment.  A run is a ranked list of spans per topic; the
assessments are highlighted passages (INEX 2007+, ``XmlQrels.passages``) and/or
assessed elements carrying exhaustivity and specificity (INEX 2002-2006,
``XmlQrels.elements``).

Entry points
------------
- readers: [`read_passage_qrels`][irscore.xml.read_passage_qrels], [`read_fol_run`][irscore.xml.read_fol_run],
  [`read_element_tsv`][irscore.xml.read_element_tsv], [`read_inex_assessments`][irscore.xml.read_inex_assessments], [`read_inex_run`][irscore.xml.read_inex_run],
  `read_inex_submission` (INEX 2008+ XML runs); `write_fol`
- ``compat="inex2008"`` / ``"reprec"``: the official tools' numbers
  (`irscore.xml.inex2008`; RePrec's Precall in `irscore.xml.inex_values`)
- in-memory: [`XmlQrels.from_passages`][irscore.xml.XmlQrels.from_passages], [`XmlQrels.from_elements`][irscore.xml.XmlQrels.from_elements],
  [`XmlRun.from_spans`][irscore.xml.XmlRun.from_spans]
- [`evaluate`][irscore.xml.evaluate] computes many measures in one pass (names as in the CLI:
  ``iP[0.01]``, ``MAiP``, ``nxCG@10``, ``MAep``, ``hixF@10``, ...);
  [`overlap`][irscore.xml.overlap], [`xcg`][irscore.xml.xcg], [`hixeval`][irscore.xml.hixeval], [`interpolated_precision`][irscore.xml.interpolated_precision],
  [`inex_eval`][irscore.xml.inex_eval], [`inex_eval_ng`][irscore.xml.inex_eval_ng], [`generalized_precision`][irscore.xml.generalized_precision],
  [`eprum`][irscore.xml.eprum], [`t2i`][irscore.xml.t2i] are the per-family functions.

Every reading the literature leaves open is a named parameter; the defaults are
documented on each function and in docs/xml.md ("Readings chosen").


Architecture
------------
The package imports only `irscore.core` and its compiled kernels
`irscore._xml_focused`, `_xml_xcg`, `_xml_eprum`, `_xml_gp` and `_xml_inex`
(one per family of measures), never another family.  Its modules form layers; each
imports only the layers above it:

- ``model``     spans, [`XmlQrels`][irscore.xml.XmlQrels], [`XmlRun`][irscore.xml.XmlRun] (and their checks)
- ``inex2008``  inex_eval v1.0's readers and measures (``compat="inex2008"``)
- ``readers``   file readers (FOL runs, passage qrels, element TSV, INEX XML)
- ``submission``  INEX 2008+ XML submissions, FOL writer
- ``precall``   RePrec's whole-unit Precall (``compat="reprec"``)
- ``ideal``     quantisation and the ideal recall base
- ``align``     alignment of a run with the assessments; the one native pass
- ``context``   the evaluation context (everything an evaluation computes once)
- ``names``     the measure-name grammar (``iP[0.01]``, ``nxCG@10``, ...)
- ``focused``   overlap, XCG, HiXEval, interpolated precision
- ``inex_values``  per-topic values of the INEX families, one function per
                family behind a dispatch table; the GR/EPRUM navigation model
- ``inex``      inex_eval, inex_eval_ng, gP/MAgP, EPRUM, T2I (public functions)
- ``evaluation``  [`evaluate`][irscore.xml.evaluate], every family in one pass

This ``__init__`` only re-exports the public names.
"""
from irscore.xml.evaluation import evaluate
from irscore.xml.focused import hixeval, interpolated_precision, overlap, xcg
from irscore.xml.ideal import ideal_recall_base, quantise
from irscore.xml.inex import eprum, generalized_precision, inex_eval, inex_eval_ng, t2i
from irscore.xml.inex_values import Navigation, default_navigation
from irscore.xml.model import Quantisation, Span, XmlQrels, XmlRun
from irscore.xml.names import DEFAULT_MEASURES, measure_family
from irscore.xml.readers import (
    Layout,
    layout_from_sizes,
    read_element_tsv,
    read_fol_run,
    read_inex_assessments,
    read_inex_run,
    read_passage_qrels,
)
from irscore.xml.submission import read_inex_submission, write_fol

__all__ = [
    "Span",
    "Quantisation",
    "XmlQrels",
    "XmlRun",
    "read_passage_qrels",
    "read_fol_run",
    "read_element_tsv",
    "Layout",
    "layout_from_sizes",
    "read_inex_assessments",
    "read_inex_run",
    "read_inex_submission",
    "write_fol",
    "quantise",
    "ideal_recall_base",
    "DEFAULT_MEASURES",
    "measure_family",
    "overlap",
    "xcg",
    "hixeval",
    "interpolated_precision",
    "inex_eval",
    "inex_eval_ng",
    "generalized_precision",
    "Navigation",
    "default_navigation",
    "eprum",
    "t2i",
    "evaluate",
]
