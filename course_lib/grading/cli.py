"""``course check NOTEBOOK...`` and ``course grade ...``: the self-check and the class grader.

``grade`` takes two forms with one parser (argparse cannot tell a folder from a subcommand):

    course grade SUBMISSIONS --out DIR [--jobs N] [--cell-timeout S] [--notebook NN_slug]
                 [--shard i/n] [--solutions DIR] [--accept-isolation-gap]
    course grade merge SHARD_DIR... --out DIR

A submissions folder that is really called ``merge`` can be given as ``./merge``.

What these commands say to the instructor (``MESSAGES``, and the arguments' ``HELP``) comes from
the ``grading`` catalog in the language chosen as the launcher chooses it: ``--lang X`` anywhere
on the command line, else ``COURSE_LANG``, else English (``command_language``). The scorecard
speaks the edition handed in unless one is chosen; a feedback page always its student's edition.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from course_lib.grading import without_iri_grammar  # noqa: F401 (first: before nbformat)
from course_lib.grading.canonical import default_canonical_dir, load_lessons
from course_lib.grading.class_report import flag_count
from course_lib.grading.discover import (
    Submission,
    UnreadableSubmission,
    discover,
    named_file,
    read_submission,
    students,
)
from course_lib.grading.grader import GradeOptions, grade_all
from course_lib.grading.isolation import REFUSAL_TEXTS, refusal, refused
from course_lib.grading.report import from_payload, summary_table, to_payload, write_outputs
from course_lib.grading.results import SubmissionResult, not_submitted
from course_lib.grading.scorecard import scorecard
from course_lib.grading.shard import merge, parse_shard, shard_students
from course_lib.grading.similarity import compare_results, load_corpus
from course_lib.grading.texts import say
from course_lib.i18n import (
    ENGLISH,
    ENVIRONMENT_VARIABLE,
    LANGUAGES,
    known,
    speaking,
    speaking_in_process,
    translate,
)
from course_lib.i18n.arguments import command_language

GRADE_USAGE = """course grade SUBMISSIONS --out DIR [--jobs N] [--cell-timeout S]
                    [--notebook NN_slug] [--shard i/n] [--solutions DIR]
                    [--accept-isolation-gap]
       course grade merge SHARD_DIR... --out DIR"""

# What ``course check`` and ``course grade`` say to the instructor when they cannot go on.
MESSAGES = {
    "merge_no_shards": "course grade merge: give the --out folders of the shards",
    "merge_failed": "course grade merge: {error}",
    "one_folder": "course grade: give one SUBMISSIONS folder (or `merge SHARD_DIR...`)",
    "grade_failed": "course grade: {error}",
    "check_failed": "course check: {error}",
    # An error of the system's (its reason in the system's words), as {error} above.
    "system_error": "{path} could not be read or written: {reason}",
}
# The commands' and their arguments' help (argparse: no percent sign in any of them).
HELP = {
    "check": "grade your own notebooks with the grader's machinery and print a scorecard",
    "check_description": "Grade your own notebooks exactly as the class grader would.",
    "grade": "grade a class: SUBMISSIONS/<student>/<NN_slug>.ipynb (or merge shard outputs)",
    "grade_description": (
        "Grade every SUBMISSIONS/<student>/<NN_slug>.ipynb; write grades.csv, grades.json, "
        "report.html and feedback/<student>.md to --out. With `merge`, combine the --out folders "
        "of shards into one."
    ),
    "out": "folder for the gradebook files",
    "jobs": "submissions graded in parallel",
    "notebook": "grade one lesson only",
    "shard": "grade share i of n (1-based)",
    "solutions": (
        "the solution notebooks answers are compared with (default: solutions/ of this checkout)"
    ),
    "accept_isolation_gap": (
        "grade even where a kernel could find other kernels' folders and sockets (no user "
        "namespaces, macOS): refused otherwise"
    ),
    "cell_timeout": "seconds per cell (30)",
    "memory_mb": "kernel memory limit (2048)",
    "canonical": "the course's student notebooks (default: notebooks/ of this checkout)",
    "checks": "a Python file registering the checks of lessons of your own (repeatable)",
    "lang": (
        "the language of this command's messages, the scorecard and the reports (default: "
        "COURSE_LANG, else the scorecard speaks the edition handed in and the rest English); a "
        "feedback page always speaks its student's edition"
    ),
}


def say_to_instructor(key: str, **fields: object) -> None:
    """``MESSAGES[key]`` on stderr, in the language spoken now."""
    print(translate(MESSAGES, key, **fields), file=sys.stderr)


def error_text(exc: Exception) -> str:
    """What went wrong, in the language spoken now: the course's own errors are sentences of its
    catalogs already; an error of the system's (an ``OSError`` with an errno) is framed by one."""
    if isinstance(exc, OSError) and exc.errno is not None and exc.filename is not None:
        return translate(MESSAGES, "system_error", path=exc.filename, reason=exc.strerror)
    return str(exc)


