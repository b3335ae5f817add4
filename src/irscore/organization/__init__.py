"""Reliability & Sensitivity for document organization (Amigó, Gonzalo, Verdejo, SIGIR 2013).

An *organization* of one topic is a list of priority levels (top first), each a list
of clusters, each a collection of document ids.  A document may occur in several
clusters and levels; each (document, cluster) membership is an *occurrence*.
Documents that are not listed form the long tail, below every level.  Ranking,
filtering and clustering are special cases.

Reliability (R) is the weighted precision of the relations a system output states
(priority: "d above d'"; relatedness: "d and d' in one cluster") against the gold
standard; Sensitivity (S) is their recall.  The definitions and the readings chosen
where the paper is garbled are in docs/reliability_sensitivity.md; in short:

- ranking weights (``weights="ranking"``, parameters ``n``, ``w_n``): the first ``n``
  occurrences carry the fraction ``w_n`` of the total weight; with
  ``c = (1 - w_n) n / w_n`` the occurrence at position ``i`` weighs
  ``c (1/(c+i-1) - 1/(c+i))``, occurrences of one level share their interval, and the
  long tail weighs ``c / (c + |occ|)``;
- ``weights="uniform"``: every occurrence weighs ``1/|occ|`` and there is no tail
  (filtering, flat clustering);
- relation counts follow extended BCubed: ``P(r in G) = min(|r_G|, |r_X|) / |r_X|``;
- ``foreign="tail"`` (default): a document listed on one side only is placed in the
  other side's tail, below all its levels; ``foreign="absent"`` counts every priority
  relation of such a document as wrong;
- with ``weights="uniform"`` and a single level there is no priority relation and
  R/S priority are 0 (the filtering convention of docs/reliability_sensitivity.md: an empty factor is 0);
- F is the harmonic mean ``2RS/(R+S)`` (0 when both are 0), computed per topic; the
  averages are arithmetic means of the per-topic values.

Architecture
------------
The package imports only `irscore.core` and the compiled kernels
`irscore._org_rs` (Reliability & Sensitivity), `irscore._org_bcubed` (extended
BCubed) and `irscore._org_core` (their shared arrays type `Side` and scratch
cache), never another family.  Layers (each imports
only those above it):

- ``model``     [`Organization`][irscore.organization.Organization], its checks, the result type [`RSResult`][irscore.organization.RSResult]
- ``align``     gold/system topic alignment and the pair arrays of the kernels
- ``measures``  position weights, [`reliability_sensitivity`][irscore.organization.reliability_sensitivity],
                [`filtering_rs`][irscore.organization.filtering_rs], [`bcubed`][irscore.organization.bcubed], [`extended_bcubed`][irscore.organization.extended_bcubed]
- ``readers``   [`read_organization`][irscore.organization.read_organization] (TSV, JSON, clusters, labels)

This ``__init__`` only re-exports the public names.
"""
from irscore.organization.measures import (
    bcubed,
    extended_bcubed,
    filtering_rs,
    position_weights,
    reliability_sensitivity,
)
from irscore.organization.model import RS_MEASURES, Organization, RSResult
from irscore.organization.readers import read_organization

__all__ = [
    "Organization",
    "RSResult",
    "reliability_sensitivity",
    "read_organization",
    "filtering_rs",
    "bcubed",
    "extended_bcubed",
    "position_weights",
    "RS_MEASURES",
]
