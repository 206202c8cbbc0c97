"""Similarity flags: a copy of the course's answer or of a classmate's is flagged for the
instructor (with both sources), however its names and comments were changed; two solutions
written independently are not; a flag never costs points; and a merge of shards flags classmates
across shards exactly as one run would.

The independent solutions below are correct: each passes the course's own check first, so
"not flagged" is proven on real, working code.
"""

from __future__ import annotations

import ast
import inspect
import json
import math
import operator
import typing
from pathlib import Path

import nbformat
import pytest
from grading_lesson import (
    CHECK_MODULE,
    LONG_SOLUTION,
    SLUG,
    SOLUTIONS,
    canonical,
    submission,
    write,
)

from attacks.disguise import dead_stored
from course_lib.checks import check
from course_lib.cli import main
from course_lib.grading.canonical import default_canonical_dir, load_lessons
from course_lib.grading.similarity import (
    Answer,
    compare_with_course,
    load_corpus,
    similarity_flags,
)

ROOT = Path(__file__).resolve().parents[3]

PARAMETERS_A = '''def parameters_schema(func) -> dict:
    """The JSON Schema object of func's parameters: properties (with defaults), required
    (parameters without a default, in order) and additionalProperties false."""
    signature = inspect.signature(func)
    resolved = typing.get_type_hints(func)
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    for param in signature.parameters.values():
        entry = dict(json_type(resolved[param.name]))
        if param.default is not param.empty:
            entry["default"] = param.default
        else:
            schema["required"].append(param.name)
        schema["properties"][param.name] = entry
    return schema
'''
PARAMETERS_B = '''def parameters_schema(func) -> dict:
    """The JSON Schema object of func's parameters: properties (with defaults), required
    (parameters without a default, in order) and additionalProperties false."""
    annotations = typing.get_type_hints(func)
    params = list(inspect.signature(func).parameters.values())

    def describe(p):
        described = json_type(annotations[p.name])
        if p.default is not inspect.Parameter.empty:
            described = {**described, "default": p.default}
        return described

    return {
        "type": "object",
        "properties": {p.name: describe(p) for p in params},
        "required": [p.name for p in params if p.default is inspect.Parameter.empty],
        "additionalProperties": False,
    }
'''
CALCULATE_A = '''def safe_calculate(expression: str) -> float:
    """The value of an arithmetic expression as a float; anything else raises ValueError."""
    if type(expression) is not str:
        raise ValueError("the expression must be a string")
    if len(expression) > MAX_LENGTH:
        raise ValueError("that expression is too long")
    try:
        parsed = ast.parse(expression.strip(), mode="eval")
        value = evaluate(parsed.body)
    except ValueError:
        raise
    except Exception as problem:
        raise ValueError(f"cannot evaluate this: {problem}") from None
    if not isinstance(value, (int, float)):
        raise ValueError("the result is not a real number")
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        raise ValueError("the result is not a finite number")
    return value


def evaluate(node: ast.AST) -> float:
    """The value of one node of the parsed expression; a node outside the whitelist is refused."""
    match node:
        case ast.Constant(value=bool()):
            raise ValueError("booleans are not numbers here")
        case ast.Constant(value=int() | float() as number):
            return float(number)
        case ast.UnaryOp(op=op, operand=operand) if type(op) in UNARY:
            return UNARY[type(op)](evaluate(operand))
        case ast.BinOp(left=left, op=op, right=right) if type(op) in BINARY:
            a = evaluate(left)
            b = evaluate(right)
            if type(op) is ast.Pow and abs(b) > MAX_EXPONENT:
                raise ValueError("that power is too large")
            return BINARY[type(op)](a, b)
    refused = type(node).__name__
    raise ValueError("only numbers and arithmetic operators are allowed, not " + refused)
'''


def exercise_source(folder: str, slug: str, exercise: str) -> str:
    nb = nbformat.read(ROOT / folder / f"{slug}.ipynb", as_version=4)
    return next(
        cell.source
        for cell in nb.cells
        if cell.get("metadata", {}).get("course", {}).get("exercise") == exercise
    )


def stub_prelude(slug: str, exercise: str) -> str:
    """What the stub cell defines besides the stubs (06.1's operator tables)."""
    source = exercise_source("notebooks", slug, exercise)
    tree = ast.parse(source)
    kept = [node for node in tree.body if not isinstance(node, ast.FunctionDef)]
    return "\n".join(ast.unparse(node) for node in kept)