def register(subparsers: argparse._SubParsersAction) -> None:
    # The help is written when the parser is made, before the arguments are parsed: in the
    # language the command line asks for (``course grade --help --lang zh-CN``).
    lang = command_language(sys.argv[1:])

    def help_(key: str) -> str:
        return translate(HELP, key, lang)

    check = subparsers.add_parser(
        "check", help=help_("check"), description=help_("check_description")
    )
    check.add_argument("notebooks", nargs="+", type=Path, metavar="NOTEBOOK")
    _add_run_options(check, help_)
    check.set_defaults(handler=run_check)

    grade = subparsers.add_parser(
        "grade", usage=GRADE_USAGE, help=help_("grade"), description=help_("grade_description")
    )
    grade.add_argument("paths", nargs="+", metavar="SUBMISSIONS | merge SHARD_DIR...")
    grade.add_argument("--out", type=Path, required=True, help=help_("out"))
    grade.add_argument("--jobs", type=int, default=1, help=help_("jobs"))
    grade.add_argument("--notebook", default=None, metavar="NN_slug", help=help_("notebook"))
    grade.add_argument("--shard", default=None, metavar="i/n", help=help_("shard"))
    grade.add_argument(
        "--solutions", type=Path, default=None, metavar="DIR", help=help_("solutions")
    )
    grade.add_argument(
        "--accept-isolation-gap", action="store_true", help=help_("accept_isolation_gap")
    )
    _add_run_options(grade, help_)
    grade.set_defaults(handler=run_grade)


def _add_run_options(parser: argparse.ArgumentParser, help_: Any) -> None:
    parser.add_argument(
        "--cell-timeout", type=float, default=30.0, metavar="S", help=help_("cell_timeout")
    )
    parser.add_argument(
        "--memory-mb", type=int, default=2048, metavar="MB", help=help_("memory_mb")
    )
    parser.add_argument(
        "--canonical", type=Path, default=None, metavar="DIR", help=help_("canonical")
    )
    parser.add_argument(
        "--checks", type=Path, action="append", default=[], metavar="FILE", help=help_("checks")
    )
    parser.add_argument("--lang", choices=LANGUAGES, default=None, help=help_("lang"))


def _options(args: argparse.Namespace) -> GradeOptions:
    """``course check`` grades a learner's own notebook and nobody else's: nothing another
    kernel could see there, so the isolation gap is accepted."""
    return GradeOptions(
        cell_timeout=args.cell_timeout,
        memory_mb=args.memory_mb,
        jobs=max(1, getattr(args, "jobs", 1)),
        check_modules=tuple(str(path) for path in args.checks),
        accept_isolation_gap=getattr(args, "accept_isolation_gap", True),
    )


def _progress(started: float):
    def report(result: SubmissionResult) -> None:
        elapsed = time.monotonic() - started
        print(
            f"[{elapsed:6.1f}s] {result.student}/{result.notebook}: "
            f"{result.points}/{result.max_points}",
            file=sys.stderr,
            flush=True,
        )

    return report


def run_grade(args: argparse.Namespace) -> int:
    # The messages, the summary and the class report: --lang, else COURSE_LANG, else English,
    # in the grader's threads too; a caller that goes on (a test) keeps its own language after.
    with speaking_in_process(args.lang or command_language([])):
        return _run_grade(args)


