from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
# trec_eval 10's own test suite (inputs and expected outputs), shipped with the
# tests; tests/data/trec_eval/README.md states its origin and licence.
TREC_TEST = TESTS / "data" / "trec_eval"


@pytest.fixture
def trec_test_dir() -> Path:
    return TREC_TEST
