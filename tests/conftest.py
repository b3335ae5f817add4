from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
TREC_TEST = SHARED / "trec_eval_test"
EXAMPLES = REPO / "examples"


@pytest.fixture
def trec_test_dir() -> Path:
    if not TREC_TEST.is_dir():
        pytest.skip("../shared/trec_eval_test is not available")
    return TREC_TEST
