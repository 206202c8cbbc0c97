"""What the toolkit remembers between sessions: which checks passed on which source, and which
parts the learner switched to the course's knowingly.

Both live in ``<home>/course-state.json`` beside the exported package (``<home>`` is the
course folder's ``my_toolkit/``, or ``COURSE_TOOLKIT_HOME``). A pass is recorded as the SHA-256
of the exercise cell's source, normalized (line ends, trailing blanks), so that the same code
saved by JupyterLab and run by IPython hashes the same; a cell changed since is not trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HOME_VARIABLE = "COURSE_TOOLKIT_HOME"
NOTEBOOKS_VARIABLE = "COURSE_TOOLKIT_NOTEBOOKS"
STATE_FILE = "course-state.json"
COURSE_ROOT = Path(__file__).resolve().parents[2]


def home() -> Path:
    """The folder of the learner's toolkit project (``my_toolkit/`` in the course folder)."""
    return Path(os.environ.get(HOME_VARIABLE) or COURSE_ROOT / "my_toolkit")


def notebooks() -> Path:
    """The folder of the learner's notebooks (``notebooks/`` in the course folder)."""
    return Path(os.environ.get(NOTEBOOKS_VARIABLE) or COURSE_ROOT / "notebooks")


def source_hash(source: str) -> str:
    """The hash a pass is recorded under: the same for the cell as saved and as run."""
    lines = source.replace("\r\n", "\n").replace("\r", "\n").strip("\n").split("\n")
    text = "\n".join(line.rstrip() for line in lines)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load() -> dict[str, Any]:
    """The state, or an empty one when there is none or it cannot be read."""
    try:
        data = json.loads((home() / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"passed": {}, "prefer": {}}
    if not isinstance(data, dict):
        return {"passed": {}, "prefer": {}}
    passed = data.get("passed") if isinstance(data.get("passed"), dict) else {}
    prefer = data.get("prefer") if isinstance(data.get("prefer"), dict) else {}
    return {"passed": passed, "prefer": prefer}


def save(state: dict[str, Any]) -> None:
    """Write the state whole (to a temporary file first: a reader never sees half of it)."""
    folder = home()
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(state, indent=1, sort_keys=True, ensure_ascii=False)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".state-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        os.replace(temporary, folder / STATE_FILE)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def record_pass(exercise_id: str, source: str) -> None:
    """Remember that ``exercise_id``'s check passed on ``source``."""
    state = load()
    state["passed"][exercise_id] = source_hash(source)
    save(state)


def set_preference(part: str, side: str) -> None:
    state = load()
    if side == "mine":
        state["prefer"].pop(part, None)
    else:
        state["prefer"][part] = side
    save(state)


@contextlib.contextmanager
def untouched_environment() -> Iterator[dict[str, str]]:
    """An environment for a kernel whose toolkit has recorded no pass (a temporary home, removed
    afterwards): how the course's own notebooks run under nbval and ``course execute``, so that
    their stored outputs show what a learner who starts a lesson cold sees, whatever passes the
    author's own course folder holds."""
    with tempfile.TemporaryDirectory(prefix="course-toolkit-") as folder:
        yield {**os.environ, HOME_VARIABLE: folder}


def record_passes_of(notebook: Path, exercises: list[str]) -> None:
    """Record that ``exercises`` passed on the exercise cells ``notebook`` holds (the self-check,
    ``python -m course_lib check``); nothing when the notebook cannot be read or written."""
    from course_lib.toolkit.export import read_notebook

    try:
        answers = read_notebook(notebook).answers
        state = load()
        for exercise in exercises:
            if exercise in answers:
                state["passed"][exercise] = source_hash(answers[exercise])
        save(state)
    except (OSError, ValueError, AttributeError, TypeError):
        return
