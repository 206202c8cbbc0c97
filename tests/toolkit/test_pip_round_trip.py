"""After the course: the toolkit a solved course produces, installed with pip into a fresh
virtual environment, completes a tool round trip against the local model over HTTP, as it would
against a real provider (the ``openai`` SDK with ``base_url`` and a key).

A solved course here is the solution notebooks as the learner's notebooks, each exercise's pass
recorded on its saved cell (``state.record_pass``; that a passing check records exactly this is
``test_use_in_kernel``'s). ``course toolkit`` writes ``my_toolkit/``. The fresh environment
already holds what the course's own holds (a ``.pth`` adds the course environment's packages, as
a learner's environment with ``openai`` installed would), so ``pip install ./my_toolkit`` runs as
a learner types it: it builds the package (setuptools, in pip's isolated build environment, from
the indexes pip is configured with) and the course's library from the course folder it names.

pip itself is among what the course environment holds: the fresh environment's own Python runs
it from there and installs into the fresh environment (``ensurepip`` would add seconds and prove
nothing here). The local model starts while the toolkit is written and
installed; the round trip waits for its address only when it needs it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import venv
from pathlib import Path

import pytest

from course_lib.toolkit import export, state

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ("04_registry", "05_agent_loop", "06_hardening", "07_other_protocols", "08_mcp")

ROUND_TRIP = textwrap.dedent(
    """
    import json, sys
    import openai
    import my_toolkit
    from my_toolkit import ToolRegistry, run_agent

    client = openai.OpenAI(base_url=sys.argv[1], api_key="sk-not-checked-by-the-local-model")
    model = client.models.list().data[0].id
    registry = ToolRegistry()
    calls = []

    @registry.tool
    def get_weather(city: str) -> str:
        \"\"\"The weather in a city now.\"\"\"
        calls.append(city)
        return "31°C, sunny"

    result = run_agent(client, registry, "What's the weather in Beijing now?", model=model)
    print(json.dumps({
        "file": my_toolkit.__file__,
        "registry": ToolRegistry.__module__ + "." + ToolRegistry.__name__,
        "calls": calls,
        "stopped": result.stopped,
        "answer": result.answer,
        "tool_messages": [m["content"] for m in result.messages if m["role"] == "tool"],
    }))
    """
)


def solved_course(home: Path) -> dict[str, str]:
    env = {**os.environ, state.HOME_VARIABLE: str(home)}
    env[state.NOTEBOOKS_VARIABLE] = str(ROOT / "solutions")
    os.environ.update({k: env[k] for k in (state.HOME_VARIABLE, state.NOTEBOOKS_VARIABLE)})
    try:
        for slug in LESSONS:
            cells = export.read_notebook(ROOT / "solutions" / f"{slug}.ipynb")
            for exercise, source in cells.answers.items():
                state.record_pass(exercise, source)
    finally:
        for key in (state.HOME_VARIABLE, state.NOTEBOOKS_VARIABLE):
            os.environ.pop(key, None)
    return env


def fresh_venv(folder: Path) -> Path:
    # The course environment's pip, reached through the .pth below like every other package;
    # ensurepip only where that environment has none.
    venv.EnvBuilder(with_pip=importlib.util.find_spec("pip") is None).create(folder)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    course_packages = sysconfig.get_paths()["purelib"]
    line = f"import site; site.addsitedir({course_packages!r})\n"
    (Path(purelib) / "course_environment.pth").write_text(line, encoding="utf-8")
    return python


@pytest.fixture()
def served_model():
    """The local model, starting: call the value for its address (it waits for the banner)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "course_lib", "serve-model", "--port", "0"],
        cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip

    def address() -> str:
        banner = process.stdout.readline()
        assert "http://127.0.0.1:" in banner, banner
        return banner.split()[4]

    try:
        yield address
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
        process.stderr.close()


def test_the_pip_installed_toolkit_completes_a_tool_round_trip_over_http(tmp_path, served_model):
    env = solved_course(tmp_path / "course" / "my_toolkit")
    built = subprocess.run(
        [sys.executable, "-m", "course_lib", "toolkit"], env=env, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    assert "22 of 22 parts are yours" in built.stdout
    python = fresh_venv(tmp_path / "venv")
    install = subprocess.run(
        [str(python), "-m", "pip", "install", str(tmp_path / "course" / "my_toolkit")],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    # Run from elsewhere, with no course variables: only what pip installed is there to find.
    clean = {k: v for k, v in os.environ.items() if not k.startswith("COURSE_")}
    ran = subprocess.run(
        [str(python), "-c", ROUND_TRIP, served_model()],
        capture_output=True, text=True, cwd=tmp_path, env=clean,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-3000:]
    got = json.loads(ran.stdout)
    assert got["file"].startswith(str(tmp_path / "venv"))
    assert got["registry"] == "my_toolkit.lesson04.DispatchRegistry"
    assert got["calls"] == ["Beijing"]
    assert got["tool_messages"] == ["31°C, sunny"]
    assert got["stopped"] == "answer" and "31°C" in got["answer"]
