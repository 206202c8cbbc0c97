"""Another Python than the one ``.venv`` was made with: the environment is made again with it,
and when that fails (no network, here) the previous environment is put back and still used.

A clone of its own (these tests replace its ``.venv``), set up by ``/usr/bin/python3``; the
other Python is a 3.10+ installation elsewhere on this machine (pyenv keeps several): of another
version for the setup that must fail offline, of the same version where there is one for the
setup that must succeed (it installs from the caches, as fast as it can). They run
as the user running the tests (the other Python may be readable by nobody else), with a copy of
the installers' caches the first start filled, so that setting up twice more stays quick.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from learner import (
    MINIMAL_PATH,
    fresh_clone,
    network_namespaces_work,
    remove_in_background,
    world_readable_folder,
)

VERSION = "import sys; print('%d.%d' % sys.version_info[:2])"
# A Python's version and its installation (a venv's says which one made it).
INSTALLATION = "import sys; print('%d.%d' % sys.version_info[:2], sys.base_prefix)"


def installation(python: Path | str) -> str:
    reply = subprocess.run([str(python), "-c", INSTALLATION], capture_output=True, text=True)
    return reply.stdout.strip()


def other_pythons() -> list[Path]:
    """The Pythons 3.10+ that are not ``/usr/bin/python3``'s installation (pyenv keeps several),
    one per version."""
    system = subprocess.run(
        ["/usr/bin/python3", "-c", VERSION], capture_output=True, text=True
    ).stdout.strip()
    system_home = installation("/usr/bin/python3").split(" ", 1)[1]
    found = []
    for folder in sorted(Path("/root/.pyenv/versions").glob("3.1[0-9].*/bin")):
        minor = folder.parent.name.rsplit(".", 1)[0]
        candidate = folder / f"python{minor}"
        if candidate.exists() and str(folder.parent) != system_home:
            found.append((minor == system, candidate))
    return [candidate for _, candidate in sorted(found, key=lambda pair: pair[0])]


def other_python() -> Path | None:
    """A Python 3.10+ of another installation than ``/usr/bin/python3``'s, of another version
    when there is one (no cache holds its wheels, so a setup with no network fails)."""
    others = other_pythons()
    return others[0] if others else None


def other_installation() -> Path | None:
    """A Python 3.10+ of another installation than ``/usr/bin/python3``'s, of the same version
    when there is one: the installers' caches the first start filled then hold every wheel the
    setup needs (the environment is still made again: the installation differs)."""
    others = other_pythons()
    return others[-1] if others else None


@dataclass
class Clone:
    root: Path
    home: Path

    def run(self, argv: list[str], *, path: str = MINIMAL_PATH, offline: bool = False, **extra):
        variables = {"HOME": str(self.home), "PATH": path, **extra}
        assignments = [f"{name}={value}" for name, value in variables.items()]
        command = ["env", "-i", *assignments, *argv]
        if offline:
            command = ["unshare", "--net", *command]
        return subprocess.run(
            command, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, timeout=900,
        )  # fmt: skip

    def venv_installation(self) -> str:
        """The version and the installation of the Python that made ``.venv``."""
        return installation(self.root / ".venv" / "bin" / "python")


@pytest.fixture(scope="module")
def clone(first_start, learner) -> Iterator[Clone]:
    if other_python() is None:
        pytest.skip("no second Python 3.10+ installation on this machine")
    base = world_readable_folder("course-rebuild-")
    try:
        made = Clone(fresh_clone(base / "course"), base / "home")
        # Hard links: a copy in no time, and the learner's own files stay as they are (the
        # installers write new cache entries as new files).
        shutil.copytree(learner.home / ".cache", made.home / ".cache", copy_function=os.link)
        # The first .venv is only where the tests start from: made with the uv the first start
        # installed on the PATH, not one pip fetches into it (the tests' own setups still do).
        tools = base / "uv-bin"
        tools.mkdir()
        (tools / "uv").symlink_to(learner.root / ".venv" / "bin" / "uv")
        setup = made.run(["python3", "scripts/course.py", "setup"], path=f"{tools}:{MINIMAL_PATH}")
        assert setup.returncode == 0, setup.stdout
        yield made
    finally:
        remove_in_background(base)


def test_a_rebuild_that_fails_puts_the_previous_environment_back_and_goes_on(clone):
    if not network_namespaces_work():
        pytest.skip("needs a network namespace (unshare --net) to take the network away")
    before = (clone.root / ".venv" / ".course-installed.json").read_text()
    other = other_python()
    result = clone.run(
        [str(other), "scripts/course.py", "setup"], offline=True, PIP_RETRIES="0",
    )  # fmt: skip
    assert "so it is made again with that one" in result.stdout, result.stdout
    assert "the previous environment" in result.stdout and "was put back" in result.stdout
    assert result.returncode == 0, result.stdout  # it still works, so the course goes on
    assert clone.venv_installation() != installation(other)
    assert (clone.root / ".venv" / ".course-installed.json").read_text() == before
    assert not (clone.root / ".venv.previous").exists()


def test_start_with_another_python_makes_the_environment_again_with_it(clone):
    other = other_installation()
    result = clone.run([str(other), "scripts/course.py", "setup"])
    assert result.returncode == 0, result.stdout
    assert "so it is made again with that one" in result.stdout, result.stdout
    assert clone.venv_installation() == installation(other)
    stamp = json.loads((clone.root / ".venv" / ".course-installed.json").read_text())
    assert stamp["root"] == str(clone.root)
    assert not (clone.root / ".venv.previous").exists()
    check_again = clone.run([str(other), "scripts/course.py", "setup"])
    assert "made again" not in check_again.stdout and "Install" not in check_again.stdout
