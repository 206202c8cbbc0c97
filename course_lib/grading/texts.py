"""What the grader writes for people to read, whole, with named placeholders (``say``).

The feedback page a student gets is written in the language of the edition they handed in (the
grader records it per submission, ``SubmissionResult.language``); the self-check scorecard in the
submission's language unless ``--lang`` or ``COURSE_LANG`` asks for another; the class report and
the terminal summary in the language spoken (``--lang``, ``COURSE_LANG``, else English). The
``grading`` catalog domain translates this table and the class report's. ``grades.csv`` and
``grades.json`` hold no sentence from here: their statuses and ids are the same in every
language.
"""

from __future__ import annotations

from course_lib.i18n import translate

TEXTS: dict[str, str] = {
    # feedback/<student>.md
    "feedback_title": "# Feedback for {student}",
    "feedback_total": "Total: {points} / {max_points}",
    "feedback_notebook": "## {notebook}: {points} / {max_points}",
    "feedback_row": "- **{exercise}**: {status}, {points} / {max_points}",
    "whole_notebook": "(whole notebook)",
    "feedback_notes": "Notes from the grader:",
    # how a status reads (the files keep the status id itself)
    "status_passed": "passed",
    "status_failed": "failed",
    "status_not_attempted": "not done yet",
    "status_error": "error",
    "status_timeout": "timed out",
    "status_kernel_died": "the kernel died",
    "status_invalid": "invalid file",
    "status_tampered": "zero (the message says why)",
    # what the grader says about a row it could not take from a check (results.py)
    "no_kernel": (
        "the grader could not start a kernel for this notebook ({problem}), so this exercise was "
        "not graded; that is the grader's fault, not yours: your instructor will grade it again"
    ),
    "not_submitted": "not submitted: no {notebook}.ipynb in {student}/",
    "check_did_not_run": "the check cell did not run",
    "check_skipped": "the check cell was skipped",
    "exercise_raised": "the exercise cell raised {error}",
    "check_raised": "the check raised {error}",
    "input_called": "an error: input() cannot be answered during grading; remove the input() call",
    "system_exit": "SystemExit({value}): sys.exit() stops a script, not a notebook cell; remove it",
    "an_error": "an error",
    "timeout_exercise": (
        "the exercise cell ran for more than {seconds:g} s and was stopped (an endless loop, or "
        "waiting for something that never comes?); later exercises were still graded"
    ),
    "timeout_check": (
        "the check ran for more than {seconds:g} s and was stopped (an endless loop, or waiting "
        "for something that never comes?); later exercises were still graded"
    ),
    "memory_exercise": (
        "the exercise cell ran out of memory (limit {memory_mb} MB); the kernel was restarted and "
        "later exercises were still graded"
    ),
    "memory_check": (
        "the check ran out of memory (limit {memory_mb} MB); the kernel was restarted and later "
        "exercises were still graded"
    ),
    "died_exercise": (
        "the exercise cell ended the kernel: {reason}; it was restarted and later exercises were "
        "still graded"
    ),
    "died_check": (
        "the check ended the kernel: {reason}; it was restarted and later exercises were still "
        "graded"
    ),
    "kernel_died": "the kernel died",
    # why a kernel is gone (kernel.py), the {reason} and {problem} above
    "kernel_died_because": "the kernel died ({reason})",
    "kernel_no_answer": "it did not answer within {seconds:g} s",
    "kernel_not_connected": "its channels did not all connect within {seconds:g} s",
    "kernel_oversized": (
        "it sent a message larger than the grader reads ({mib} MiB at once: a print or a display "
        "of that much output?)"
    ),
    "kernel_silent": "it stopped answering: no heartbeat for {seconds:g} s",
    "kernel_stopped": "it was stopped",
    "kernel_signal": "killed by signal {signal}",
    "kernel_exit": "exit code {code}",
    "cell_timed_out": "code cell {index} ({cell_id}) timed out",
    "cell_ended_kernel": "code cell {index} ({cell_id}) ended the kernel",
    "no_cell_id": "no id",
    # the note at the end of a cell's output the grader cut (kernel.py; the learner's edition)
    "output_cut": "[the grader cut this output: more than {limit} bytes]",
    # course check: the scorecard
    "scorecard_title": "{notebook}: {points} / {max_points} points",
    "scorecard_row": "  {mark} {exercise:6} {status}",
    "mark_passed": "ok  ",
    "mark_todo": "todo",
    "mark_failed": "FAIL",
    "scorecard_note": "  note: {note}",
    # course grade: the terminal summary's last lines
    "wrote": (
        "wrote {csv}, grades.json and feedback/ ({files} files)\n"
        "class report: {report} (score distributions, pass rates, frequent hints, {flags} flags "
        "to look at)"
    ),
    "scenarios_heading": "scenarios of {exercise} (submissions that passed each):",
    "exercises_count": "exercises: {counts}",
}


def say(key: str, lang: str | None = None, /, **fields: object) -> str:
    """The text ``key`` in ``lang`` (default: the language spoken now), placeholders filled."""
    return translate(TEXTS, key, lang, **fields)


def status_text(status: str, lang: str | None = None) -> str:
    """How ``status`` (a status id: ``passed``, ``not_attempted``...) reads in a sentence."""
    key = f"status_{status}"
    return say(key, lang) if key in TEXTS else status


def page_language(notebooks: dict[str, dict[str, object]]) -> str:
    """The language of a student's feedback page: the edition most of their notebooks were
    handed in from (the first such notebook's, on a tie)."""
    languages = [str(summary.get("language") or "en") for _, summary in sorted(notebooks.items())]
    return max(languages, key=languages.count) if languages else "en"
