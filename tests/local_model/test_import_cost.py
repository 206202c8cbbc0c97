"""What every lesson's first cell imports stays cheap to import.

``jsonschema`` is slow to import (``course_lib.schema_library`` says why and imports it without
the slow part), and grading kernels pay for every import again, for every submission, inside a
cell's time limit. The local model, the reference and the widgets load it on first use instead.
"""

from __future__ import annotations

import subprocess
import sys

LESSON_IMPORTS = "course_lib.local_model, course_lib.reference, course_lib.widgets"


def test_the_modules_lessons_import_do_not_import_jsonschema():
    slow = "('jsonschema', 'rfc3987')"
    code = f"import sys, {LESSON_IMPORTS}\nprint([m for m in sys.modules if m.startswith({slow})])"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_local_model_still_validates_strict_values_once_asked():
    from course_lib.local_model.strict_values import conform

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert conform({"n": "x"}, schema) != {"n": "x"}
