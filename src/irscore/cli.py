"""The ``irscore`` command line.

Each subcommand lives in its own module, which provides ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int`` (the exit status):

- ``irscore eval``  classic ranked retrieval, trec_eval 10 compatible (``irscore.eval_cli``)
- ``irscore rs``    Reliability & Sensitivity for document organizations (``irscore.organization_cli``)
- ``irscore xml``   XML / focused retrieval measures (``irscore.xml_cli``)
- ``irscore compare`` paired significance tests between runs (``irscore.compare_cli``)
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

SUBCOMMANDS = {
    "eval": "irscore.eval_cli",
    "rs": "irscore.organization_cli",
    "xml": "irscore.xml_cli",
    "compare": "irscore.compare_cli",
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
