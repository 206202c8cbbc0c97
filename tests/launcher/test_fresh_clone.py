"""The launcher in a fresh clone, as a learner meets it.

All tests share one clone and the environment its first start made (``conftest.py``); they run
in the order written, and the ones that change that environment come last. Every command runs
from ``env -i`` with a minimal PATH and, when the tests run as root, as ``nobody``. Runs that
only read that environment and keep a core busy for seconds (the self-check in its three
places, lesson 00's two editions under nbval) run side by side: the suite itself runs serially,
and one after another they left a core idle.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from kernel_start import lost_its_kernel_at_start
from lab_client import run_in_notebook_cell, type_in_terminal
from learner import MINIMAL_PATH, ROOT, network_namespaces_work
from self_check_command import readme_self_check

SCORECARD = "00_welcome: 0 / 1 points"  # what the self-check says of the untouched lesson 00
NOT_DONE = "todo 00.1"


def venv_stamp(root: Path) -> dict:
    return json.loads((root / ".venv" / ".course-installed.json").read_text())


# -- the first start ---------------------------------------------------------------------------


def test_the_first_start_sets_up_a_fresh_clone_from_a_clean_environment(first_start, learner):
    output = first_start.output
    assert "Creating the course's environment" in output, output
    assert "Installed with uv" in output, output
    served = {item["name"] for item in first_start.lab.api("GET", "/api/contents")["content"]}
    lessons = {path.name for path in (learner.root / "notebooks").glob("*.ipynb")}
    assert lessons and lessons <= served, f"not serving notebooks/: {sorted(served)}"


def test_the_fresh_environment_has_pip_for_percent_pip_though_venv_made_it_without(learner):
    # .venv is made with --without-pip (ensurepip costs seconds of a first start); uv puts pip in
    python = learner.root / ".venv" / "bin" / "python"
    reply = subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True, text=True)
    assert reply.returncode == 0 and str(learner.root / ".venv") in reply.stdout, reply


def jupyterlab_users(process_group: int) -> set[int]:
    """The user ids of the JupyterLab processes in ``process_group``."""
    users = set()
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or os.getpgid(int(entry.name)) != process_group:
                continue
            command = (entry / "cmdline").read_bytes().split(b"\0")
            status = (entry / "status").read_text()
        except (OSError, ProcessLookupError):
            continue
        if b"jupyterlab" in command:
            uid_line = next(line for line in status.splitlines() if line.startswith("Uid:"))
            users.add(int(uid_line.split()[1]))
    return users


def test_the_first_start_ran_as_a_user_who_is_not_root(first_start, learner):
    assert learner.uid != 0
    assert (learner.root / ".venv" / "bin" / "python").lstat().st_uid == learner.uid
    assert jupyterlab_users(first_start.process.pid) == {learner.uid}


def test_the_start_output_says_what_to_open_first_and_how_to_check_it(first_start):
    output = first_start.output
    assert "It opens 00_welcome.ipynb: start there." in output
    assert readme_self_check() in output
    assert first_start.url.split("?")[0].endswith("/lab/tree/00_welcome.ipynb")


def test_the_environment_has_the_lab_settings_that_silence_news_and_update_checks(learner):
    overrides = learner.root / ".venv/share/jupyter/lab/settings/overrides.json"
    settings = json.loads(overrides.read_text())["@jupyterlab/apputils-extension:notification"]
    assert settings == {"fetchNews": "false", "checkForUpdates": False}


# -- the self-check, verbatim, everywhere the README says it works -----------------------------


@pytest.fixture(scope="module")
def self_checks(first_start, learner) -> Iterator[dict[str, Future]]:
    """The README's self-check run in its three places at once; each test below waits for its
    own. Each run is a grading (a kernel running lesson 00's checks), about one core's work for
    several seconds: one after another, they left the machine's other core idle."""
    command = readme_self_check()
    typed = [command, "echo COURSE-DONE-$?"]
    with ThreadPoolExecutor(3) as pool:
        yield {
            "fresh terminal": pool.submit(learner.run, ["sh", "-c", command]),
            "JupyterLab's Terminal": pool.submit(
                type_in_terminal, first_start.lab, typed, until=r"COURSE-DONE-\d"
            ),
            "notebook cell": pool.submit(
                run_in_notebook_cell, first_start.lab, "00_welcome.ipynb", "!" + command
            ),
        }


def test_the_readme_self_check_works_verbatim_in_a_fresh_terminal(self_checks):
    result = self_checks["fresh terminal"].result()
    assert SCORECARD in result.stdout and NOT_DONE in result.stdout, result.stdout
    assert result.returncode == 1  # the exercise is not done yet


def test_the_readme_self_check_works_verbatim_in_jupyterlabs_terminal(self_checks):
    # The learner's ~/.bashrc puts a decoy python3 first (as pyenv or conda init lines do);
    # the Terminal must still find the course's Python.
    screen = self_checks["JupyterLab's Terminal"].result()
    assert "decoy python3" not in screen, screen
    assert SCORECARD in screen and "COURSE-DONE-1" in screen, screen


def test_the_readme_self_check_works_verbatim_in_a_notebook_cell(self_checks):
    output = self_checks["notebook cell"].result()
    assert SCORECARD in output and NOT_DONE in output, output


# -- starting again, offline ---------------------------------------------------------------------


def test_the_plain_install_imports_everything_the_lessons_and_the_library_import(
    first_start, learner
):
    """What a learner's start installs (the base dependencies, no dev extra) has every package
    that a lesson's code cells or the course library import, at any depth (a check may import a
    package only when it runs): a lesson that needs a dev-only package fails here. The probe
    reads the imports from the sources (``import_probe.py``); running every lesson under nbval
    here cost 12% of the suite and repeated tests/test_notebooks.py, which runs them all."""
    python = str(learner.root / ".venv" / "bin" / "python")
    dev_only = learner.run(
        [python, "-c", "import importlib.metadata as m; m.version('pytest-xdist')"]
    )
    assert dev_only.returncode != 0, "the first start installed the dev extra: this proves nothing"
    probe = learner.run([python, "tests/launcher/import_probe.py", str(learner.root)])
    assert probe.returncode == 0, probe.stdout
    assert "openai" in probe.stdout and "anthropic" in probe.stdout, probe.stdout


def test_a_lesson_passes_strict_nbval_on_the_plain_install_in_both_editions(first_start, learner):
    """Lesson 00, English and translated, outputs and all, as a learner who starts it cold
    (its own empty toolkit home, as tests/test_notebooks.py runs them): the plain install runs
    a lesson's kernel and its check, and reads a translated edition. The editions run at the
    same time, each in its own pytest with its own kernel and home."""
    solutions = learner.root / "solutions"
    editions = [solutions / "00_welcome.ipynb", *sorted(solutions.glob("*/00_welcome.ipynb"))]
    notebooks = [str(solution.relative_to(learner.root)) for solution in editions]
    with ThreadPoolExecutor(len(notebooks)) as pool:
        runs = list(pool.map(lambda notebook: strict_nbval(learner, notebook), notebooks))
    for notebook, run in zip(notebooks, runs, strict=True):
        assert run.returncode == 0, f"{notebook}:\n{run.stdout[-8000:]}"


def strict_nbval(learner, notebook: str) -> subprocess.CompletedProcess:
    """``notebook`` under strict nbval with the plain install's Python, in an empty toolkit home."""
    python = str(learner.root / ".venv" / "bin" / "python")
    home = Path(tempfile.mkdtemp(prefix="course-toolkit-"))
    home.chmod(0o777)  # the learner's uid writes there
    command = [
        python, "-m", "pytest", "--nbval", "--nbval-current-env",
        "--nbval-sanitize-with", "tests/nbval_sanitize.cfg", "--nbval-cell-timeout", "120",
        "-p", "no:cacheprovider", "-q", "-o", "addopts=", notebook,
    ]  # fmt: skip
    try:
        run = learner.run(command, timeout=3600, COURSE_TOOLKIT_HOME=str(home))
        if run.returncode != 0 and lost_its_kernel_at_start(run.stdout):
            run = learner.run(command, timeout=3600, COURSE_TOOLKIT_HOME=str(home))
        return run
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_the_second_start_needs_no_network(first_start, learner):
    stamp_before = venv_stamp(learner.root)
    probe = learner.command(
        ["python3", "tests/launcher/offline_probe.py", str(learner.root)],
        PIP_NO_INDEX="1", UV_OFFLINE="1", PIP_RETRIES="0",
    )  # fmt: skip
    if network_namespaces_work():  # loopback only: no route to any registry
        probe = ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *probe]
    result = subprocess.run(probe, cwd=learner.root, capture_output=True, text=True, timeout=600)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    lessons = sorted(path.name for path in (learner.root / "notebooks").glob("*.ipynb"))
    assert report["served"] is not None, report["output"]
    assert set(lessons) <= set(report["served"]), report
    assert "Installing" not in report["output"], report["output"]
    assert venv_stamp(learner.root) == stamp_before


