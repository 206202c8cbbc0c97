"""The gradebook files and the terminal summary.

Everything written is a function of the results alone (no timestamps, no durations, sorted
keys), so grading the same submissions twice gives byte-identical files, and merging shards
gives the same files as one run: ``write_outputs`` is the only writer either way.
"""

from __future__ import annotations

import csv
import io
import json
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

from course_lib.grading.results import ExerciseResult, SubmissionResult

COLUMNS = ("student", "notebook", "exercise", "points", "max_points", "status", "message")
VERSIONED = ("course_lib", "nbval", "pytest", "ipykernel", "jupyter_client", "nbformat")


def versions() -> dict[str, str]:
    """The versions that decide a grade: the course library, the runner stack, Python."""
    found = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def to_payload(
    results: list[SubmissionResult],
    *,
    shard: str = "1/1",
    versions_used: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``grades.json``: the rows, per-student totals, notes, the versions, and the shard."""
    results = sorted(results, key=lambda r: (r.student, r.notebook))
    totals: dict[str, dict[str, Any]] = {}
    for result in results:
        student = totals.setdefault(result.student, {"points": 0, "max_points": 0, "notebooks": {}})
        student["points"] += result.points
        student["max_points"] += result.max_points
        student["notebooks"][result.notebook] = {
            "points": result.points,
            "max_points": result.max_points,
            "notes": result.notes,
            "isolation": result.isolation,
        }
    return {
        "shard": shard,
        "versions": versions_used or versions(),
        "grades": [row.as_row() for result in results for row in result.exercises],
        "totals": totals,
    }


def from_payload(payload: dict[str, Any]) -> list[SubmissionResult]:
    """The results back from ``grades.json`` (what ``grade merge`` reads)."""
    rows: dict[tuple[str, str], list[ExerciseResult]] = {}
    for row in payload["grades"]:
        rows.setdefault((row["student"], row["notebook"]), []).append(ExerciseResult(**row))
    results = []
    for (student, notebook), exercises in sorted(rows.items()):
        graded = payload["totals"][student]["notebooks"][notebook]
        results.append(
            SubmissionResult(
                student,
                notebook,
                exercises,
                list(graded["notes"]),
                dict(graded.get("isolation") or {}),
            )
        )
    return results


def write_outputs(out: Path, payload: dict[str, Any]) -> None:
    """``grades.csv``, ``grades.json`` and ``feedback/<student>.md`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(payload["grades"])
    (out / "grades.csv").write_text(buffer.getvalue(), encoding="utf-8")
    text = json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    (out / "grades.json").write_text(text, encoding="utf-8")
    feedback_dir = out / "feedback"
    feedback_dir.mkdir(exist_ok=True)
    for student, text in feedback(payload).items():
        (feedback_dir / f"{student}.md").write_text(text, encoding="utf-8")


def feedback(payload: dict[str, Any]) -> dict[str, str]:
    """One readable Markdown page per student: each notebook, each exercise, what to do next."""
    by_student: dict[str, list[dict[str, Any]]] = {}
    for row in payload["grades"]:
        by_student.setdefault(row["student"], []).append(row)
    pages = {}
    for student, rows in sorted(by_student.items()):
        total = payload["totals"][student]
        lines = [
            f"# Feedback for {student}",
            "",
            f"Total: {total['points']} / {total['max_points']}",
        ]
        for notebook, summary in sorted(total["notebooks"].items()):
            lines += ["", f"## {notebook}: {summary['points']} / {summary['max_points']}", ""]
            for row in (r for r in rows if r["notebook"] == notebook):
                label = row["exercise"] or "(whole notebook)"
                lines.append(
                    f"- **{label}**: {row['status']}, {row['points']} / {row['max_points']}"
                )
                if row["status"] != "passed" or row["message"] != "passed":
                    lines += ["", _quote(row["message"]), ""]
            if summary["notes"]:
                lines += ["", "Notes from the grader:", ""]
                lines += [f"- {note}" for note in summary["notes"]]
        pages[student] = "\n".join(lines).rstrip() + "\n"
    return pages


def _quote(message: str) -> str:
    return "\n".join(f"    {line}" for line in message.splitlines())


def summary_table(payload: dict[str, Any]) -> str:
    """Students down, notebooks across, points / max in each cell, and the totals."""
    notebooks = sorted({row["notebook"] for row in payload["grades"]})
    header = ["student", *notebooks, "total"]
    table = [header]
    for student, total in sorted(payload["totals"].items()):
        cells = [student]
        for notebook in notebooks:
            got = total["notebooks"].get(notebook)
            cells.append(f"{got['points']}/{got['max_points']}" if got else "-")
        table.append([*cells, f"{total['points']}/{total['max_points']}"])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in table
    ]
    counts: dict[str, int] = {}
    for row in payload["grades"]:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    lines.append("")
    lines.append("exercises: " + ", ".join(f"{status} {n}" for status, n in sorted(counts.items())))
    return "\n".join(lines)