def _run_grade(args: argparse.Namespace) -> int:
    if args.paths[0] == "merge":
        if len(args.paths) < 2:
            say_to_instructor("merge_no_shards")
            return 2
        try:
            payload = merge([Path(p) for p in args.paths[1:]], args.out)
        except (OSError, ValueError) as exc:
            say_to_instructor("merge_failed", error=error_text(exc))
            return 2
        print(summary_table(payload))
        print(wrote_line(args.out, payload, len(from_payload(payload))))
        return 0
    if len(args.paths) != 1:
        say_to_instructor("one_folder")
        return 2
    try:
        shard = parse_shard(args.shard) if args.shard else (1, 1)
        lessons = load_lessons(args.canonical or default_canonical_dir())
        root = Path(args.paths[0])
        submissions = discover(root, notebook=args.notebook)
        class_list = students(root)
    except (OSError, ValueError) as exc:
        say_to_instructor("grade_failed", error=error_text(exc))
        return 2
    # The lessons this batch grades: the one asked for, else every lesson anyone handed in.
    # A student missing one of them gets zero rows for it, so the gradebook has no holes.
    expected = [args.notebook] if args.notebook else sorted({s.notebook for s in submissions})
    expected = [slug for slug in expected if slug in lessons]
    mine = shard_students(class_list, *shard)
    submissions = [s for s in submissions if s.student in set(mine)]
    solutions = args.solutions or default_canonical_dir().parent / "solutions"
    # The course's own answers are read while the notebooks run (this process only waits for
    # them then), not after.
    with ThreadPoolExecutor(max_workers=1) as reader:
        corpus = reader.submit(load_corpus, lessons, solutions)
        results = grade_all(submissions, lessons, _options(args), _progress(time.monotonic()))
    handed_in = {(s.student, s.notebook) for s in submissions}
    results += [
        not_submitted(student, lessons[slug])
        for student in mine
        for slug in expected
        if (student, slug) not in handed_in
    ]
    refusals = [r for r in results if refused(r.isolation, args.accept_isolation_gap)]
    if refusals:
        print(refused_line(refusals), file=sys.stderr)
        return 3
    compare_results(results, corpus.result())
    payload = to_payload(results, shard=f"{shard[0]}/{shard[1]}")
    write_outputs(args.out, payload)
    print(summary_table(payload))
    print(wrote_line(args.out, payload, len(results)))
    return 0


def refused_line(refusals: list[SubmissionResult]) -> str:
    """Why ``course grade`` wrote nothing: how many notebooks a kernel without a private view
    would have graded, why the first could not be kept apart, and what the instructor can do."""
    reason = refusal(refusals[0].isolation)
    return translate(REFUSAL_TEXTS, "refused", count=len(refusals), reason=reason)


def wrote_line(out: Path, payload: dict[str, Any], files: int) -> str:
    """The summary's last lines: what was written, and where to look first."""
    flags = flag_count(payload)
    wrote = say("wrote", csv=out / "grades.csv", files=files, report=out / "report.html",
                flags=flags)  # fmt: skip
    return "\n" + wrote


def run_check(args: argparse.Namespace) -> int:
    # The scorecard speaks --lang, else COURSE_LANG, else the edition the notebook came from;
    # what the command says before there is a notebook, --lang, else COURSE_LANG, else English.
    chosen = args.lang or known(os.environ.get(ENVIRONMENT_VARIABLE))
    with speaking(chosen or ENGLISH):  # the lessons' errors are said as they are raised
        try:
            lessons = load_lessons(args.canonical or default_canonical_dir())
        except (OSError, ValueError) as exc:
            say_to_instructor("check_failed", error=error_text(exc))
            return 2
    submissions = _checked(args.notebooks)
    results = grade_all(submissions, lessons, _options(args))
    by_submission = dict(zip(sorted(submissions), results, strict=True))
    for submission in submissions:  # in the order the learner named them
        result = by_submission[submission]
        record_passes(submission.path, result)
        with speaking(chosen or result.language):
            print(scorecard(result))
    perfect = all(row.status == "passed" for result in results for row in result.exercises)
    return 0 if perfect else 1


def _checked(paths: list[Path]) -> list[Submission]:
    """The notebooks to check, as one learner's submissions; a lesson named again (both
    editions of 00, two drafts of 04) is another learner's each time, so that every notebook is
    graded (the grader grades one notebook per learner and lesson), and a later lesson uses the
    parts of the first notebook named for an earlier one."""
    seen: dict[str, int] = {}
    submissions = []
    for path in paths:
        lesson = _lesson_of(path)
        seen[lesson] = seen.get(lesson, 0) + 1
        learner = "you" if seen[lesson] == 1 else f"you-{seen[lesson]}"
        submissions.append(named_file(path, learner, lesson))
    return submissions


def record_passes(path: Path, result: SubmissionResult) -> None:
    """Tell the learner's toolkit which exercises passed, on the exercise cells as saved
    (``course_lib.toolkit``): the self-check counts as much as a check cell in JupyterLab."""
    from course_lib.toolkit.state import record_passes_of

    passed = [row.exercise for row in result.exercises if row.status == "passed"]
    if passed:
        record_passes_of(path, passed)


def _lesson_of(path: Path) -> str:
    """The lesson a notebook says it is (its metadata), else its file name. Read like any
    submission (a FIFO or a device is not opened); the grader reports unreadable files itself."""
    submission = named_file(path, "you", path.stem)
    if submission.problem:
        return path.stem
    try:
        data = json.loads(read_submission(submission.path))
        claimed = data["metadata"]["course"]["notebook"]
    except (UnreadableSubmission, ValueError, RecursionError, KeyError, TypeError):
        return path.stem
    return claimed if isinstance(claimed, str) and claimed else path.stem
