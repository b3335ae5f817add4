"""The ``irscore`` command line.

Each subcommand lives in its own module, which provides ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int`` (the exit status):

- ``irscore eval``  classic ranked retrieval, trec_eval 10 compatible (``irscore.cli.eval``)
- ``irscore rs``    Reliability & Sensitivity for document organizations (``irscore.cli.organization``)
- ``irscore xml``   XML / focused retrieval measures (``irscore.cli.xml``)
- ``irscore compare`` paired significance tests between runs (``irscore.cli.compare``)
- ``irscore measures`` the measure names and their parameters (``irscore.cli.measures``)

Architecture
------------
A front end: the subcommand modules may import any family and the core.
`SUBCOMMANDS` maps each subcommand to its module, imported when the
parser is built; a subcommand module imports its family when it runs, so
``irscore eval`` does not load the XML family.  Output lines come from
`irscore.core.report.format_line`.  User errors print one line and
exit with status 2.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
import zlib
from typing import Any, List, NoReturn, Optional

from irscore import __version__

SUBCOMMANDS = {
    "eval": "irscore.cli.eval",
    "rs": "irscore.cli.organization",
    "xml": "irscore.cli.xml",
    "compare": "irscore.cli.compare",
    "measures": "irscore.cli.measures",
}


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are one line (``prog: error: ...``,
    exit status 2) instead of the usage block and the error; sub-commands'
    parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} -h)\n")


class _SubParser(_Parser):
    """A subcommand's parser: it reports arguments it does not know itself
    (``irscore eval: error: unrecognized arguments: -x``), instead of handing
    them to the top-level parser, which would blame ``irscore``."""

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        ns, extras = super().parse_known_args(args, namespace)
        if extras:
            # an unknown option may take a value: name the options only, not the files after them
            options = [a for a in extras if a.startswith("-") and a != "-"]
            self.error(f"unrecognized arguments: {' '.join(options or extras)}")
        return ns, extras


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The ``irscore`` parser; with ``only`` (a subcommand), that subcommand's
    alone: its module is the only one imported (``irscore eval`` does not import
    the statistics ``irscore compare`` names in its options: ~30 ms)."""
    parser = _Parser(
        prog="irscore", description="Exact, fast information-retrieval evaluation."
    )
    parser.add_argument("--version", action="version", version=f"irscore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_SubParser)
    sub.required = True
    for name, module_name in SUBCOMMANDS.items():
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a family not built in this checkout
            if exc.name == module_name:
                continue
            raise
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    _one_blas_thread_for_eval(words)
    # a known subcommand first: only its parser (an unknown one gets them all, for the error)
    parser = build_parser(words[0] if words[:1] and words[0] in SUBCOMMANDS else None)
    args = parser.parse_args(argv)

    def one_line(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                 line: Optional[str] = None) -> None:
        print(f"irscore {args.command}: warning: {' '.join(str(message).split())}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = one_line  # restored on exit
        try:
            check_stdin_once(args)
            return int(args._run(args))
        except BrokenPipeError:  # e.g. `irscore eval ... | head`
            return 0
        except USER_ERRORS as exc:
            print(f"irscore {args.command}: error: {error_message(exc)}", file=sys.stderr)
            return 2


def _one_blas_thread_for_eval(argv: List[str]) -> None:
    """``irscore eval`` calls no BLAS routine, but OpenBLAS starts a worker thread
    per core when numpy is loaded, and each spins for about 0.1 s before it sleeps:
    on the cores the reader's threads use (measured: 0.09-0.17 s of wall time of an
    ``irscore eval -m official`` of 1M lines).  So, before numpy is first imported,
    and only when the user set no ``OPENBLAS_NUM_THREADS``, numpy is loaded with it
    set to 1; the variable is removed again once OpenBLAS has read it (child
    processes see the user's environment)."""
    if argv[:1] != ["eval"] or "numpy" in sys.modules or "OPENBLAS_NUM_THREADS" in os.environ:
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        importlib.import_module("numpy")
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


# the arguments that name input files ("-" is standard input)
FILE_ARGUMENTS = ("qrels", "run", "runs", "gold", "system", "Z")


def check_stdin_once(args: argparse.Namespace) -> None:
    """Standard input (``-``) can be read once: at most one file argument is ``-``."""
    named = []
    for dest in FILE_ARGUMENTS:
        value = getattr(args, dest, None)
        for v in value if isinstance(value, list) else [value]:
            if v == "-":
                named.append(dest)
    if len(named) > 1:
        raise ValueError(f"standard input (-) given {len(named)} times ({', '.join(named)}); it can be read once")


# What bad input (files, options) raises; reported in one line, exit status 2.
USER_ERRORS = (ValueError, TypeError, OSError, EOFError, zlib.error, RecursionError, OverflowError, MemoryError)


def error_message(exc: BaseException) -> str:
    """One line naming the file where the exception knows it."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        msg = f"{exc.filename}: {exc.strerror}"
    elif isinstance(exc, RecursionError):
        msg = "input nested too deeply"
    elif isinstance(exc, MemoryError):
        msg = f"not enough memory: {exc}" if str(exc) else "not enough memory"
    else:
        msg = str(exc) or type(exc).__name__
    return " ".join(msg.split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
