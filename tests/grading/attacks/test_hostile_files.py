"""Hostile files in a class: none of them stops the run, changes a classmate's rows, or is opened
when it is not a regular file of the student's own folder; each becomes that student's
``invalid`` rows with a message that says what to do.

One batch holds every kind of file (FIFOs, links to devices, to a classmate, in a circle, to
nowhere, a socket, a folder, a huge file, JSON nested 200,000 deep, metadata of the wrong types)
and the red team's resource attacks (a flood of display messages with 8 MB of metadata each, a
4.2 MB list literal, one message larger than the grader reads) beside an honest student, who
must be graded exactly as when graded alone. The batch runs in a process of its own, so that the
peak memory of the grader and of every process it started is measured
(``batch.grade_measured``): the attacks finish within the bounds of ``docs/grading.md``. Thirty
sleeping cells, which wait out all the time a submission's cells have, are graded beside the
honest student in a class of their own, with the least cell timeout, while the batch runs.
"""

from __future__ import annotations

import functools
import json
import os
import socket
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from grading_lesson import CHECK_MODULE, SLUG, SOLUTIONS, submission, write

from attacks.batch import concurrently, grade_measured, outcome
from course_lib.grading import GradeOptions, grade_all
from course_lib.grading.bounds import MAX_MESSAGE_BYTES, cell_seconds
from course_lib.grading.canonical import load_lessons
from course_lib.grading.discover import (
    UnreadableSubmission,
    discover,
    named_file,
    read_submission,
)
from course_lib.grading.parse import (
    MAX_CELL_SOURCE,
    MAX_CODE_CELLS,
    InvalidSubmission,
    parse,
)

OPTIONS = GradeOptions(cell_timeout=60, memory_mb=1500, jobs=2, check_modules=(CHECK_MODULE,))
FILE = f"{SLUG}.ipynb"
BOM = "\ufeff".encode()  # UTF-8's byte order mark


def solved_json() -> dict:
    return json.loads(nbformat.writes(submission(SOLUTIONS)))


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def with_metadata(change) -> dict:
    data = solved_json()
    change(data)
    return data


def bind_socket(path: Path) -> socket.socket:
    """A Unix socket at ``path`` (bound by relative name: the full path may be too long)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        sock.bind(path.name)
    finally:
        os.chdir(here)
    return sock


# student -> (what to put at <student>/90_test.ipynb, words the message must hold)
REFUSED = {
    "fifo": ("fifo", "named pipe (FIFO)"),
    "zero_link": ("link:/dev/zero", "link to a file outside your folder"),
    "classmate_link": ("link:../honest/" + FILE, "link to a file outside your folder"),
    "loop_link": ("link:" + FILE, "leads nowhere (or in a circle)"),
    "dangling_link": ("link:missing.ipynb", "leads nowhere"),
    "socket": ("socket", "a socket"),
    "folder": ("folder", "a folder"),
    "huge": ("sparse", "larger than 50 MB"),
    "deep_200000": ('{"nbformat": 4, "metadata": ' + nested(200_000) + "}", "nested more than"),
    "deep_500": (
        '{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": {"x": ' + nested(500) + "}}",
        "nested more than 40 levels",
    ),
    "nbformat_text": ({"nbformat": "4", "nbformat_minor": 5, "cells": []}, "nbformat '4'"),
    "minor_text": (
        with_metadata(lambda d: d.update(nbformat_minor="5")),
        "corrupted notebook",
    ),
    "many_cells": (
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {"course": {"notebook": SLUG}},
            "cells": [
                {
                    "cell_type": "code",
                    "id": f"c{n}",
                    "metadata": {},
                    "source": "1",
                    "outputs": [],
                    "execution_count": None,
                }
                for n in range(MAX_CODE_CELLS + 1)
            ],
        },
        "Delete the cells you added",
    ),  # fmt: skip
    "not_utf8": (b"\xff\xfe{\x00", "not valid JSON"),
    "bom_then_garbage": (b"\xef\xbb\xbf{nope", "not valid JSON"),
    "empty": (b"", "not valid JSON"),
    "notebook_name_is_a_list": (
        with_metadata(lambda d: d["metadata"].update(course={"notebook": [SLUG]})),
        None,  # its metadata is dropped; then it is recognised by its cells and graded
    ),
}
# Files with metadata of the wrong types that are still the lesson: graded, every exercise passed.
GRADED = {
    "inside_link": "inside_link",
    "exercise_id_is_a_dict": with_metadata(
        lambda d: d["cells"][3]["metadata"]["course"].update(exercise={"id": "90.1"})
    ),
    "check_id_is_a_list": with_metadata(
        lambda d: d["cells"][4]["metadata"]["course"].update(check=["90.1"])
    ),
    "tags_are_dicts": with_metadata(
        lambda d: d["cells"][3]["metadata"].update(tags=[{"nbval-skip": 1}, ["x"], 3])
    ),
    # a UTF-8 byte order mark before the JSON (Notepad's habit): ignored, and noted
    "bom": BOM + nbformat.writes(submission(SOLUTIONS)).encode("utf-8"),
    "course_is_text": with_metadata(lambda d: d["metadata"].update(course="90_test")),
    "cell_id_is_a_list": with_metadata(lambda d: d["cells"][2].update(id=["t-scratch"])),
    "deep_outputs": with_metadata(
        lambda d: d["cells"][3].update(
            outputs=[
                {
                    "output_type": "execute_result",
                    "execution_count": 1,
                    "metadata": {},
                    "data": {"application/json": json.loads(nested(300))},
                }
            ]
        )
    ),  # fmt: skip
}


def plant(folder: Path, what) -> None:
    """Put ``what`` at ``folder/90_test.ipynb``: bytes, JSON, or a special kind of file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / FILE
    if isinstance(what, bytes):
        path.write_bytes(what)
    elif isinstance(what, dict):
        path.write_text(json.dumps(what), encoding="utf-8")
    elif what == "fifo":
        os.mkfifo(path)
    elif what.startswith("link:"):
        os.symlink(what[len("link:") :], path)
    elif what == "socket":
        bind_socket(path).close()
    elif what == "folder":
        path.mkdir()
    elif what == "sparse":
        with open(path, "wb") as handle:
            handle.truncate(51 * 1024 * 1024)
    elif what == "inside_link":
        write(folder / "my work.json", submission(SOLUTIONS))
        os.symlink("my work.json", path)
    else:
        path.write_text(what, encoding="utf-8")


