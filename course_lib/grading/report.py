"""The gradebook files and the terminal summary.

Everything written is a function of the results alone (no timestamps, no durations, sorted
keys), so grading the same submissions twice gives byte-identical files, and merging shards
gives the same files as one run: ``write_outputs`` is the only writer either way. The
similarity flags are computed here too, from the exercise sources the payload keeps, so a merge
compares classmates across shards exactly as one run would.

Every field that came from a learner (a folder name, a file name, a message quoting their code)
is written so that no reader acts on it: a CSV field that a spreadsheet would take for a formula
(it starts with ``=``, ``+``, ``-``, ``@``, a tab or a line break) is prefixed with ``'``, the
feedback file name is made from the student's name by ``names.feedback_file_name``, the class
report escapes everything (``class_report``), and the feedback page is inert Markdown: every
value put into it goes through ``markdown_text`` (a name, an id, a note: every punctuation
character escaped, so no link, image, HTML, heading, list or emphasis) or ``markdown_block``
(a check's message, a traceback: a fenced code block whose fence is longer than any run of
backticks inside).
"""

from __future__ import annotations

import csv
import io
import json
import platform
import re
import string
from importlib import metadata
from pathlib import Path
from typing import Any

from course_lib.grading.class_report import render_report
from course_lib.grading.names import feedback_file_name
from course_lib.grading.results import ExerciseResult, SubmissionResult
from course_lib.grading.similarity import (
    Answer,
    Compared,
    decode_prints,
    encode_prints,
    similarity_flags,
    sorted_flags,
)
from course_lib.grading.texts import page_language, say, status_text

COLUMNS = ("student", "notebook", "exercise", "points", "max_points", "status", "message")
VERSIONED = ("course_lib", "nbval", "pytest", "ipykernel", "jupyter_client", "nbformat")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
# Every ASCII punctuation character may be backslash-escaped in CommonMark (and GitHub's and
# Jupyter's Markdown): escaped, none starts a link, an image, HTML, an autolink, emphasis, code,
# a heading, a list, a table cell, math or an entity.
_MARKDOWN_ESCAPED = re.compile("([" + re.escape(string.punctuation) + "])")
_WHITESPACE = re.compile(r"\s+")
_BACKTICKS = re.compile("`+")


def spreadsheet_safe(value: Any) -> Any:
    """A CSV field no spreadsheet will run: text that starts like a formula gets a leading
    ``'`` (the usual defence; the JSON keeps the text as it was)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


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
    """``grades.json``: the rows, per-student totals, notes, the exercise sources and their
    fingerprints, the similarity flags, the versions, and the shard."""
    results = sorted(results, key=lambda r: (r.student, r.notebook))
    sources: dict[str, dict[str, dict[str, str]]] = {}
    for result in results:
        if result.sources:
            sources.setdefault(result.student, {})[result.notebook] = dict(
                sorted(result.sources.items())
            )
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
            "language": result.language,
        }
    compared: dict[Answer, Compared] = {}
    prints: dict[str, dict[str, dict[str, str]]] = {}
    for result in results:
        for exercise, entry in sorted(result.similarity.items()):
            source = result.sources.get(exercise, "")
            compared[Answer(result.student, result.notebook, exercise, source)] = entry
            cells = prints.setdefault(result.student, {}).setdefault(result.notebook, {})
            cells[exercise] = encode_prints(entry.fingerprints)
    return {
        "shard": shard,
        "versions": versions_used or versions(),
        "grades": [row.as_row() for result in results for row in result.exercises],
        "totals": totals,
        "sources": sources,
        "fingerprints": prints,
        "flags": sorted_flags(similarity_flags(compared) + [f for r in results for f in r.flags]),
    }


def from_payload(payload: dict[str, Any]) -> list[SubmissionResult]:
    """The results back from ``grades.json`` (what ``grade merge`` reads)."""
    rows: dict[tuple[str, str], list[ExerciseResult]] = {}
    for row in payload["grades"]:
        rows.setdefault((row["student"], row["notebook"]), []).append(ExerciseResult(**row))
    results = []
    sources, prints = payload.get("sources", {}), payload.get("fingerprints", {})
    course_flags = {
        (flag["student"], flag["notebook"], flag["exercise"]): flag
        for flag in payload.get("flags", [])
        if flag.get("kind") == "similarity" and "other_student" not in flag
    }
    graded_flags: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for flag in payload.get("flags", []):
        if flag.get("kind") != "similarity":
            graded_flags.setdefault((flag["student"], flag["notebook"]), []).append(flag)
    for (student, notebook), exercises in sorted(rows.items()):
        graded = payload["totals"][student]["notebooks"][notebook]
        cells = dict(sources.get(student, {}).get(notebook, {}))
        similarity = {
            exercise: Compared(decode_prints(text), course_flags.get((student, notebook, exercise)))
            for exercise, text in prints.get(student, {}).get(notebook, {}).items()
        }
        results.append(
            SubmissionResult(
                student,
                notebook,
                exercises,
                list(graded["notes"]),
                sources=cells,
                similarity=similarity,
                isolation=dict(graded.get("isolation") or {}),
                language=graded.get("language", "en"),
                flags=graded_flags.get((student, notebook), []),
            )
        )
    return results


def write_outputs(out: Path, payload: dict[str, Any]) -> None:
    """``grades.csv``, ``grades.json``, ``report.html`` and ``feedback/<student>.md`` under
    ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in payload["grades"]:
        writer.writerow({column: spreadsheet_safe(row[column]) for column in COLUMNS})
    (out / "grades.csv").write_text(buffer.getvalue(), encoding="utf-8")
    (out / "report.html").write_text(render_report(payload), encoding="utf-8")
    text = json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    (out / "grades.json").write_text(text, encoding="utf-8")
    feedback_dir = out / "feedback"
    feedback_dir.mkdir(exist_ok=True)
    for student, text in feedback(payload).items():
        (feedback_dir / feedback_file_name(student)).write_text(text, encoding="utf-8")


