"""What a release promises: one version everywhere (package, metadata, CLI,
changelog)."""
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

import irscore

ROOT = Path(__file__).resolve().parents[2]


def test_version_option():
    proc = subprocess.run([sys.executable, "-m", "irscore", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"irscore {irscore.__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]|rc|\.dev|\.post)?\d*", irscore.__version__)


def test_version_is_the_distribution_version():
    try:
        dist = importlib.metadata.version("irscore")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("irscore is not installed (only on the path)")
    assert irscore.__version__ == dist


def test_changelog_has_a_section_for_the_version():
    changelog = ROOT / "CHANGELOG.md"
    if not changelog.exists():
        pytest.skip("no CHANGELOG.md beside the tests (installed tests only)")
    headings = re.findall(r"^## \[([^\]]+)\]", changelog.read_text(encoding="utf-8"), re.M)
    assert headings[0] == "Unreleased"
    assert irscore.__version__ in headings
