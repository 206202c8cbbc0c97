"""What a learner controls (their folder's name, their file's name, text their code raises) cannot
become a spreadsheet formula in ``grades.csv`` or markup in ``report.html``; and the report says
what the class gets wrong, grouped by the failures' fields, never by their English text.

The end-to-end class is lesson 00 of the real course: four learners with three different
mistakes, one who solved it, and learners whose names are formula and markup injections.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from course_lib.cli import main
from course_lib.grading.class_report import SECTIONS, failure_groups, flag_count, render_report
from course_lib.grading.report import FORMULA_STARTS, spreadsheet_safe, to_payload
from course_lib.grading.results import ExerciseResult, SubmissionResult

ROOT = Path(__file__).resolve().parents[3]
LESSON = "00_welcome"
WRONG = {
    "bo": "def greeting(name):\n    print(f'Hello, {name}!')",
    "dee": "def greeting(name):\n    print('Hello, ' + name + '!')",
    "cy": "def greeting(name):\n    return 'Hello, {name}!'",
    "fay": "def greeting(name):\n    return f'Hello {name}!'",
}
INJECTIONS = (
    '=HYPERLINK("evil.example","click")',
    "+SUM(1,2)",
    "-2+3",
    "@cmd",
    "\tTAB",
    "\rCR",
    "<img src=x onerror=alert(1)>",
    'x" onmouseover="alert(1)',
)
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "nav", "a", "section",
    "p", "table", "tr", "th", "td", "svg", "rect", "text", "figure", "figcaption", "details",
    "summary", "div", "pre",
}  # fmt: skip


def lesson_with(source: str) -> nbformat.NotebookNode:
    nb = nbformat.read(ROOT / "solutions" / f"{LESSON}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.get("metadata", {}).get("course", {}).get("exercise") == "00.1":
            cell.source = source
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("class")
    (root / "ada").mkdir()
    shutil.copy(ROOT / "solutions" / f"{LESSON}.ipynb", root / "ada" / f"{LESSON}.ipynb")
    for student, source in WRONG.items():
        (root / student).mkdir()
        nbformat.write(lesson_with(source), root / student / f"{LESSON}.ipynb")
    for name in INJECTIONS:
        (root / name).mkdir()
        (root / name / f"{LESSON}.ipynb").write_bytes(b"=cmd|' /C calc'!A0")
    (root / "eve").mkdir()
    (root / "eve" / "=cmd|' calc'!A0.ipynb").write_bytes(b"{}")
    out = tmp_path_factory.mktemp("out")
    assert main(["grade", str(root), "--out", str(out), "--jobs", "2"]) == 0
    return out


def csv_rows(out: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8"))))


@pytest.mark.parametrize("start", FORMULA_STARTS)
def test_a_field_that_starts_like_a_formula_is_prefixed_with_a_quote(start):
    assert spreadsheet_safe(f"{start}1+1") == f"'{start}1+1"


@pytest.mark.parametrize("value", ["ada", "passed", "2", 3, "", "a=b", "x-1"])
def test_ordinary_fields_are_written_as_they_are(value):
    assert spreadsheet_safe(value) == value


def test_no_csv_field_starts_like_a_formula(graded):
    fields = [field for row in csv_rows(graded) for field in row]
    assert not [field for field in fields if field.startswith(FORMULA_STARTS)]
    students = {row[0] for row in csv_rows(graded)[1:]}
    assert '\'=HYPERLINK("evil.example","click")' in students
    assert {"'+SUM(1,2)", "'-2+3", "'@cmd"} <= students


def test_a_file_name_that_is_a_formula_is_neutralised_in_the_notebook_column(graded):
    eve = {row[1]: row for row in csv_rows(graded) if row[0] == "eve"}
    assert eve["'=cmd|' calc'!A0"][5] == "invalid"


def test_the_json_keeps_every_name_as_it_is_and_control_characters_visible(graded):
    payload = json.loads((graded / "grades.json").read_text(encoding="utf-8"))
    students = set(payload["totals"])
    assert '=HYPERLINK("evil.example","click")' in students
    assert "\\u0009TAB" in students and "\\u000dCR" in students  # shown, not invisible


def test_the_report_holds_no_markup_from_a_submission(graded):
    text = (graded / "report.html").read_text(encoding="utf-8")
    tags = Tags()
    tags.feed(text)
    assert tags.names <= ALLOWED_TAGS
    assert not [attr for attr in tags.attributes if attr.startswith("on")]
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "x&quot; onmouseover=&quot;alert(1)" in text


def test_the_report_is_self_contained_and_needs_no_script(graded):
    text = (graded / "report.html").read_text(encoding="utf-8")
    tags = Tags()
    tags.feed(text)
    assert "script" not in tags.names
    links = [value for name, value in tags.links if value]
    assert all(value.startswith("#") for value in links), links
    assert "<svg" in text


def test_the_report_shows_the_score_distribution_and_pass_rate(graded):
    text = (graded / "report.html").read_text(encoding="utf-8")
    assert "Score distribution per notebook" in text
    assert f"{LESSON}: how many students scored each share of the 1 points." in text
    # ada passed; 4 wrong answers, 8 invalid files, eve handed in no 00_welcome
    assert "<td>00.1</td><td>1/14</td>" in text, pass_rate_row_and_results(text, graded)


def pass_rate_row_and_results(text: str, out: Path) -> str:
    """What a failure shows: the report's pass-rate row of 00.1 and each 00.1 result."""
    section = text.split('id="pass-rates"')[-1].split("</section>")[0]
    rows = [row for row in section.split("<tr>") if "<td>00.1</td>" in row]
    results = [row for row in csv_rows(out) if "00.1" in row]
    return f"pass-rate row: {rows}\n00.1 results in grades.csv:\n" + "\n".join(map(str, results))