def with_cells(nb: nbformat.NotebookNode, sources: list[str]) -> nbformat.NotebookNode:
    """``nb`` with code cells of ``sources`` before its first exercise (after the scratch cell)."""
    for number, source in enumerate(reversed(sources)):
        nb.cells.insert(3, nbformat.v4.new_code_cell(source, id=f"added-{number}"))
    return nb


FLOOD = (
    "import time\n"
    "from IPython.display import display\n"
    "metadata = {'m': 'y' * (8 << 20)}\n"
    "for _ in range(8):\n"
    "    display({'text/plain': 'x'}, raw=True, metadata=metadata)\n"
    "    time.sleep(0.1)  # one message at a time: the kernel itself holds none waiting\n"
)
SLEEP = "import time\ntime.sleep(3600)"
HUGE_LIST = "ITEMS = [" + "0, " * 1_400_000 + "]\n"  # 4.2 MB, as the red team's
OVERSIZED = (
    "from IPython.display import display\n"
    f"display({{'text/plain': 'x' * {MAX_MESSAGE_BYTES + 1}}}, raw=True)\n"
)
# The red team's resource attacks (student -> notebook), each with the solutions in place.
RESOURCE = {
    "metadata_flood": with_cells(submission(SOLUTIONS), [FLOOD] * 4),  # 32 messages of 8 MB
    "huge_list": submission({**SOLUTIONS, "90.1": HUGE_LIST + SOLUTIONS["90.1"]}),
    "oversized_message": submission({**SOLUTIONS, "90.1": OVERSIZED + SOLUTIONS["90.1"]}),
}
# The thirty sleeping cells wait out all the time a submission's cells have (the lesson's cells
# times the cell timeout), whatever the timeout: they are graded in a class of their own, beside
# the honest student again, with the least cell timeout (2 s), at the same time as the batch
# and the honest alone (measured on a loaded box: the fixture 66 -> 43 s beside the batch; the
# alone beside them too: 77 -> 63 s).
SLEEPER = "sleeping_cells"
ASLEEP = with_cells(submission(SOLUTIONS), [SLEEP] * 30)
LEAST_TIMEOUT = 2.0
MEMORY_MARGIN_KIB = 64 * 1024  # what a class's results and its grading threads may add


