"""Student folder names of every odd kind (newlines, control characters, right-to-left marks,
``..``, bytes that are not UTF-8, names hundreds of characters long, names that differ only in
Unicode normalisation or case) are graded as separate students, shown as printable text, and
given feedback files that stay inside ``feedback/``, never collide and are the same on every run.
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest
from grading_lesson import CHECK_MODULE, SLUG, SOLUTIONS, submission, write

from course_lib.cli import main
from course_lib.grading.names import feedback_file_name, printable, student_ids

NFC = unicodedata.normalize("NFC", "José")
NFD = unicodedata.normalize("NFD", "José")
ODD = (
    "new\nline",
    "bell\x07ring",
    "rtl\u202etxt.exe",
    "x..y",
    "L" * 240,
    NFC,
    NFD,
    "Ada",
    "ada",
    "con",
    "张伟",
    "sp ace",
)
NOT_UTF8 = b"caf\xe9"


@pytest.fixture(scope="module")
def graded(tmp_path_factory, canonical_dir):
    root = tmp_path_factory.mktemp("names")
    for name in ODD:
        write(root / name / f"{SLUG}.ipynb", b"{")  # refused quickly: the names are the test
    folder = os.path.join(os.fsencode(root), NOT_UTF8)
    os.mkdir(folder)
    with open(os.path.join(folder, f"{SLUG}.ipynb".encode()), "wb") as handle:
        handle.write(b"{")
    write(root / "\u202eevil\nname" / f"{SLUG}.ipynb", submission(SOLUTIONS))  # really graded
    outs = []
    for _ in range(2):
        out = tmp_path_factory.mktemp("out")
        code = main(
            ["grade", str(root), "--out", str(out), "--canonical", str(canonical_dir)]
            + ["--checks", CHECK_MODULE, "--cell-timeout", "60"]
        )
        assert code == 0
        outs.append(out)
    return outs


def payload(out: Path) -> dict:
    return json.loads((out / "grades.json").read_text(encoding="utf-8"))


def test_every_folder_is_its_own_student(graded):
    assert len(payload(graded[0])["totals"]) == len(ODD) + 2


def test_every_name_is_printable(graded):
    for student in payload(graded[0])["totals"]:
        assert all(
            unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Cs") for ch in student
        ), repr(student)


def test_invisible_characters_and_foreign_bytes_are_shown_as_escapes(graded):
    students = set(payload(graded[0])["totals"])
    assert {"new\\u000aline", "bell\\u0007ring", "rtl\\u202etxt.exe", "caf\\xe9"} <= students


def test_names_that_look_alike_are_told_apart(graded):
    students = set(payload(graded[0])["totals"])
    assert NFC not in students and NFD not in students
    assert len([s for s in students if s.startswith(("José ~", NFD + " ~"))]) == 2
    assert len([s for s in students if s.lower().startswith("ada ~")]) == 2


def test_the_really_graded_student_with_a_hostile_name_gets_full_marks(graded):
    totals = payload(graded[0])["totals"]
    assert totals["\\u202eevil\\u000aname"]["points"] == 6


def test_feedback_files_stay_in_the_folder_one_per_student(graded):
    folder = graded[0] / "feedback"
    files = sorted(path.name for path in folder.iterdir())
    assert len(files) == len(ODD) + 2
    assert all(len(name.encode()) <= 120 and "/" not in name for name in files)
    assert not [name for name in files if name.startswith(".") or "\n" in name]
    assert "张伟.md" in files and "x..y.md" in files


def test_regrading_names_everything_the_same(graded):
    first, second = graded
    assert (first / "grades.csv").read_bytes() == (second / "grades.csv").read_bytes()
    assert sorted(p.name for p in (first / "feedback").iterdir()) == sorted(
        p.name for p in (second / "feedback").iterdir()
    )


@pytest.mark.parametrize(
    "name", ["con", "a/b", "..", "-0123456789", "x-0123456789", "L" * 300, "tab\there", ""]
)
def test_a_feedback_file_name_is_never_a_path_a_reserved_name_or_too_long(name):
    file_name = feedback_file_name(printable(name) if name else name)
    assert "/" not in file_name and not file_name.startswith(".")
    assert file_name.split(".")[0].lower() not in ("con", "")
    assert len(file_name.encode()) <= 120


def test_a_name_shaped_like_a_hashed_one_cannot_take_a_classmates_file():
    taken = feedback_file_name("sp ace")
    assert feedback_file_name(taken[: -len(".md")]) != taken


def test_student_ids_do_not_depend_on_the_order_names_arrive_in():
    names = list(ODD)
    assert student_ids(names) == student_ids(reversed(names))
