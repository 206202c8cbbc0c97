"""One fresh clone, set up once by the launcher's first start, shared by the whole session.

Making a course environment from nothing downloads and installs about a hundred packages, so
the tests that need one share it: ``first_start`` runs ``bash scripts/start.sh`` in a fresh
clone, from ``env -i`` with a minimal PATH, as ``nobody`` when the tests run as root, and keeps
that JupyterLab running for the tests that talk to it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from lab_client import Lab
from learner import (
    MINIMAL_PATH,
    ROOT,
    Learner,
    remove_in_background,
    stop,
    world_readable_folder,
)

sys.path.insert(0, str(ROOT / "scripts"))  # the launcher's parts, for the tests of its pieces

START_URL = re.compile(r"http://127\.0\.0\.1:\d+/lab/tree/00_welcome\.ipynb\?token=\w+")
# Generous: a first start downloads the course's packages on a loaded 2-core machine.
FIRST_START_SECONDS = 600


def minimal_path_python_is_usable() -> bool:
    python = shutil.which("python3", path=MINIMAL_PATH)
    if python is None:
        return False
    probe = [python, "-c", "import sys, ensurepip; sys.exit(sys.version_info < (3, 10))"]
    return subprocess.run(probe, capture_output=True).returncode == 0


@dataclass
class StartedCourse:
    """The first start: its JupyterLab (still running), the URL it printed, its output."""

    lab: Lab
    url: str
    log: Path
    process: subprocess.Popen

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="session")
def learner() -> Iterator[Learner]:
    if not sys.platform.startswith("linux"):
        pytest.skip("the fresh-clone tests use Linux tools (env -i, setpriv, unshare)")
    if not minimal_path_python_is_usable():
        pytest.skip(f"no python3 >= 3.10 with venv on the minimal PATH {MINIMAL_PATH}")
    base = world_readable_folder("course-launcher-")
    try:
        yield Learner.make(base)
    finally:
        remove_in_background(base)


@pytest.fixture(scope="session")
def first_start(learner: Learner) -> Iterator[StartedCourse]:
    write_decoy_shell_files(learner.home)
    log = learner.home.parent / "first-start.log"
    process = learner.start(["bash", "scripts/start.sh", "--no-browser"], log, SHELL="/bin/bash")
    try:
        url = wait_for_start_url(process, log)
        lab = Lab.from_url(url)
        while not lab.answers():
            assert process.poll() is None, f"JupyterLab stopped:\n{log.read_text()[-4000:]}"
            time.sleep(0.5)
        yield StartedCourse(lab, url, log, process)
    finally:
        stop(process)


def wait_for_start_url(process: subprocess.Popen, log: Path) -> str:
    deadline = time.monotonic() + FIRST_START_SECONDS
    while time.monotonic() < deadline:
        found = START_URL.search(log.read_text(errors="replace"))
        if found:
            return found.group(0)
        if process.poll() is not None:
            pytest.fail(f"the first start exited with {process.returncode}:\n{log.read_text()}")
        time.sleep(0.5)
    pytest.fail(f"no JupyterLab URL within {FIRST_START_SECONDS} s:\n{log.read_text()[-4000:]}")


DECOY_PYTHON = """#!/bin/sh
echo 'decoy python3: the course environment is not first on the PATH'
exit 3
"""


def write_decoy_shell_files(home: Path) -> None:
    """Start-up files that put a decoy ``python3`` first on the PATH, as ``pyenv init`` or
    ``conda init`` lines in a learner's ``~/.bashrc`` do."""
    decoy = home / "decoy-bin"
    decoy.mkdir(exist_ok=True)
    (decoy / "python3").write_text(DECOY_PYTHON)
    (decoy / "python3").chmod(0o755)
    line = f'PATH="{decoy}:$PATH"\n'
    (home / ".bashrc").write_text(line)
    (home / ".shrc").write_text(line)
    shutil.chown(decoy, *owner_of(home))
    for path in (decoy / "python3", home / ".bashrc", home / ".shrc"):
        shutil.chown(path, *owner_of(home))


def owner_of(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_uid, stat.st_gid


CHROMIUM = Path(os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium"))


@pytest.fixture(scope="module")
def page() -> Iterator[object]:
    """A headless page of Debian's Chromium, one browser per test module (the browser tests
    skip themselves where it is missing)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )  # fmt: skip
        try:
            yield browser.new_page(viewport={"width": 1280, "height": 800})
        finally:
            browser.close()