def test_the_most_frequent_hints_are_grouped_by_hint_key(graded):
    text = (graded / "report.html").read_text(encoding="utf-8")
    section = text.split('id="hints"')[1].split("</section>")[0]
    keys = [cell.split("</td>")[0] for cell in section.split("<tr><td>")[1:]]
    assert keys == ["returns", "f_string", "punctuation"]
    assert "<td>returns</td><td>2</td><td>50%</td>" in section


def test_the_terminal_summary_points_to_the_report_and_merge_writes_the_same_one(graded, capsys):
    again = graded.parent / "merged"
    assert main(["grade", "merge", str(graded), "--out", str(again)]) == 0
    assert f"class report: {again / 'report.html'}" in capsys.readouterr().out
    assert (again / "report.html").read_bytes() == (graded / "report.html").read_bytes()


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.attributes: list[str] = []
        self.links: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.names.add(tag)
        self.attributes += [name for name, _ in attrs]
        self.links += [(name, value) for name, value in attrs if name in ("href", "src")]


# --- the report's sections from the payload alone -----------------------------------------------


def failed(student: str, **fields: str) -> ExerciseResult:
    return ExerciseResult(student, "09_capstone", "09.1", 0, 3, "failed", "not right", fields)


def payload_of(*rows: ExerciseResult) -> dict:
    results = [SubmissionResult(row.student, row.notebook, [row]) for row in rows]
    return to_payload(results, versions_used={"python": "3"})


def test_failures_are_grouped_by_their_key_whatever_their_wording():
    rows = [
        failed("a", hint_key="order", hint="Keep the order."),
        failed("b", hint_key="order", hint="保持顺序。"),
        failed("c", hint_key="order", hint="Keep the order."),
        failed("d", hint_key="types", hint="Keep the order."),
    ]
    groups = failure_groups([row.as_row() for row in rows], "hint_key")
    assert [(key, count, hint) for key, count, hint, _ in groups] == [
        ("order", 3, "Keep the order."),
        ("types", 1, "Keep the order."),
    ]


def scenario_row(student: str, *outcomes: tuple[str, bool, str]) -> ExerciseResult:
    """A scenario-graded row: ``(scenario id, passed, hint of its failure)`` per scenario."""
    scenarios = [
        {"id": key, "title": f"the {key} case", "points": 1, "passed": passed}
        | ({} if passed else {"failure": {"case": key, "hint": hint}})
        for key, passed, hint in outcomes
    ]
    points = sum(passed for _, passed, _ in outcomes)
    status = "passed" if points == len(outcomes) else "failed"
    return ExerciseResult(
        student, "09_capstone", "09.1", points, len(outcomes), status, "m", None, scenarios
    )


