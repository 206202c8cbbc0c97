"""Find the submissions: ``SUBMISSIONS/<student>/<NN_slug>.ipynb``, in a stable order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, order=True)
class Submission:
    """One file to grade; ``notebook`` is the lesson slug the file name claims."""

    student: str
    notebook: str
    path: Path


def students(root: Path) -> list[str]:
    """Every student folder under ``root`` (hidden ones skipped), sorted, with or without files."""
    return sorted(
        path.name for path in root.iterdir() if path.is_dir() and not path.name.startswith(".")
    )


def discover(root: Path, *, notebook: str | None = None) -> list[Submission]:
    """Every ``<student>/<name>.ipynb`` under ``root``, sorted by student then notebook.

    Hidden files and folders (``.ipynb_checkpoints``, ``.DS_Store``) are skipped: they are
    editor leftovers, not submissions. Files directly under ``root`` are not anyone's work.
    """
    if not root.is_dir():
        raise FileNotFoundError(
            f"submissions folder {root} does not exist: "
            "expected SUBMISSIONS/<student>/<NN_slug>.ipynb"
        )
    found = []
    for student_dir in sorted(root.iterdir()):
        if student_dir.name.startswith(".") or not student_dir.is_dir():
            continue
        for path in sorted(student_dir.iterdir()):
            if path.name.startswith(".") or path.suffix != ".ipynb" or path.is_dir():
                continue
            if notebook is not None and path.stem != notebook:
                continue
            found.append(Submission(student_dir.name, path.stem, path))
    return sorted(found)
