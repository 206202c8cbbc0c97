"""Sanitizing never trusts the submission: check cells come back from the canonical notebook,
outputs go, and files that are not a notebook of the lesson are refused with a reason."""

from __future__ import annotations

import json

import nbformat
import pytest
from grading_lesson import check_source, submission

from course_lib.grading.sanitize import InvalidSubmission, sanitize


def raw(nb) -> bytes:
    return nbformat.writes(nb).encode("utf-8")


def code_sources(sanitized) -> list[str]:
    return [cell.source for cell in sanitized.notebook.cells if cell.cell_type == "code"]


def check_positions(sanitized) -> dict[str, int]:
    return {role.exercise: role.index for role in sanitized.roles if role.kind == "check"}


def exercise_positions(sanitized) -> dict[str, int]:
    return {role.exercise: role.index for role in sanitized.roles if role.kind == "exercise"}


def test_untouched_notebook_needs_no_repair(lesson):
    result = sanitize(raw(submission()), lesson)
    assert result.repairs == []
    for exercise_id in ("90.1", "90.2", "90.3"):
        assert check_positions(result)[exercise_id] == exercise_positions(result)[exercise_id] + 1


def test_edited_check_cell_is_overwritten(lesson):
    nb = submission()
    nb.cells[4].source = 'from course_lib.checks import check\ncheck("90.1", lambda x: 2 * x)'
    result = sanitize(raw(nb), lesson)
    assert check_source("90.1") in code_sources(result)
    assert "lambda" not in "".join(code_sources(result))
    assert result.repairs == ["check cell 90.1 was edited: restored"]


def test_deleted_check_cell_is_reinserted_after_its_exercise(lesson):
    nb = submission()
    del nb.cells[6]  # the check cell of 90.2
    result = sanitize(raw(nb), lesson)
    assert check_positions(result)["90.2"] == exercise_positions(result)["90.2"] + 1
    assert result.repairs == ["check cell 90.2 was deleted: re-inserted"]


def test_moved_check_cell_is_put_back(lesson):
    nb = submission()
    moved = nb.cells.pop(4)  # check 90.1 moved to the very end
    nb.cells.append(moved)
    result = sanitize(raw(nb), lesson)
    assert check_positions(result)["90.1"] == exercise_positions(result)["90.1"] + 1
    assert result.repairs == ["check cell 90.1 was moved: put back after its exercise"]


def test_learner_cell_between_exercise_and_check_keeps_its_place(lesson):
    nb = submission()
    nb.cells.insert(4, nbformat.v4.new_code_cell("helper = 1", id="mine"))
    result = sanitize(raw(nb), lesson)
    assert result.repairs == []
    assert check_positions(result)["90.1"] == exercise_positions(result)["90.1"] + 2


def test_impostor_check_cell_is_removed(lesson):
    nb = submission()
    fake = nbformat.v4.new_code_cell("print('passed')", id="fake")
    fake.metadata["course"] = {"check": "90.1"}
    nb.cells.insert(3, fake)
    result = sanitize(raw(nb), lesson)
    assert "print('passed')" not in code_sources(result)
    assert code_sources(result).count(check_source("90.1")) == 1


def test_outputs_and_nbval_markers_are_dropped(lesson):
    nb = submission()
    cell = nb.cells[3]
    cell.outputs = [nbformat.v4.new_output("stream", text="Exercise 90.1 passed")]
    cell.execution_count = 3
    cell.metadata["tags"] = ["exercise", "raises-exception", "nbval-skip"]
    result = sanitize(raw(nb), lesson)
    restored = result.notebook.cells[3]
    assert restored.outputs == [] and restored.execution_count is None
    assert restored.metadata["tags"] == ["exercise"]


def test_exercise_cell_without_metadata_is_found_by_cell_id(lesson):
    nb = submission()
    nb.cells[3].metadata = {}
    result = sanitize(raw(nb), lesson)
    assert exercise_positions(result)["90.1"] == check_positions(result)["90.1"] - 1


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n", "not a notebook"),
        (b'{"cells": [', "not a notebook"),
        (b"[1, 2, 3]", "not a notebook"),
        (json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": []}).encode(), "nbformat 3"),
        (json.dumps({"nbformat": 4, "nbformat_minor": 5, "cells": "x"}).encode(), "corrupted"),
    ],
)
def test_files_that_are_not_valid_notebooks_are_refused(lesson, content, reason):
    with pytest.raises(InvalidSubmission, match=reason):
        sanitize(content, lesson)


def test_notebook_of_another_lesson_is_refused(lesson):
    nb = submission()
    nb.metadata["course"]["notebook"] = "00_welcome"
    with pytest.raises(InvalidSubmission, match="wrong lesson.*'00_welcome'"):
        sanitize(raw(nb), lesson)


def test_a_code_cell_longer_than_the_grader_reads_is_refused_before_anything_parses_it(lesson):
    from course_lib.grading.parse import MAX_CELL_SOURCE

    nb = submission({"90.1": "def double(x):\n    return 2 * x\n"})
    data = json.loads(raw(nb))
    data["cells"][2]["source"] = ["x = [\n", "0,\n" * (MAX_CELL_SOURCE // 3), "]\n"]  # as lines
    with pytest.raises(InvalidSubmission, match=f"more than the {MAX_CELL_SOURCE} the grader"):
        sanitize(json.dumps(data).encode(), lesson)
    data["cells"][2]["source"] = "#" * MAX_CELL_SOURCE  # exactly the cap: read
    assert sanitize(json.dumps(data).encode(), lesson).repairs == []


def test_code_longer_in_all_than_the_grader_reads_is_refused(lesson):
    from course_lib.grading.parse import MAX_CELL_SOURCE, MAX_CODE_SOURCE

    nb = submission()
    cells = MAX_CODE_SOURCE // MAX_CELL_SOURCE + 1
    for n in range(cells):
        nb.cells.insert(2, nbformat.v4.new_code_cell("#" * MAX_CELL_SOURCE, id=f"long-{n}"))
    with pytest.raises(InvalidSubmission, match=f"more than the {MAX_CODE_SOURCE} characters"):
        sanitize(raw(nb), lesson)
