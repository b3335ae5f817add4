"""Where families plug the code that computes their registered measures into
the core, which never names a family (the package root's docstring states the
layering).

`irscore.core.registry` declares the names and
parameters of the measures computed outside the trec_eval kernel (Rocchio's
indices, CRP, ERR, the C/W/L user models, ndeval's intent-aware measures), each
in a *group* of measures that one function computes, so that names parse
without importing a family.  The family that computes a group registers its
function here when it is imported (`register`); the package root installs the
loader that imports the family of a group (`set_loader`), called the first time
a group has no function yet (`compute_function`).

Standard library only: the package root imports this module when it is
imported itself.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

__all__ = ["register", "set_loader", "compute_function"]

#: group of measures -> ``compute_measure(joined, name, params, level, cache)``
_COMPUTE: Dict[str, Callable[..., Any]] = {}
_LOADER: Optional[Callable[[str], None]] = None


def register(group: str, compute: Callable[..., Any]) -> None:
    """Make ``compute`` the function that computes the measures of ``group``.

    ``compute(joined, name, params, level, cache)`` returns one float64 value
    per query of ``joined`` for the measure ``name`` of the group (see
    `irscore.core.registry.family_values`).  A group is computed by one
    family: registering a function of another module is an error (the same
    module reloaded replaces its function).
    """
    known = _COMPUTE.get(group, compute)
    if known.__module__ != compute.__module__:
        raise ValueError(f"the measures {group!r} are already computed by {known.__module__}.{known.__qualname__}")
    _COMPUTE[group] = compute


def set_loader(loader: Callable[[str], None]) -> None:
    """Install ``loader(group)``, which imports the family that computes ``group``."""
    global _LOADER
    _LOADER = loader


def compute_function(group: str) -> Callable[..., Any]:
    """The function registered for the measures of ``group`` (its family is
    loaded first when none is registered yet)."""
    compute = _COMPUTE.get(group)
    if compute is None and _LOADER is not None:
        _LOADER(group)
        compute = _COMPUTE.get(group)
    if compute is None:
        raise LookupError(f"no family registered a function computing the measures {group!r}")
    return compute