# -- a Python that is too old ----------------------------------------------------------------------

FAKE_SITE = """import os, sys
sys.version_info = (3, 9, 18, "final", 0)  # what macOS's python3 reports
os.environ.pop("PYTHONPATH", None)  # only this interpreter pretends, not those it starts
"""


def fake_old_python(folder: Path, real: str) -> Path:
    """A ``python3`` that says it is 3.9 (a real interpreter with a ``sitecustomize``)."""
    site = folder / "site"
    site.mkdir(parents=True)
    (site / "sitecustomize.py").write_text(FAKE_SITE)
    fake = folder / "bin" / "python3"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{real}" "$@"\n')
    fake.chmod(0o755)
    folder.chmod(0o755)
    return fake.parent


def tools_without_python(folder: Path) -> Path:
    """A folder with what the wrappers need (bash, dirname) and no Python."""
    folder.mkdir()
    for tool in ("bash", "dirname", "env"):
        (folder / tool).symlink_to(f"/usr/bin/{tool}" if tool != "bash" else "/bin/bash")
    folder.chmod(0o755)
    return folder


@pytest.fixture
def old_python_first(learner) -> Path:
    base = learner.home.parent / "too-old"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir()
    base.chmod(0o755)
    return fake_old_python(base / "fake", "/usr/bin/python3")


