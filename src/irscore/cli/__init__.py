"""The ``irscore`` command line.

Each subcommand lives in its own module, which provides ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int`` (the exit status):

- ``irscore eval``  classic ranked retrieval, trec_eval 10 compatible (``irscore.cli.eval``)
- ``irscore rs``    Reliability & Sensitivity for document organizations (``irscore.cli.organization``)
- ``irscore xml``   XML / focused retrieval measures (``irscore.cli.xml``)

Architecture
------------
A front end: the subcommand modules may import any family and the core.
:data:`SUBCOMMANDS` maps each subcommand to its module, imported when the
parser is built; a subcommand module imports its family when it runs, so
``irscore eval`` does not load the XML family.  Output lines come from
:func:`irscore.core.report.format_line`.  User errors print one line and
exit with status 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

SUBCOMMANDS = {
    "eval": "irscore.cli.eval",
    "rs": "irscore.cli.organization",
    "xml": "irscore.cli.xml",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="irscore", description="Exact, fast information-retrieval evaluation."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module_name in SUBCOMMANDS.items():
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
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args))
    except BrokenPipeError:  # e.g. `irscore eval ... | head`
        return 0
    except (ValueError, OSError) as exc:
        print(f"irscore {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
