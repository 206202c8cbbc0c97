"""The grader's word to a grading kernel: which parts of earlier lessons are the learner's.

The grader grades a student's lessons in order (``course_lib.grading.toolkit_plan``) and, before
lesson N's first cell, calls ``configure`` in N's kernel with the parts of lessons before N whose
exercises passed the grader's own checks, and the code of those lessons' modules (built in the
grader's process from the submitted answers). From then on the kernel's ``toolkit.use`` reads
nothing else: no course folder, no recorded passes, no notebook. A part of lesson N or later is
refused (it is what this lesson asks the learner to write), and every other part is the
course's. The kernel could change this, but only for its own demo cells: the checks that decide
the grade run in the grader's process.
"""

from __future__ import annotations

import json

from course_lib.toolkit import resolve


def configure(manifest_json: str) -> str:
    """Take the grader's manifest (JSON: ``lesson``, ``modules``, ``mine``)."""
    manifest = json.loads(manifest_json)
    resolve.GRADING = resolve.Grading(
        lesson=str(manifest["lesson"]),
        modules={str(k): str(v) for k, v in manifest.get("modules", {}).items()},
        mine={str(k): [str(x) for x in v] for k, v in manifest.get("mine", {}).items()},
    )
    return "configured"