def test_a_too_old_python3_alone_gets_a_clear_message_and_no_traceback(learner, old_python_first):
    tools = tools_without_python(old_python_first.parent / "tools")
    result = learner.run(["bash", "scripts/start.sh"], path=f"{old_python_first}:{tools}")
    assert result.returncode == 1, result.stdout
    assert "The course needs Python 3.10 or newer" in result.stdout, result.stdout
    assert "is Python 3.9.18" in result.stdout, result.stdout
    assert "conda env create -f environment.yml" in result.stdout, result.stdout
    assert "Traceback" not in result.stdout, result.stdout


def test_a_too_old_python3_first_on_the_path_hands_over_to_a_newer_one(learner, old_python_first):
    path = f"{old_python_first}:{MINIMAL_PATH}"
    result = learner.run(["bash", "scripts/setup-venv.sh"], path=path)
    assert result.returncode == 0, result.stdout
    assert "too old for the course; using /usr/bin/python3" in result.stdout, result.stdout
    assert "The course's environment is ready" in result.stdout, result.stdout
    assert "Installing" not in result.stdout and "Creating" not in result.stdout, result.stdout


def real_old_pythons() -> list[str]:
    """Interpreters older than 3.10 on this machine (pyenv keeps several), if any."""
    found = []
    for minor in range(6, 10):
        for folder in sorted(Path("/root/.pyenv/versions").glob(f"3.{minor}.*/bin")):
            candidate = folder / f"python3.{minor}"
            if os.access(candidate, os.X_OK):
                found.append(str(candidate))
                break
    return found


@pytest.mark.parametrize("old", real_old_pythons() or [None], ids=lambda p: Path(p or "none").name)
def test_a_real_old_python_runs_the_launcher_to_a_clear_message(tmp_path, old):
    if old is None:
        pytest.skip("no interpreter older than 3.10 on this machine (the fake one is tested)")
    lone = tmp_path / "bin"
    lone.mkdir()
    (lone / "python3").symlink_to(old)
    result = subprocess.run(
        ["python3", str(ROOT / "scripts/course.py"), "start"],
        env={"PATH": str(lone), "HOME": str(tmp_path)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert "The course needs Python 3.10 or newer" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr, result.stderr


# -- the wrappers ------------------------------------------------------------------------------


@pytest.mark.parametrize("shell", [["dash"], ["bash", "--posix"]], ids=["dash", "bash-posix"])
def test_the_wrappers_run_under_a_strict_posix_shell(first_start, learner, shell):
    """bash 3.2 (macOS) runs all of POSIX sh; a wrapper that dash runs needs nothing newer."""
    if shutil.which(shell[0], path=MINIMAL_PATH) is None:
        pytest.skip(f"{shell[0]} is not installed")
    setup = learner.run([*shell, "scripts/setup-venv.sh"])
    assert setup.returncode == 0 and "environment is ready" in setup.stdout, setup.stdout
    if shell == ["dash"]:  # start.sh passes its arguments on: JupyterLab prints its version
        start = learner.run([*shell, "scripts/start.sh", "--version"])
        assert start.returncode == 0 and "00_welcome.ipynb" in start.stdout, start.stdout


# -- conda -------------------------------------------------------------------------------------


def fake_conda_prefix(folder: Path, learner) -> Path:
    """A real Python environment that looks active to conda's variables (conda-meta/ inside)."""
    # Without pip (ensurepip costs seconds): with a uv on the PATH the launcher installs into a
    # conda environment with uv and never runs its pip.
    made = learner.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(folder)])
    assert made.returncode == 0, made.stdout
    (folder / "conda-meta").mkdir()
    return folder


