"""A JupyterLab server for the tests that start one: a free port, its settings, waiting until it
answers, and stopping it (and, for a launcher, everything it started)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

# For a JupyterLab started with ``--LabApp.expose_app_in_browser=True`` (``window.jupyterapp``):
# it is up once its shell is drawn and its document commands are there.
STARTED = """() => window.jupyterapp !== undefined
  && document.querySelector('.jp-LabShell') !== null
  && window.jupyterapp.commands.hasCommand('docmanager:open')"""
# Close whatever the main area shows (without asking to save: a notebook that ran is changed),
# then open ``path``, as the file browser does; with no kernel when ``kernel`` is false.
OPEN_ALONE = """async ([path, kernel]) => {
  const app = window.jupyterapp;
  await app.restored;  // what the address or the workspace opens is open by now
  for (const widget of [...app.shell.widgets('main')]) widget.dispose();
  const args = kernel ? {path} : {path, kernelPreference: {shouldStart: false, canStart: false}};
  await app.commands.execute('docmanager:open', args);
}"""


def open_alone(page, path: str, *, kernel: bool = True) -> None:
    """In the JupyterLab loaded in the Playwright ``page``, close every document and open
    ``path`` (relative to its root) instead: a few seconds sooner than loading JupyterLab again
    for it. Returns once the command has run; the caller waits for what it needs."""
    page.evaluate(OPEN_ALONE, [path, kernel])


# The cell is the notebook's active one and its editor has the keyboard.
HAS_THE_KEYBOARD = (
    "cell => cell.classList.contains('jp-mod-active') && cell.contains(document.activeElement)"
)


def click_into(cell, *, seconds: float) -> None:
    """Click into the editor of ``cell`` (a Playwright locator of a ``.jp-CodeCell``), again
    until the cell has the keyboard (``seconds`` bounds a hang). A notebook still laying itself
    out (its markdown renders after its code cells) can move another cell under the pointer
    between Playwright's checks and the click: seen on a busy machine, where Shift+Enter then
    rendered a markdown cell and the code cell never ran."""
    deadline = time.monotonic() + seconds
    while True:
        cell.scroll_into_view_if_needed()
        cell.locator(".jp-InputArea-editor").click()
        if cell.evaluate(HAS_THE_KEYBOARD) or time.monotonic() > deadline:
            return
        time.sleep(0.2)


def start_kernel_ahead(url: str, token: str, path: str) -> None:
    """Start the kernel of the notebook ``path`` (under the server's root) before a page opens
    it, as opening it would: a session for it. JupyterLab connects a notebook it opens to the
    session of its path, so the kernel starts while the test does something else instead of
    while it waits. In a thread of its own, not waited for; should it fail, the notebook starts
    its kernel itself when opened, as without this."""

    def start() -> None:
        body = {"path": path, "name": Path(path).name, "type": "notebook"}
        request = urllib.request.Request(
            f"{url}/api/sessions",
            data=json.dumps({**body, "kernel": {"name": "python3"}}).encode(),
            method="POST",
            headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        )
        with suppress(OSError), urllib.request.urlopen(request, timeout=60):
            pass

    threading.Thread(target=start, daemon=True).start()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_settings(folder: Path, settings: Mapping[str, dict]) -> None:
    """JupyterLab user settings, one file per plugin, in ``folder``."""
    for plugin, values in settings.items():
        path = folder / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


def wait_until_up(
    url: str, token: str, process: subprocess.Popen, log: Path, seconds: float = 90
) -> None:
    """Return once the server at ``url`` answers; fail with its log if it exits or never does
    (``seconds`` bounds a hung start; it is not a speed requirement)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"JupyterLab exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        request = urllib.request.Request(
            f"{url}/api/status", headers={"Authorization": f"token {token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    pytest.fail(f"JupyterLab did not answer within {seconds:g} s:\n{log.read_text()[-3000:]}")


def stop(process: subprocess.Popen, *, group: bool = False, seconds: float = 15) -> None:
    """Stop ``process`` (with ``group``: its whole process group, as a launcher that started
    JupyterLab needs): a terminate, then a kill if it has not ended within ``seconds``."""
    if group:  # what is left of the group too, should its leader have ended already
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
    elif process.poll() is None:
        process.terminate()
    else:
        return
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        if group:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        process.wait()


@contextmanager
def serving(
    command: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    port: int,
    token: str,
    log: Path,
    seconds: float = 90,
) -> Iterator[str]:
    """Run the JupyterLab ``command`` (its output in ``log``) until the ``with`` ends; yields its
    address, once it answers."""
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, token, process, log, seconds)
        yield url
    finally:
        stop(process)