def feedback(payload: dict[str, Any]) -> dict[str, str]:
    """One readable Markdown page per student: each notebook, each exercise, what to do next.

    Every value from the results goes in through ``markdown_text`` or ``markdown_block``: the
    page's structure (headings, the list of exercises, the notes) is ours alone."""
    by_student: dict[str, list[dict[str, Any]]] = {}
    for row in payload["grades"]:
        by_student.setdefault(row["student"], []).append(row)
    text = markdown_text
    pages = {}
    for student, rows in sorted(by_student.items()):
        total = payload["totals"][student]
        lang = page_language(total["notebooks"])  # the edition the student handed in
        lines = [
            say("feedback_title", lang, student=text(student)),
            "",
            say("feedback_total", lang, points=total["points"], max_points=total["max_points"]),
        ]
        for notebook, summary in sorted(total["notebooks"].items()):
            points, max_points = summary["points"], summary["max_points"]
            heading = say("feedback_notebook", lang, notebook=text(notebook),
                          points=points, max_points=max_points)  # fmt: skip
            lines += ["", heading, ""]
            for row in (r for r in rows if r["notebook"] == notebook):
                label = text(row["exercise"] or say("whole_notebook", lang))
                status = text(status_text(row["status"], lang))
                lines.append(say("feedback_row", lang, exercise=label, status=status,
                                 points=row["points"], max_points=row["max_points"]))  # fmt: skip
                if row["status"] != "passed" or row["message"] != "passed":
                    lines += ["", markdown_block(row["message"], indent="  "), ""]
            if summary["notes"]:
                lines += ["", say("feedback_notes", lang), ""]
                lines += [f"- {text(note)}" for note in summary["notes"]]
        pages[student] = "\n".join(lines).rstrip() + "\n"
    return pages


def markdown_text(value: object) -> str:
    """A value from a submission (a name, an id, a note) as Markdown that shows it as text and
    does nothing else: each punctuation character escaped, runs of whitespace (line breaks
    too) one space, so it stays on its line and inside what holds it."""
    words = _WHITESPACE.sub(" ", str(value)).strip()
    return _MARKDOWN_ESCAPED.sub(r"\\\1", words)


def markdown_block(value: object, *, indent: str = "") -> str:
    """A free text (a check's message, a traceback) as a fenced code block, each line kept as
    it is: the fence is longer than any run of backticks in the text, so no line closes it.
    ``indent`` puts the block inside a list item."""
    lines = str(value).splitlines()  # every line break a parser knows: none survives inside
    longest = max((len(run) for run in _BACKTICKS.findall(str(value))), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join(indent + line if line else "" for line in [fence + "text", *lines, fence])


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
    listed = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
    lines.append(say("exercises_count", counts=listed))
    lines += scenario_lines(scenario_rates(payload))
    return "\n".join(lines)


def scenario_rates(payload: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """For each exercise graded by scenarios, each scenario's title and how many of the
    submissions whose check ran it passed it (``passed`` of ``graded``), in the check's order.

    A submission whose check never ran (not attempted, an error before the check) has no
    scenarios and is not counted: the rate says how hard a scenario is, not who handed in.
    """
    rates: dict[str, dict[str, dict[str, Any]]] = {}
    for row in payload["grades"]:
        for scenario in row.get("scenarios") or ():
            key = f"{row['notebook']} {row['exercise']}"
            entry = rates.setdefault(key, {}).setdefault(
                scenario["id"], {"title": scenario["title"], "passed": 0, "graded": 0}
            )
            entry["graded"] += 1
            entry["passed"] += bool(scenario["passed"])
    return dict(sorted(rates.items()))


def scenario_lines(rates: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """The class report's part on scenarios: one line per scenario, its pass rate first."""
    lines: list[str] = []
    for exercise, scenarios in rates.items():
        lines += ["", say("scenarios_heading", exercise=exercise)]
        width = max(len(name) for name in scenarios)
        for name, entry in scenarios.items():
            rate = f"{entry['passed']}/{entry['graded']}"
            lines.append(f"  {rate:>7}  {name.ljust(width)}  {entry['title']}")
    return lines
