"""Deprecated spellings kept for one release: each warns once per process.

The vocabulary is one across families (``n_relevant``, ``per_query``,
``run_id``, keyword-only ``offsets``/``lengths``); the old spellings still work
for one release and warn once with a ``FutureWarning`` naming the new one.
"""
from __future__ import annotations

import warnings
from typing import Any, Dict, Sequence, Set, Tuple

__all__ = ["warn_deprecated", "reset_warnings", "keyword_only", "renamed"]

_warned: Set[str] = set()


def warn_deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn (once per process for each ``old``) that ``old`` is deprecated in
    favour of ``new``."""
    if old in _warned:
        return
    _warned.add(old)
    warnings.warn(f"{old} is deprecated and will be removed in the next release; use {new}",
                  FutureWarning, stacklevel=stacklevel)


def reset_warnings() -> None:
    """Forget which deprecations have warned (for tests)."""
    _warned.clear()


def keyword_only(args: Tuple[Any, ...], names: Sequence[str], values: Dict[str, Any], where: str) -> Dict[str, Any]:
    """Map deprecated positional arguments ``args`` onto the keyword-only
    ``names`` (in order) of ``where``; ``values`` holds their keyword values.
    Warns once; a name given both ways, or too many positionals, is a TypeError."""
    if not args:
        return values
    if len(args) > len(names):
        raise TypeError(f"{where}() takes at most {len(names)} extra positional argument(s) "
                        f"(deprecated; pass {', '.join(names)} by keyword)")
    out = dict(values)
    for name, value in zip(names, args):
        if out.get(name) is not None:
            raise TypeError(f"{where}() got {name} both by position and by keyword")
        out[name] = value
    warn_deprecated(f"{where}(..., {', '.join(names[:len(args)])}) by position",
                    f"{', '.join(n + '=' for n in names[:len(args)])} (keyword-only)", stacklevel=4)
    return out


def renamed(old_value: Any, new_value: Any, old: str, new: str) -> Any:
    """The value of a renamed parameter: ``new_value``, or ``old_value`` (with a
    once-per-process warning) when only the old spelling was given."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise TypeError(f"{old} and {new} are the same parameter; pass {new} only")
    warn_deprecated(old, new, stacklevel=4)
    return old_value