def test_each_scenario_gets_its_pass_rate_and_its_most_frequent_hint():
    payload = payload_of(
        scenario_row("a", ("refund", False, "Answer in the user's language."), ("note", True, "")),
        scenario_row(
            "b", ("refund", False, "Answer in the user's language."), ("note", False, "x")
        ),
        scenario_row("c", ("refund", True, ""), ("note", True, "")),
    )
    text = render_report(payload)
    section = text[text.index('id="scenarios"') :]
    assert "<td>refund: the refund case</td><td>1</td><td>1/3</td>" in section
    assert "33%</td><td>Answer in the user&#x27;s language.</td>" in section
    assert "<td>note: the note case</td><td>1</td><td>2/3</td>" in section
    assert section.index("refund: the") < section.index("note: the")  # the check's order


def test_no_scenario_section_without_scenario_graded_exercises():
    assert 'id="scenarios"' not in render_report(payload_of(failed("a", hint_key="lang")))


def graded_with_isolation(student: str, **record: object) -> SubmissionResult:
    row = ExerciseResult(student, "00_welcome", "00.1", 1, 1, "passed", "passed")
    full = {
        "network_namespace": True, "pid_namespace": True, "private_proc": True,
        "private_mounts": True, "landlock_filesystem": True, "landlock_signals": True,
        "checks_hidden": True, "no_capabilities": True, "process_cleanup": "pid_namespace",
    }  # fmt: skip
    return SubmissionResult(student, "00_welcome", [row], isolation={**full, **record})


def test_isolation_gaps_are_flagged_with_the_notebooks_whose_kernel_had_them():
    results = [
        graded_with_isolation("ann", network_namespace=False),
        graded_with_isolation("ben", network_namespace=False, landlock_filesystem=False),
        graded_with_isolation("cat"),
    ]
    payload = to_payload(results, versions_used={"python": "3"})
    text = render_report(payload)
    section = text[text.index('id="isolation"') :]
    assert "could use the network</td><td>2</td><td>ann/00_welcome, ben/00_welcome</td>" in section
    assert "Landlock was not available" in section and "cat/00_welcome" not in section
    assert flag_count(payload) == 2  # one per kind of gap, not per notebook


def test_a_gap_every_kernel_had_is_said_once_for_the_whole_class():
    results = [graded_with_isolation(name, pid_namespace=False) for name in ("a", "b", "c")]
    text = render_report(to_payload(results, versions_used={"python": "3"}))
    assert "<td>every graded notebook (3)</td>" in text


def test_no_isolation_section_when_every_kernel_had_every_protection():
    results = [graded_with_isolation("a")]
    assert 'id="isolation"' not in render_report(to_payload(results, versions_used={}))


def test_every_section_escapes_every_field():
    nasty = "<b onclick=x>&"
    scenarios = [{"id": nasty, "title": nasty, "points": 1, "passed": False,
                  "failure": {"hint": nasty}}]  # fmt: skip
    row = ExerciseResult(nasty, nasty, nasty, 0, 1, "failed", nasty, {"hint_key": nasty}, scenarios)
    result = SubmissionResult(
        nasty, nasty, [row], [nasty], {nasty: nasty}, isolation={"network_namespace": False}
    )
    payload = to_payload([result], versions_used={nasty: nasty})
    payload["flags"] = [
        {"kind": "similarity", "student": nasty, "notebook": nasty, "exercise": nasty,
         "match": nasty, "score": 1.0, "source": nasty, "matched_source": nasty}
    ]  # fmt: skip
    text = render_report(payload)
    assert all(f'id="{key}"' in text for key in ("scenarios", "isolation", "similarity"))
    tags = Tags()
    tags.feed(text)
    assert "b" not in tags.names
    assert not [attr for attr in tags.attributes if attr.startswith("on")]


def test_sections_are_data_a_lesson_can_extend():
    keys = [section.key for section in SECTIONS]
    assert keys[:3] == ["summary", "scores", "pass-rates"]
    expected = {"hints", "scenarios", "similarity", "borrowing", "faults", "invalid", "isolation"}
    assert expected | {"notes"} <= set(keys)