@pytest.fixture(scope="module")
def corpus():
    lessons = load_lessons(default_canonical_dir())
    return load_corpus(lessons, ROOT / "solutions")


def flags_for(corpus, *answers: Answer) -> list[dict]:
    return similarity_flags(compare_with_course(answers, corpus))


def test_the_independent_parameters_schemas_are_correct_solutions():
    json_type = exercise_source("solutions", "02_reflection", "02.1")
    for source in (PARAMETERS_A, PARAMETERS_B):
        namespace = {"inspect": inspect, "typing": typing}
        exec(json_type + "\n" + source, namespace)
        check("02.2", namespace["parameters_schema"])


def test_the_independent_calculator_is_a_correct_solution():
    namespace = {"ast": ast, "math": math, "operator": operator}
    exec(stub_prelude("06_hardening", "06.1") + "\n" + CALCULATE_A, namespace)
    check("06.1", namespace["safe_calculate"])


def test_the_solution_notebooks_flag_as_similar_to_solutions(corpus):
    answers = [
        Answer("copycat", slug, exercise, source)
        for (slug, exercise), known in sorted(corpus.solutions.items())
        for source in [known.source]
    ]
    flags = flags_for(corpus, *answers)
    flagged = {(flag["notebook"], flag["exercise"]) for flag in flags}
    assert ("02_reflection", "02.2") in flagged and ("06_hardening", "06.1") in flagged
    assert len(flagged) >= len(answers) // 2
    flag = next(f for f in flags if f["exercise"] == "02.2")
    assert flag["match"] == "solutions/02_reflection.ipynb, exercise 02.2"
    assert flag["score"] == 1.0
    assert flag["matched_source"] == corpus.solutions[("02_reflection", "02.2")].source


def test_a_copy_with_renamed_names_new_comments_and_layout_still_flags(corpus):
    original = corpus.solutions[("02_reflection", "02.2")].source
    disguised = original
    for old, new in (("hints", "th"), ("properties", "props"), ("required", "needed")):
        disguised = disguised.replace(f"{old} =", f"{new} =").replace(f"[{old}", f"[{new}")
    disguised = disguised.replace("name, parameter", "key, p").replace("parameter.", "p.")
    disguised = disguised.replace("[name]", "[key]").replace("(name)", "(key)")
    disguised = disguised.replace("# BEGIN SOLUTION", "# my own work, honest")
    disguised = disguised.replace('"required": required', '"required": needed')
    disguised = disguised.replace('"properties": properties', '"properties": props')
    assert disguised != original
    [flag] = flags_for(corpus, Answer("sly", "02_reflection", "02.2", disguised))
    assert flag["score"] >= 0.7


@pytest.mark.parametrize(
    ("slug", "exercise", "sources"),
    [
        ("02_reflection", "02.2", (PARAMETERS_A, PARAMETERS_B)),
        ("06_hardening", "06.1", (CALCULATE_A,)),
    ],
)
def test_independently_written_correct_solutions_do_not_flag(corpus, slug, exercise, sources):
    answers = [Answer(f"s{n}", slug, exercise, source) for n, source in enumerate(sources)]
    assert flags_for(corpus, *answers) == []


def test_classmates_with_the_same_code_flag_once_as_a_pair_naming_both(corpus):
    renamed = PARAMETERS_A.replace("entry", "item").replace("resolved", "hints_of")
    flags = flags_for(
        corpus,
        Answer("bo", "02_reflection", "02.2", renamed),
        Answer("ada", "02_reflection", "02.2", PARAMETERS_A),
        Answer("cy", "02_reflection", "02.2", PARAMETERS_B),
    )
    assert [(f["student"], f["other_student"], f["match"]) for f in flags] == [
        ("ada", "bo", "student bo")
    ]
    assert flags[0]["source"] == PARAMETERS_A and flags[0]["matched_source"] == renamed


def test_short_answers_are_never_compared(corpus):
    source = exercise_source("solutions", "00_welcome", "00.1")
    assert flags_for(corpus, Answer("a", "00_welcome", "00.1", source)) == []


def test_flags_are_sorted_and_the_same_for_any_order_of_answers(corpus):
    answers = [
        Answer(student, "02_reflection", "02.2", source)
        for student, source in (("z", PARAMETERS_A), ("a", PARAMETERS_A), ("m", PARAMETERS_A))
    ]
    first = flags_for(corpus, *answers)
    assert first == flags_for(corpus, *reversed(answers))
    assert [(f["student"], f["other_student"]) for f in first] == [
        ("a", "m"),
        ("a", "z"),
        ("m", "z"),
    ]