def uv_on_path(learner) -> str:
    """A PATH with a uv (the one the first start installed), as a conda user with uv has."""
    folder = learner.home.parent / "uv-bin"  # made by the tests (root), read by the learner
    folder.mkdir(exist_ok=True)
    if not (folder / "uv").exists():
        (folder / "uv").symlink_to(learner.root / ".venv" / "bin" / "uv")
    return f"{folder}:{MINIMAL_PATH}"


def test_an_active_conda_environment_is_used_instead_of_venv(first_start, learner):
    prefix = fake_conda_prefix(learner.home / "conda-course", learner)
    stamp_before = venv_stamp(learner.root)
    result = learner.run(
        [str(prefix / "bin" / "python"), "scripts/course.py", "setup"],
        path=f"{prefix / 'bin'}:{uv_on_path(learner)}",
        CONDA_PREFIX=str(prefix), CONDA_DEFAULT_ENV="course",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout
    assert f"Using the active conda environment course ({prefix})" in result.stdout
    imports = learner.run([str(prefix / "bin" / "python"), "-c", "import course_lib, jupyterlab"])
    assert imports.returncode == 0, imports.stdout
    assert (prefix / "share/jupyter/lab/settings/overrides.json").exists()
    assert venv_stamp(learner.root) == stamp_before


def test_condas_base_environment_is_not_installed_into(first_start, learner):
    prefix = learner.home.parent / "conda-base"  # conda's own folders; its Python is not used
    for folder in ("conda-meta", "condabin"):
        (prefix / folder).mkdir(parents=True, exist_ok=True)
    setup = ["python3", "scripts/course.py", "setup"]
    result = learner.run(setup, CONDA_PREFIX=str(prefix), CONDA_DEFAULT_ENV="base")
    assert result.returncode == 0, result.stdout
    assert "conda's base environment is active" in result.stdout, result.stdout
    assert f"environment is ready: {learner.root / '.venv'}" in result.stdout, result.stdout
    assert not (prefix / ".course-installed.json").exists()


def test_a_conda_environment_with_an_old_python_gets_a_clear_message(learner, old_python_first):
    prefix = learner.home.parent / "conda-old"
    (prefix / "bin").mkdir(parents=True, exist_ok=True)
    (prefix / "conda-meta").mkdir(exist_ok=True)
    (prefix / "bin" / "python").unlink(missing_ok=True)
    (prefix / "bin" / "python").symlink_to(old_python_first / "python3")
    setup = ["python3", "scripts/course.py", "setup"]
    result = learner.run(setup, CONDA_PREFIX=str(prefix), CONDA_DEFAULT_ENV="old")
    assert result.returncode == 1, result.stdout
    assert "The active conda environment old has Python 3.9.18" in result.stdout, result.stdout
    assert "Traceback" not in result.stdout, result.stdout


# -- pyproject.toml changes --------------------------------------------------------------------


def test_a_changed_pyproject_toml_is_installed_again_then_nothing_more(first_start, learner):
    pyproject = learner.root / "pyproject.toml"
    stamp = learner.root / ".venv" / ".course-installed.json"
    original, original_stamp = pyproject.read_bytes(), stamp.read_bytes()
    try:
        pyproject.write_bytes(original + b"\n# a line a maintainer added\n")
        changed = learner.run(["python3", "scripts/course.py", "setup"])
        again = learner.run(["python3", "scripts/course.py", "setup"])
    finally:
        # Back in step for what follows: the same packages are installed (the change was a
        # comment), so the stamp of the original is true again; no third install needed.
        pyproject.write_bytes(original)
        stamp.write_bytes(original_stamp)
    assert changed.returncode == 0 and "installed again with uv" in changed.stdout, changed.stdout
    assert again.returncode == 0 and "Install" not in again.stdout, again.stdout
