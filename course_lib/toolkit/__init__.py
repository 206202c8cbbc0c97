"""The learner's toolkit: what a learner writes in an exercise becomes part of *their* package,
and later lessons use it.

::

    from course_lib import toolkit
    ToolRegistry, run_agent = toolkit.use("ToolRegistry", "run_agent")
    toolkit.parts()                       # part | exercise | whose | why
    toolkit.prefer("course", "run_agent")  # switch a part to the course's, knowingly

``use`` hands back each named part: the learner's own when the exercise that defines it (and the
earlier exercises its code calls, ``parts.PARTS``) passed its check on exactly the code the
learner's notebook holds now, else the course's reference, with one printed line naming the
exercise to finish. Nothing is printed for the learner's own parts.

Where the learner's parts come from (``export``): their notebooks (``notebooks/`` of the course
folder, or ``COURSE_TOOLKIT_NOTEBOOKS``). A check that passes in JupyterLab (``check()``) or in
``python -m course_lib check`` records the SHA-256 of the exercise cell's source
(``state.record_pass``); ``use`` reads the saved notebook, and a cell whose source no longer has
that hash is not trusted until its check passes again. The passed cells of a lesson, after the
imports and helpers of the lesson they need, become the module ``my_toolkit.lessonNN`` of a real
package in ``my_toolkit/`` (with a ``pyproject.toml``: ``pip install ./my_toolkit`` works after
the course); ``use`` imports the part from there.

When grading (``grading``), none of that is read: the grader, which has a student's submitted
notebooks side by side, grades the earlier lessons first and tells lesson N's kernel which parts
of lessons before N passed *its own* checks, with their code; everything else is the reference.
Nothing the learner's code can reach decides a grade: the checks run in the grader's process.

Documented for learners and authors in ``docs/toolkit.md``.
"""

from __future__ import annotations

from course_lib.toolkit.messages import say
from course_lib.toolkit.parts import PARTS, Part, part_named
from course_lib.toolkit.resolve import Choice, choose

SIDES = ("course", "mine")


def use(*names: str):
    """The named parts: one object for one name, a tuple for several (see the module doc)."""
    if not names:
        raise TypeError(say("no_names"))
    parts = [part_named(name) for name in names]
    chosen = [choose(part) for part in parts]
    for choice in chosen:
        if choice.line:
            print(choice.line)
    objects = tuple(choice.value for choice in chosen)
    return objects[0] if len(objects) == 1 else objects


class PartsTable(list):
    """The rows of ``parts()``; shown as a plain table (the same text on every run)."""

    def __str__(self) -> str:
        lines = [say("table_header")]
        lines += [say("table_row", **row) for row in self]
        return "\n".join(lines)

    __repr__ = __str__


def parts() -> PartsTable:
    """Every part: its name, its exercise, whose version ``use`` would hand out, and why."""
    rows = PartsTable()
    for part in PARTS.values():
        choice = choose(part, quiet=True)
        whose = say("whose_mine") if choice.mine else say("whose_course")
        row = {"part": part.name, "exercise": part.exercise, "whose": whose, "why": choice.why}
        rows.append(row)
    return rows


def prefer(side: str, *names: str) -> None:
    """Use the ``"course"``'s version of the named parts from now on, or ``"mine"`` again
    (remembered in the toolkit's state; while grading, for this kernel only)."""
    from course_lib.toolkit import resolve

    if side not in SIDES:
        raise ValueError(say("unknown_side", side=side))
    if not names:
        raise TypeError(say("no_names"))
    for name in names:
        part_named(name)
    for name in names:
        resolve.set_preference(name, side)
        print(say(f"prefer_{side}", part=name))


def build():
    """Write the package ``my_toolkit/`` (``pip install ./my_toolkit``) with every part that is
    yours now; its folder."""
    from course_lib.toolkit.resolve import build_package

    return build_package()


__all__ = ["PARTS", "Choice", "Part", "PartsTable", "build", "parts", "prefer", "use"]