# --- end to end: flagged in grades.json and the report, never zeroed, merged across shards ---

PAL = """def type_name(annotation):
    table = [(bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")]
    for candidate, label in table:
        if annotation == candidate:
            return {"type": label}
    message = "cannot map " + str(annotation) + " to a JSON type"
    raise TypeError(message)
"""

# Short statements: a store into a fresh name after each breaks every 7-token run (the red team's
# padding took a copy of it from 1.0 to 0.38 of its fingerprints, unflagged).
TIDY = """def type_name(annotation):
    kinds = {}
    kinds[str] = "string"
    kinds[int] = "integer"
    kinds[float] = "number"
    kinds[bool] = "boolean"
    found = kinds.get(annotation)
    if found is None:
        raise TypeError(annotation)
    result = {}
    result["type"] = found
    return result
"""


@pytest.fixture(scope="module")
def class_dirs(tmp_path_factory, canonical_dir):
    solutions = tmp_path_factory.mktemp("solutions")
    nb = canonical()
    for cell in nb.cells:
        if cell.get("id") == "t-ex3":
            cell.source = LONG_SOLUTION
    write(solutions / f"{SLUG}.ipynb", nb)
    root = tmp_path_factory.mktemp("class")
    renamed = LONG_SOLUTION.replace("json_name", "label").replace("python_type", "kind")
    for student, answer in (
        ("copy_a", renamed),
        ("tidy", TIDY),
        ("tidy_padded", dead_stored(TIDY)),  # the red team's padding, in a real notebook
        ("pal_1", PAL),
        ("pal_2", PAL.replace("candidate", "c").replace("label", "text")),
        ("solo", SOLUTIONS["90.3"]),
    ):
        write(root / student / f"{SLUG}.ipynb", submission({**SOLUTIONS, "90.3": answer}))
    return root, solutions, canonical_dir


def grade(root, solutions, canonical_dir, out, *extra):
    return main(
        ["grade", str(root), "--out", str(out), "--canonical", str(canonical_dir)]
        + ["--solutions", str(solutions), "--checks", CHECK_MODULE, "--cell-timeout", "60", *extra]
    )


@pytest.fixture(scope="module")
def single_run(class_dirs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("single")
    assert grade(*class_dirs, out, "--jobs", "2") == 0
    return out


def test_flags_go_into_grades_json_with_both_sources(single_run):
    payload = json.loads((single_run / "grades.json").read_text(encoding="utf-8"))
    found = [(f["student"], f["match"]) for f in payload["flags"]]
    assert found == [
        ("copy_a", f"solutions/{SLUG}.ipynb, exercise 90.3"),
        ("pal_1", "student pal_2"),
        ("tidy", "student tidy_padded"),
    ]
    assert payload["flags"][0]["matched_source"] == LONG_SOLUTION


def test_a_flag_costs_no_points(single_run):
    payload = json.loads((single_run / "grades.json").read_text(encoding="utf-8"))
    assert {student: total["points"] for student, total in payload["totals"].items()} == {
        "copy_a": 6,
        "tidy": 6,
        "tidy_padded": 6,
        "pal_1": 6,
        "pal_2": 6,
        "solo": 6,
    }


def test_the_report_lists_the_flags_with_both_sources(single_run):
    text = (single_run / "report.html").read_text(encoding="utf-8")
    section = text.split('id="similarity"')[1].split("</section>")[0]
    assert section.count("<details>") == 3
    assert "for python_type, json_name in NAMES.items():" in section
    assert "student pal_2" in section


def test_shards_merged_flag_classmates_across_shards_as_one_run(class_dirs, single_run, tmp_path):
    shards = [tmp_path / "s1", tmp_path / "s2"]
    for index, shard in enumerate(shards, start=1):
        assert grade(*class_dirs, shard, "--shard", f"{index}/2") == 0
    one = json.loads((shards[0] / "grades.json").read_text(encoding="utf-8"))
    assert not [f for f in one["flags"] if "other_student" in f]  # pal_1, pal_2 split apart
    merged = tmp_path / "merged"
    assert main(["grade", "merge", *map(str, shards), "--out", str(merged)]) == 0
    for name in ("grades.json", "grades.csv", "report.html"):
        assert (merged / name).read_bytes() == (single_run / name).read_bytes(), name
