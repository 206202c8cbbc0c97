"""environment.yml (the conda route) must ask for what pyproject.toml (the pip route) asks for."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import yaml

ROOT = Path(__file__).resolve().parents[1]

# conda-forge spells a few PyPI names differently.
CONDA_NAMES = {"docstring-parser": "docstring_parser"}


def split_requirement(text: str) -> tuple[str, str]:
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*", text)
    assert match, f"cannot parse requirement {text!r}"
    return match.group(1).lower().replace("_", "-"), match.group(2).replace(" ", "")


def pyproject_requirements() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return dict(split_requirement(item) for item in data["project"]["dependencies"])


def environment_requirements() -> tuple[dict[str, str], dict[str, str], str]:
    data = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    conda: dict[str, str] = {}
    pip: dict[str, str] = {}
    python = ""
    for item in data["dependencies"]:
        if isinstance(item, dict):
            for entry in item["pip"]:
                if entry.startswith("-e") or entry.startswith("."):
                    continue
                name, spec = split_requirement(entry)
                pip[name] = spec
            continue
        name, spec = split_requirement(item)
        if name == "python":
            python = spec
        elif name != "pip":
            conda[name] = spec
    return conda, pip, python


def mismatches(pyproject: dict[str, str], conda: dict[str, str], pip: dict[str, str]) -> list[str]:
    """Every way the two files disagree, one line each."""
    normalized_conda = {
        pypi: conda[conda_name.replace("_", "-")]
        for pypi, conda_name in CONDA_NAMES.items()
        if conda_name.replace("_", "-") in conda
    }
    merged = {**conda, **pip, **normalized_conda}
    problems = []
    for name, spec in pyproject.items():
        if name not in merged:
            problems.append(f"{name} is in pyproject.toml but not in environment.yml")
        elif merged[name] != spec:
            problems.append(
                f"{name}: pyproject.toml asks for {spec!r}, environment.yml {merged[name]!r}"
            )
    known = set(pyproject) | {c.replace("_", "-") for c in CONDA_NAMES.values()}
    for name in sorted((set(conda) | set(pip)) - known):
        problems.append(f"{name} is in environment.yml but not in pyproject.toml")
    return problems


def test_environment_yml_and_pyproject_toml_ask_for_the_same_packages_and_ranges():
    conda, pip, _ = environment_requirements()
    assert mismatches(pyproject_requirements(), conda, pip) == []


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda c, p: p.update({"openai": ">=2,<3"}), "openai: pyproject.toml asks for"),
        (lambda c, p: c.pop("nbval"), "nbval is in pyproject.toml but not"),
        (lambda c, p: c.pop("docstring-parser"), "docstring-parser is in pyproject.toml but not"),
        (lambda c, p: c.update({"numpy": ">=1"}), "numpy is in environment.yml but not"),
    ],
)
def test_the_comparison_reports_each_kind_of_drift(edit, expected):
    conda, pip, _ = environment_requirements()
    edit(conda, pip)
    problems = mismatches(pyproject_requirements(), conda, pip)
    assert any(line.startswith(expected) for line in problems), problems


def test_environment_yml_installs_this_package_and_the_same_python():
    data = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    pip_section = next(item["pip"] for item in data["dependencies"] if isinstance(item, dict))
    assert "-e ." in pip_section, "environment.yml must install this package (pip: -e .)"
    _, _, python = environment_requirements()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert python == project["requires-python"]
