"""The README's first command, `bash scripts/start.sh`, starts JupyterLab on notebooks/ (in this
checkout, with the environment the tests run in)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from lab_server import free_port, stop

ROOT = Path(__file__).resolve().parents[1]


def get_json(url: str) -> object | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return json.loads(reply.read())
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def test_start_script_serves_the_student_notebooks_on_loopback(tmp_path):
    port, token = free_port(), "course-test"
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config")}
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    # python3 is this environment's (the one the tests run in), so the launcher reuses this
    # checkout's .venv as it is; tests/launcher/ runs the launcher on fresh clones.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    process = subprocess.Popen(
        ["bash", "scripts/start.sh", "--no-browser", f"--port={port}",
         f"--ServerApp.token={token}"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        contents = None
        deadline = time.monotonic() + 90
        while contents is None and time.monotonic() < deadline:
            assert process.poll() is None, "scripts/start.sh exited before JupyterLab answered"
            contents = get_json(f"http://127.0.0.1:{port}/api/contents?token={token}")
            time.sleep(0.5)
        assert contents is not None, "JupyterLab did not answer within 90 s"
        names = {item["name"] for item in contents["content"]}
        expected = {path.name for path in (ROOT / "notebooks").glob("*.ipynb")}
        assert expected and expected <= names, f"not serving notebooks/: {sorted(names)}"
    finally:
        stop(process, group=True, seconds=20)
