"""The grading side imports no ipywidgets: every check module loads in a process without it.

A check runs where the grader runs (a server, a CI job) and draws what it shows as text
(``course_lib.widgets.conversation_text``); the live widgets are the notebook's. The modules are
imported, and a failed capstone scenario's conversation drawn, in a fresh interpreter, so nothing
this test session loaded counts.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import importlib, json, pkgutil, sys
import course_lib.checks as checks
names = sorted(m.name for m in pkgutil.walk_packages(checks.__path__, checks.__name__ + "."))
for name in names:
    importlib.import_module(name)
imported = "ipywidgets" in sys.modules
# A failed scenario's detail draws the conversation the model received (09.1's verdict).
from course_lib.capstone.scenarios import visible_scenarios
from course_lib.checks.learner import Exchange
from course_lib.checks.lesson09.assistant.run import Asked, Evidence
from course_lib.checks.lesson09.assistant.verdict import conversation
call = {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}
request = {"messages": [{"role": "user", "content": "Where is A-1?"}]}
reply = {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]}
asked = Asked("Where is A-1?", [Exchange(request, 200, reply)])
drawn = conversation(Evidence(visible_scenarios()["price"], [asked]), asked)
print(json.dumps({"modules": names, "ipywidgets": imported, "drawn": drawn,
                  "drawing_ipywidgets": "ipywidgets" in sys.modules}))
"""


def probe(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_every_check_module_leaves_ipywidgets_out():
    found = probe(PROBE)
    assert "course_lib.checks.lesson09.assistant.verdict" in found["modules"]
    assert len(found["modules"]) > 50
    assert found["ipywidgets"] is False
    assert "call [c1] get_order" in found["drawn"]
    assert "unanswered call c1" in found["drawn"]
    assert found["drawing_ipywidgets"] is False


def test_the_probe_sees_ipywidgets_when_a_widget_is_imported():
    # The same probe, with one widget imported first: it must notice.
    found = probe("import course_lib.widgets.conversation\n" + PROBE)
    assert found["ipywidgets"] is True
    assert found["drawing_ipywidgets"] is True
