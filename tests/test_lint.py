"""The code base stays ruff-clean (lint and format, configured in pyproject.toml)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_finds_no_lint_errors():
    result = ruff("check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_would_reformat_nothing():
    result = ruff("format", "--check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_lint_test_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")  # unused import: F401
    result = ruff("check", "--no-cache", "--isolated", "--select", "F401", str(bad))
    assert result.returncode == 1 and "F401" in result.stdout