@pytest.fixture(scope="module")
def graded(tmp_path_factory, canonical_dir):
    """The honest student graded alone, the whole batch, and the sleeping cells beside the
    honest student, each in a process of its own (their peak memory measured), all three at the
    same time: nothing in the batch waits out a timeout (the sleeping cells, which do, are
    graded with the least cell timeout, 2 s: they cost no more than the lesson's cells times
    it), so the batch has the alone's options and needs nothing from its run."""
    alone_root = tmp_path_factory.mktemp("alone")
    write(alone_root / "honest" / FILE, submission(SOLUTIONS))
    root = tmp_path_factory.mktemp("hostile")
    write(root / "honest" / FILE, submission(SOLUTIONS))
    for student, (what, _) in REFUSED.items():
        plant(root / student, what)
    for student, what in GRADED.items():
        plant(root / student, what)
    for student, nb in RESOURCE.items():
        write(root / student / FILE, nb)
    asleep_root = tmp_path_factory.mktemp("asleep")
    write(asleep_root / "honest" / FILE, submission(SOLUTIONS))
    write(asleep_root / SLEEPER / FILE, ASLEEP)
    asleep_options = replace(OPTIONS, cell_timeout=LEAST_TIMEOUT)
    runs = concurrently(
        {
            "alone": functools.partial(grade_measured, alone_root, canonical_dir, OPTIONS),
            "batch": functools.partial(grade_measured, root, canonical_dir, OPTIONS),
            "asleep": functools.partial(grade_measured, asleep_root, canonical_dir, asleep_options),
        }
    )
    alone, alone_peaks, _ = outcome(runs["alone"])
    results, peaks, _ = outcome(runs["batch"])
    asleep, _, _ = outcome(runs["asleep"])
    return {
        "results": results,
        "asleep": asleep,
        "alone": alone["honest"],
        "peaks": peaks,
        "alone_peaks": alone_peaks,
        "asleep_options": asleep_options,
    }


@pytest.fixture(scope="module")
def batch(graded):
    return graded["results"], graded["alone"]


def test_every_file_of_the_batch_has_rows_and_the_run_finished(graded):
    assert set(graded["results"]) == {"honest", *REFUSED, *GRADED, *RESOURCE}
    assert set(graded["asleep"]) == {"honest", SLEEPER}


def test_a_huge_list_literal_is_refused_before_anything_parses_it(batch):
    results, _ = batch
    rows = results["huge_list"].exercises
    assert {row.status for row in rows} == {"invalid"}
    assert f"more than the {MAX_CELL_SOURCE} the grader reads in one cell" in rows[0].message


def test_sleeping_cells_get_the_time_of_the_lessons_cells_and_no_more(graded, lesson):
    rows = graded["asleep"][SLEEPER].exercises
    seconds = cell_seconds(lesson, graded["asleep_options"].cell_timeout)
    assert {row.status for row in rows} == {"timeout"}
    assert all(f"used up their time ({seconds:g} s in all" in row.message for row in rows), rows


