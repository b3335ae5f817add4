import os
import sysconfig
from pathlib import Path

import pytest

import irscore

TESTS = Path(__file__).resolve().parent
# trec_eval 10's own test suite (inputs and expected outputs), shipped with the
# tests; tests/data/trec_eval/README.md states its origin and licence.
TREC_TEST = TESTS / "data" / "trec_eval"


def _installed_dirs() -> set:
    return {Path(sysconfig.get_path(k)).resolve() for k in ("purelib", "platlib")}


def pytest_report_header(config):
    return f"irscore {irscore.__version__} from {Path(irscore.__file__).resolve().parent}"


def pytest_configure(config):
    # IRSCORE_TEST_INSTALLED=1 (CI's wheel-from-sdist step, cibuildwheel): the tests
    # must exercise the installed package, not a source tree that shadows it.
    if os.environ.get("IRSCORE_TEST_INSTALLED", "") not in ("", "0"):
        where = Path(irscore.__file__).resolve().parent
        if where.parent not in _installed_dirs():
            raise pytest.UsageError(f"IRSCORE_TEST_INSTALLED is set but irscore was imported from {where}, "
                                    f"not from {sorted(map(str, _installed_dirs()))}")


@pytest.fixture
def trec_test_dir() -> Path:
    return TREC_TEST
