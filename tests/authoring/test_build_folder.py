"""Building a folder: byte-stable output, and ``build --check`` naming what is stale."""

from __future__ import annotations

import argparse
import json

import nbformat
from sample_notebooks import solution_notebook

from course_lib.authoring import AuthoringError, build_all, build_notebook, stale_notebooks
from course_lib.authoring.cli import register


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.handler(args)


def test_building_twice_gives_identical_bytes_and_the_second_build_writes_nothing(course_dirs):
    solutions, notebooks = course_dirs
    assert build_all(solutions, notebooks) == [notebooks / "99_sample.ipynb"]
    first = (notebooks / "99_sample.ipynb").read_bytes()
    assert build_all(solutions, notebooks) == []
    (notebooks / "99_sample.ipynb").unlink()
    build_all(solutions, notebooks)
    assert (notebooks / "99_sample.ipynb").read_bytes() == first


def test_the_written_notebook_is_nbformat_json_with_sorted_keys_and_a_final_newline(course_dirs):
    solutions, notebooks = course_dirs
    build_all(solutions, notebooks)
    text = (notebooks / "99_sample.ipynb").read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert "北京" in text  # not \\u escaped
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    nbformat.validate(nbformat.reads(text, as_version=4))


def test_check_passes_right_after_a_build(course_dirs):
    solutions, notebooks = course_dirs
    build_all(solutions, notebooks)
    assert stale_notebooks(solutions, notebooks) == []


def test_check_names_the_notebook_and_cell_when_a_solution_changed(course_dirs):
    solutions, notebooks = course_dirs
    build_all(solutions, notebooks)
    changed = solution_notebook()
    changed.cells[1].source = 'print("上海")'
    nbformat.write(changed, solutions / "99_sample.ipynb")
    assert stale_notebooks(solutions, notebooks) == [
        "notebooks/99_sample.ipynb is out of date: cell 1 (id 't-example') differs in source"
    ]


def test_check_names_a_hand_edited_check_cell(course_dirs):
    solutions, notebooks = course_dirs
    build_all(solutions, notebooks)
    student = nbformat.read(notebooks / "99_sample.ipynb", as_version=4)
    student.cells[3].metadata["editable"] = True
    nbformat.write(student, notebooks / "99_sample.ipynb")
    assert stale_notebooks(solutions, notebooks) == [
        "notebooks/99_sample.ipynb is out of date: cell 3 (id 't-check1') differs in metadata"
    ]


def test_check_reports_missing_and_extra_student_notebooks(course_dirs):
    solutions, notebooks = course_dirs
    nbformat.write(solution_notebook(name="98_orphan"), notebooks / "98_orphan.ipynb")
    assert stale_notebooks(solutions, notebooks) == [
        "notebooks/99_sample.ipynb is missing",
        "notebooks/98_orphan.ipynb has no source solutions/98_orphan.ipynb",
    ]


def test_check_reports_a_changed_cell_count_and_a_formatting_only_change(course_dirs):
    solutions, notebooks = course_dirs
    build_all(solutions, notebooks)
    path = notebooks / "99_sample.ipynb"
    original = path.read_text(encoding="utf-8")
    path.write_text(json.dumps(json.loads(original)), encoding="utf-8")
    assert stale_notebooks(solutions, notebooks) == [
        "notebooks/99_sample.ipynb is out of date: only its formatting differs"
    ]
    student = nbformat.reads(original, as_version=4)
    student.cells.pop()
    nbformat.write(student, path)
    assert stale_notebooks(solutions, notebooks) == [
        "notebooks/99_sample.ipynb is out of date: it has 3 cells, the build gives 4"
    ]


def test_the_build_command_exits_nonzero_and_says_what_to_do_when_stale(course_dirs, capsys):
    solutions, notebooks = course_dirs
    dirs = ("--solutions", str(solutions), "--notebooks", str(notebooks))
    assert run_cli("build", "--check", *dirs) == 1
    assert "notebooks/99_sample.ipynb is missing" in capsys.readouterr().err
    assert run_cli("build", *dirs) == 0
    assert capsys.readouterr().out == "wrote notebooks/99_sample.ipynb\n"
    assert run_cli("build", "--check", *dirs) == 0
    assert capsys.readouterr().out == "notebooks/ is in sync with solutions/.\n"


def test_the_build_command_reports_an_authoring_error_without_a_traceback(course_dirs, capsys):
    solutions, notebooks = course_dirs
    broken = solution_notebook()
    broken.cells[2].metadata["course"]["hint"] = ""
    nbformat.write(broken, solutions / "99_sample.ipynb")
    assert run_cli("build", "--solutions", str(solutions), "--notebooks", str(notebooks)) == 2
    err = capsys.readouterr().err
    assert err.startswith("authoring error: 99_sample.ipynb, cell 2 (id 't-ex1'): ")
    assert not (notebooks / "99_sample.ipynb").exists()


def test_an_invalid_notebook_is_an_authoring_error(course_dirs):
    nb = solution_notebook()
    del nb.metadata["kernelspec"]["display_name"]
    try:
        build_notebook(nb, "99_sample")
    except AuthoringError as exc:
        assert str(exc).startswith("99_sample.ipynb: the student version is not a valid notebook")
    else:
        raise AssertionError("an invalid notebook was built")


def test_a_duplicate_cell_id_on_disk_is_an_error_not_silently_renamed(course_dirs):
    solutions, notebooks = course_dirs
    path = solutions / "99_sample.ipynb"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cells"][3]["id"] = data["cells"][2]["id"]
    path.write_text(json.dumps(data), encoding="utf-8")
    try:
        build_all(solutions, notebooks)
    except AuthoringError as exc:
        assert str(exc) == "99_sample.ipynb: cell 3: the id 't-ex1' is used twice"
    else:
        raise AssertionError("a duplicate id was accepted")