def test_a_flood_of_metadata_costs_no_points_and_no_memory(graded):
    assert graded["results"]["metadata_flood"].points == 6
    # Each process of the run (pytest's, the kernels', the analysis children) stays within what
    # grading the honest alone took and a dozen of the largest messages the grader receives (a
    # message is held a few times over while it is received: socket, decryption, decoded JSON;
    # measured: 80 to 120 MB for these 8 MB messages). nbval kept all 32 (256 MB, and their
    # copies) before outputs went uncollected.
    # The grader's own process reads no source (the analysis children do), and never had more
    # than one submission's analysis result at a time beside the class's results.
    allowance = {"children": 12 * MAX_MESSAGE_BYTES // 1024, "grader": MEMORY_MARGIN_KIB}
    peaks, alone = graded["peaks"], graded["alone_peaks"]
    over = {
        key: (peaks[key], alone[key])
        for key in allowance
        if peaks[key] > alone[key] + allowance[key]
    }
    assert not over, f"peak KiB (batch, honest alone) over the allowance: {over}"


def test_a_message_larger_than_the_grader_reads_fails_its_own_exercise_only(batch):
    results, _ = batch
    rows = {row.exercise: row for row in results["oversized_message"].exercises}
    assert rows["90.1"].status == "kernel_died"
    assert "a message larger than the grader reads" in rows["90.1"].message
    assert (rows["90.2"].status, rows["90.3"].status) == ("passed", "passed")


@pytest.mark.parametrize("student", sorted(k for k, (_, words) in REFUSED.items() if words))
def test_a_hostile_file_is_refused_as_invalid_with_what_to_do(batch, student):
    results, _ = batch
    rows = results[student].exercises
    assert {row.status for row in rows} == {"invalid"}
    assert {row.points for row in rows} == {0}
    message = rows[0].message
    assert REFUSED[student][1] in message
    assert any(word in message for word in ("Submit", "submit", "Re-download", "Delete", "Open"))


@pytest.mark.parametrize("student", ["notebook_name_is_a_list", *sorted(GRADED)])
def test_metadata_of_the_wrong_type_is_dropped_and_the_notebook_still_graded(batch, student):
    results, _ = batch
    assert {row.exercise: row.status for row in results[student].exercises} == dict.fromkeys(
        ("90.1", "90.2", "90.3"), "passed"
    ), results[student]


def test_dropped_metadata_is_noted_in_the_feedback(batch):
    results, _ = batch
    assert any("was not the course's" in note for note in results["exercise_id_is_a_dict"].notes)


def test_a_byte_order_mark_is_noted_in_the_feedback_and_costs_nothing(batch):
    results, _ = batch
    assert results["bom"].points == 6
    assert any("byte order mark (BOM)" in note for note in results["bom"].notes)
    assert not any("BOM" in note for note in results["honest"].notes)


def test_a_byte_order_mark_is_read_past_as_json_allows_and_only_it(lesson):
    raw = nbformat.writes(submission(SOLUTIONS)).encode("utf-8")
    plain, plain_repairs = parse(raw, lesson)
    marked, repairs = parse(BOM + raw, lesson)
    assert marked == plain and plain_repairs == []
    assert len(repairs) == 1 and "byte order mark (BOM)" in repairs[0]
    chinese = submission(SOLUTIONS)
    chinese.metadata["course"]["lang"] = "zh-CN"
    _, repairs = parse(BOM + nbformat.writes(chinese).encode("utf-8"), lesson)
    assert len(repairs) == 1 and "字节顺序标记（BOM）" in repairs[0]
    for wrong in (BOM + BOM + raw, b" " + BOM + raw, "\ufeff".encode("utf-16") + raw):
        with pytest.raises(InvalidSubmission, match="not valid JSON"):
            parse(wrong, lesson)


def test_the_honest_student_is_graded_exactly_as_alone(graded):
    for beside in (graded["results"], graded["asleep"]):  # the batch, the sleeping cells
        assert beside["honest"] == graded["alone"]
        assert beside["honest"].points == 6


def test_a_link_to_a_classmates_file_does_not_grade_the_classmates_work(batch):
    results, _ = batch
    assert results["classmate_link"].points == 0


def test_discovery_opens_nothing_and_leaves_a_fifo_unread(tmp_path):
    plant(tmp_path / "ann", "fifo")
    [found] = discover(tmp_path)
    assert "named pipe" in found.problem
    with pytest.raises(UnreadableSubmission, match="named pipe"):
        read_submission(found.path)  # O_NONBLOCK: refused at once, never blocks


def test_a_device_named_on_the_command_line_is_refused_without_reading_it():
    found = named_file(Path("/dev/zero"), "you", SLUG)
    assert "a character device" in found.problem
    with pytest.raises(UnreadableSubmission, match="a character device"):
        read_submission(Path("/dev/zero"))


def test_a_file_swapped_for_a_link_after_discovery_is_not_followed(tmp_path):
    target = write(tmp_path / "elsewhere.ipynb", submission())
    plant(tmp_path / "ann", b"{}")
    [found] = discover(tmp_path)
    found.path.unlink()
    os.symlink(target, found.path)
    with pytest.raises(UnreadableSubmission, match="could not be read"):
        read_submission(found.path)  # O_NOFOLLOW


def test_an_unreadable_student_folder_is_that_students_invalid_row(
    tmp_path, canonical_dir, monkeypatch
):
    plant(tmp_path / "locked", submission())
    write(tmp_path / "open" / FILE, b"not json")
    scandir = os.scandir

    def refusing(path="."):  # what chmod 000 does, also when the tests run as root
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    found = discover(tmp_path)
    monkeypatch.undo()
    by_student = {r.student: r for r in grade_all(found, load_lessons(canonical_dir), OPTIONS)}
    assert "your folder could not be read (Permission denied)" in (
        by_student["locked"].exercises[0].message
    )
    assert by_student["open"].exercises[0].status == "invalid"
