"""Every sentence the toolkit says to a learner, whole, with named placeholders (the
``toolkit`` catalog domain, ``course_lib/locale/<lang>/toolkit.po``, translates this table)."""

from __future__ import annotations

from course_lib.i18n import translate

MESSAGES: dict[str, str] = {
    # one line per part that is the course's (``use``)
    "course_missing": "Using the course's {part}: finish exercise {exercise} to use yours.",
    "course_changed": (
        "Using the course's {part}: exercise {exercise} changed after its check passed; run "
        "its check again to use yours."
    ),
    "course_unsaved": (
        "Using the course's {part}: save {notebook} (exercise {exercise} passed its check but "
        "the saved notebook does not hold that code)."
    ),
    "course_broken": (
        "Using the course's {part}: your lesson {lesson} code did not load ({error}); fix it, "
        "then run the check of exercise {exercise} again."
    ),
    "course_chosen": (
        'Using the course\'s {part}, as you chose (toolkit.prefer("mine", "{part}") switches back).'
    ),
    # the grader's report on a lesson that takes parts from the toolkit
    "parts_graded": (
        "Parts from earlier lessons: {mine} of {count} were yours ({names}); each other one "
        "was the course's, as its line says."
    ),
    "parts_none": "none",
    # the reasons ``parts()`` shows
    "why_mine": "exercise {exercises} passed its check",
    "why_missing": "exercise {exercise} has not passed its check yet",
    "why_changed": "exercise {exercise} changed after its check passed",
    "why_unsaved": "exercise {exercise} passed, but {notebook} is not saved with that code",
    "why_broken": "your lesson {lesson} code did not load: {error}",
    "why_chosen": 'you chose the course\'s (toolkit.prefer("course", ...))',
    "why_graded": "graded: exercise {exercise} did not pass in this submission",
    "whose_mine": "yours",
    "whose_course": "course",
    "table_header": "part | exercise | whose | why",
    "table_row": "{part} | {exercise} | {whose} | {why}",
    # the package's own words (docstrings of what ``export`` writes)
    "module_doc": (
        "Your code from lesson {lesson} ({notebook}.ipynb), written by course_lib.toolkit."
    ),
    "package_doc": "Your toolkit: the parts of the course you wrote yourself (course_lib.toolkit).",
    "package_description": "The tool-calling toolkit I wrote in Tool Calling from Scratch",
    # ``course toolkit``
    "built": (
        "Wrote your toolkit to {folder}: {count} of {total} parts are yours. Install it "
        "anywhere with: pip install {folder}"
    ),
    # mistakes in calling the toolkit
    "unknown_part": "The toolkit has no part named {name!r}. Its parts: {known}.",
    "no_names": 'Name the parts you want: toolkit.use("ToolRegistry", "run_agent").',
    "unknown_side": 'toolkit.prefer takes "course" or "mine" first, not {side!r}.',
    "no_reference": (
        "The course has no version of {part} to lend: finish exercise {exercise} to use yours."
    ),
    "same_lesson": (
        "{part} is what exercise {exercise} of this lesson (or a later one) asks you to write: "
        "write it here instead of taking it from the toolkit."
    ),
    "prefer_course": "{part}: the course's version from now on.",
    "prefer_mine": "{part}: your version from now on, whenever its exercises have passed.",
}


def say(key: str, /, **fields: object) -> str:
    """The message ``key`` in the language spoken now, its placeholders filled."""
    return translate(MESSAGES, key, **fields)
