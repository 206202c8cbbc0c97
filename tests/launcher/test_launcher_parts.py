"""The launcher's decisions, one at a time: what it tells each system, which environment it
takes, when it installs again, what it writes for JupyterLab. (The fresh-clone tests run the
whole launcher; these pin down the choices that clone cannot show, such as Windows paths.)"""

from __future__ import annotations

import ast
import json
import os
import string
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from course_launcher import environment, find_python, install, jupyter, main, messages
from course_launcher.environment import CourseEnv, Interpreter

ROOT = Path(__file__).resolve().parents[2]

# -- what to install, per system -------------------------------------------------------------


@pytest.mark.parametrize(
    "platform, release, expected",
    [
        ("darwin", {}, "brew install python@3.12"),
        ("win32", {}, "winget install Python.Python.3.12"),
        ("linux", {"ID": "ubuntu", "VERSION_ID": "20.04"}, "ppa:deadsnakes/ppa"),
        ("linux", {"ID": "ubuntu", "VERSION_ID": "24.04"}, "sudo apt install python3 python3-venv"),
        ("linux", {"ID": "debian", "VERSION_ID": "11"}, "has no Python 3.10 package"),
        ("linux", {"ID": "debian", "VERSION_ID": "12"}, "sudo apt install python3 python3-venv"),
        ("linux", {"ID": "arch"}, "your system's package manager"),
    ],
)
def test_each_system_is_told_how_to_get_a_new_enough_python(platform, release, expected):
    advice = find_python.how_to_get(platform, release)
    texts = [messages.text(name, command="start", **fields) for name, fields in advice]
    assert any(expected in text for text in texts), texts
    assert "conda env create -f environment.yml" in texts[-1]  # conda works everywhere


def test_the_py_launchers_listing_gives_every_interpreter_path_even_with_spaces():
    listing = (
        " -V:3.12 *        C:\\Program Files\\Python312\\python.exe\n"
        " -V:3.10          C:\\Users\\Ada\\AppData\\Local\\Python310\\python.exe\n"
        " -3.9-64          C:\\Python39\\python.exe\n"
        "Installed Pythons found by py Launcher for Windows\n"
    )
    assert find_python.paths_in_py_listing(listing) == [
        "C:\\Program Files\\Python312\\python.exe",
        "C:\\Users\\Ada\\AppData\\Local\\Python310\\python.exe",
        "C:\\Python39\\python.exe",
    ]


def test_course_python_names_the_only_interpreter_asked():
    commands = find_python.candidate_commands({"COURSE_PYTHON": "/opt/py/bin/python3"}, "linux")
    assert commands == [["/opt/py/bin/python3"]]


def test_the_newest_interpreter_new_enough_is_chosen():
    found = find_python.newest_suitable([[sys.executable], ["/nonexistent/python3"]])
    assert found is not None and found.version[:2] == tuple(sys.version_info[:2])
    assert find_python.newest_suitable([["/nonexistent/python3"]]) is None


# -- which environment, where its programs are -------------------------------------------------


def test_windows_environments_keep_python_where_venv_and_conda_put_it():
    venv = CourseEnv("venv", Path("C:/course/.venv"), ".venv", windows=True)
    conda = CourseEnv("conda", Path("C:/conda/envs/course"), "course", windows=True)
    assert venv.python == Path("C:/course/.venv/Scripts/python.exe")
    assert conda.python == Path("C:/conda/envs/course/python.exe")
    assert Path("C:/conda/envs/course/Library/bin") in conda.path_entries()


def test_an_active_conda_environment_is_chosen_but_not_condas_base(tmp_path):
    env_prefix, base_prefix = tmp_path / "envs" / "course", tmp_path / "miniconda"
    for prefix in (env_prefix, base_prefix):
        (prefix / "conda-meta").mkdir(parents=True)
    (base_prefix / "condabin").mkdir()
    chosen = environment.select(ROOT, {"CONDA_PREFIX": str(env_prefix), "CONDA_DEFAULT_ENV": "c"})
    assert (chosen.kind, chosen.prefix) == ("conda", env_prefix)
    base = environment.select(ROOT, {"CONDA_PREFIX": str(base_prefix), "CONDA_DEFAULT_ENV": "x"})
    assert (base.kind, base.prefix) == ("venv", ROOT / ".venv")
    not_conda = environment.select(ROOT, {"CONDA_PREFIX": str(tmp_path)})  # no conda-meta/
    assert not_conda.kind == "venv"


def test_a_patch_upgrade_keeps_the_venv_but_another_minor_or_installation_does_not():
    made_with = Interpreter("/usr/bin/python3", (3, 11, 2), "/usr")
    assert made_with.makes_the_same_venv_as(Interpreter("/usr/bin/python3", (3, 11, 9), "/usr"))
    assert not made_with.makes_the_same_venv_as(Interpreter("/usr/bin/python3", (3, 12, 1), "/usr"))
    assert not made_with.makes_the_same_venv_as(Interpreter("/o/python3", (3, 11, 2), "/opt/py"))


# -- when to install again ---------------------------------------------------------------------


def stamped(tmp_path: Path, **stamp: object) -> tuple[CourseEnv, Path]:
    root = tmp_path / "course"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    env = CourseEnv("venv", root / ".venv", ".venv")
    env.prefix.mkdir()
    fields = {"root": str(root), "pyproject_sha256": environment.project_hash(root), **stamp}
    (env.prefix / environment.STAMP).write_text(json.dumps(fields))
    return env, root


def test_nothing_is_installed_when_the_stamp_matches(tmp_path):
    env, root = stamped(tmp_path, extras=["dev"])
    assert environment.extras_to_install(env, root, set()) is None
    assert environment.extras_to_install(env, root, {"dev"}) is None


def test_a_changed_pyproject_installs_again_keeping_the_extras_installed_before(tmp_path):
    env, root = stamped(tmp_path, extras=["dev"])
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\nversion = '2'\n")
    assert environment.extras_to_install(env, root, set()) == {"dev"}


def test_asking_for_the_dev_extra_installs_it_once(tmp_path):
    env, root = stamped(tmp_path, extras=[])
    assert environment.extras_to_install(env, root, {"dev"}) == {"dev"}


def test_a_stamp_from_another_checkout_or_none_at_all_installs(tmp_path):
    env, root = stamped(tmp_path, extras=["dev"])
    stamp = json.loads((env.prefix / environment.STAMP).read_text())
    (env.prefix / environment.STAMP).write_text(json.dumps({**stamp, "root": "/elsewhere"}))
    assert environment.extras_to_install(env, root, set()) == set()
    (env.prefix / environment.STAMP).write_text("not json")
    assert environment.extras_to_install(env, root, set()) == set()


def test_an_installer_other_than_uv_or_pip_is_refused_with_a_message(capsys):
    with pytest.raises(install.SetupFailed):
        install.chosen_installer({"COURSE_INSTALLER": "conda"})
    assert "COURSE_INSTALLER must be uv or pip" in capsys.readouterr().err
    assert install.chosen_installer({"COURSE_INSTALLER": " PIP "}) == "pip"


def test_uv_is_told_to_trust_the_systems_certificates_unless_the_learner_says_otherwise():
    assert install.installer_environ({})["UV_SYSTEM_CERTS"] == "1"
    assert install.installer_environ({"UV_SYSTEM_CERTS": "0"})["UV_SYSTEM_CERTS"] == "0"


@pytest.mark.parametrize("extras, compiled", [({"dev"}, True), (set(), False)])
def test_uv_writes_all_bytecode_for_the_test_suites_environment_only(
    monkeypatch, tmp_path, extras, compiled
):
    """The dev extra (the test command's environment) gets every module's bytecode at install,
    so no process of the suite compiles openai or IPython again; a learner's first start does
    not wait for it."""
    env = CourseEnv("venv", tmp_path / "venv", "venv")
    commands = []
    monkeypatch.setattr(install, "find_or_get_uv", lambda env: ("/bin/uv", ""))
    monkeypatch.setattr(
        install.subprocess, "call", lambda command, env: commands.append(command) or 0
    )
    install.install_course(env, ROOT, extras, again=False)
    assert [command[:3] for command in commands] == [["/bin/uv", "pip", "install"]]
    assert ("--compile-bytecode" in commands[0]) is compiled


# -- JupyterLab ---------------------------------------------------------------------------------


def test_the_lab_overrides_keep_what_the_environment_already_had():
    existing = {
        "@jupyterlab/apputils-extension:notification": {"doNotDisturbMode": True},
        "@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"},
    }
    merged = jupyter.merged_overrides(existing)
    assert merged["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    assert merged["@jupyterlab/apputils-extension:notification"] == {
        "doNotDisturbMode": True,
        "fetchNews": "false",
        "checkForUpdates": False,
    }
    assert jupyter.merged_overrides(["not", "a", "dict"]) == jupyter.LAB_OVERRIDES


def test_jupyterlab_starts_on_the_lessons_with_00_welcome_open():
    env = CourseEnv("venv", ROOT / ".venv", ".venv")
    command = jupyter.lab_command(env, ROOT, ["--no-browser"])
    assert f"--ServerApp.root_dir={ROOT / 'notebooks'}" in command
    assert "--LabApp.default_url=/lab/tree/00_welcome.ipynb" in command
    assert command[-1] == "--no-browser"
    assert ("--allow-root" in command) == (os.geteuid() == 0)


def test_the_usage_and_the_readme_say_that_start_passes_options_to_jupyterlab(capsys):
    assert main.main(["--help"]) == 0
    usage = capsys.readouterr().out
    assert "start [OPTIONS]" in usage and "options go to JupyterLab" in usage
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = "bash scripts/start.sh --no-browser --port 8890"
    assert example in readme
    env = CourseEnv("venv", ROOT / ".venv", ".venv")
    assert jupyter.lab_command(env, ROOT, example.split()[2:])[-3:] == example.split()[2:]


@pytest.mark.parametrize(
    "kind, windows, python",
    [("venv", False, "python3"), ("conda", False, "python3"), ("venv", True, "py"),
     ("conda", True, "python")],
)  # fmt: skip
def test_the_printed_self_check_uses_the_python_command_of_the_system(kind, windows, python):
    env = CourseEnv(kind, Path("/x"), "x", windows=windows)
    expected = f"{python} -m course_lib check notebooks/00_welcome.ipynb"
    assert jupyter.self_check_command(env) == expected


def test_commands_run_as_if_the_environment_were_activated():
    env = CourseEnv("venv", Path("/course/.venv"), ".venv", windows=False)
    environ = main.command_environ(env, {"PATH": "/usr/bin", "PYTHONHOME": "/bad"})
    assert environ["PATH"] == "/course/.venv/bin" + os.pathsep + "/usr/bin"
    assert environ["VIRTUAL_ENV"] == "/course/.venv" and "PYTHONHOME" not in environ
    assert main.LAUNCHED_VARIABLE not in environ  # JupyterLab's own may still hand over
    handed_over = main.command_environ(env, {"PATH": "/usr/bin"}, handed_over=True)
    assert handed_over[main.LAUNCHED_VARIABLE] == "1"


def test_the_terminal_setting_keeps_the_servers_other_settings():
    env = CourseEnv("venv", Path("/course/.venv"), ".venv", windows=False)
    existing = {"ServerApp": {"terminado_settings": {"cwd": "/x"}, "ip": "0.0.0.0"}, "Other": {}}
    merged = jupyter.merged_server_config(existing, env)
    assert merged["ServerApp"]["ip"] == "0.0.0.0" and merged["Other"] == {}
    shell = merged["ServerApp"]["terminado_settings"]
    assert shell["cwd"] == "/x" and shell["shell_command"][0] == "/course/.venv/bin/python"
    assert shell["shell_command"][1].endswith("terminal_shell.py")


def test_an_unknown_command_prints_the_usage_and_changes_nothing(capsys):
    assert main.main(["strat"]) == 2
    assert "Usage: python3 scripts/course.py COMMAND" in capsys.readouterr().err


def message_calls() -> list[tuple[str, str, set[str]]]:
    """Every ``messages.say("NAME", ...)`` and ``messages.text("NAME", ...)`` in the launcher:
    where, the message's name, and the fields passed (None when some come from a dict)."""
    calls = []
    for path in sorted((ROOT / "scripts" / "course_launcher").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            target = node.func
            if not (isinstance(target.value, ast.Name) and target.value.id == "messages"):
                continue
            if target.attr in ("say", "text") and isinstance(node.args[0], ast.Constant):
                passed = {keyword.arg for keyword in node.keywords}
                calls.append((f"{path.name}:{node.lineno}", node.args[0].value, passed))
    return calls


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def test_every_message_the_launcher_says_exists_and_gets_exactly_its_placeholders():
    calls = message_calls()
    assert len(calls) > 20  # the walk finds the calls at all
    for where, name, passed in calls:
        assert hasattr(messages, name), f"{where}: no message {name}"
        assert "message" not in placeholders(getattr(messages, name))  # say()'s own parameter
        if None not in passed:
            assert passed == placeholders(getattr(messages, name)), (where, name, passed)


def test_the_message_check_notices_a_misspelt_placeholder():
    assert placeholders(messages.READY) == {"prefix", "version"}
    assert placeholders(messages.READY) != {"prefx", "version"}


# -- python -m course_lib, from wherever the learner is --------------------------------------------


def test_a_notebook_path_is_also_found_from_the_course_folder(monkeypatch):
    from course_lib import cli

    monkeypatch.chdir(ROOT / "notebooks")  # where a notebook cell runs
    given = Path("notebooks/00_welcome.ipynb")
    assert cli.from_course_root(given) == cli.COURSE_ROOT / given
    assert cli.from_course_root(Path("00_welcome.ipynb")) == Path("00_welcome.ipynb")  # exists
    missing = Path("notebooks/99_missing.ipynb")
    assert cli.from_course_root(missing) == missing  # the grader reports it as missing


def test_the_course_installed_in_this_environment_does_not_hand_over():
    from course_lib import cli

    assert cli.installed_here()


# -- a venv made without pip -----------------------------------------------------------------


def bare_venv(folder: Path) -> CourseEnv:
    env = CourseEnv("venv", folder / "venv", "venv")
    environment.make_venv(env, Interpreter.running())
    return env


@dataclass
class PipPutIn:
    """A venv made without pip, and pip put into it: what was true before and after."""

    had_pip: bool
    pip_command: list[str] | None
    reply: subprocess.CompletedProcess | None  # the install, when the test runs one itself
    has_pip: bool


def pip_from_the_bundled_wheel(folder: Path) -> PipPutIn:
    env = bare_venv(folder)
    had_pip, command = install.has_pip(env), install.pip_command(env)
    wheel = install.bundled_pip_wheel(env)
    # pip itself, into the venv; not compiled (pip's 40% of the CPU here), which has_pip needs not
    offline = ["install", "--quiet", "--no-index", "--no-compile", wheel]
    reply = subprocess.run([*(command or []), *offline], capture_output=True, text=True)
    return PipPutIn(had_pip, command, reply, install.has_pip(env))


def pip_from_ensurepip(folder: Path) -> PipPutIn:
    env = bare_venv(folder)
    had_pip = install.has_pip(env)
    install.ensure_pip(env)
    return PipPutIn(had_pip, None, None, install.has_pip(env))


@pytest.fixture(scope="module")
def pip_put_in(tmp_path_factory) -> Iterator[dict[str, Future]]:
    """Both ways pip gets into a venv made without it, each in a venv of its own, at once (each
    is about one core's work for seconds; one after the other, they left the other core idle);
    each test waits for its own."""
    with ThreadPoolExecutor(2) as pool:
        yield {
            "wheel": pool.submit(pip_from_the_bundled_wheel, tmp_path_factory.mktemp("wheel")),
            "ensurepip": pool.submit(pip_from_ensurepip, tmp_path_factory.mktemp("ensurepip")),
        }


def test_the_venv_is_made_without_pip_and_pip_runs_from_the_bundled_wheel(pip_put_in):
    made = pip_put_in["wheel"].result()
    assert not made.had_pip
    command = made.pip_command
    assert command is not None and command[1].endswith(os.path.join(".whl", "pip")), command
    assert made.reply.returncode == 0, made.reply
    assert made.has_pip


def test_the_pip_installer_gets_pip_from_ensurepip_first(pip_put_in):
    made = pip_put_in["ensurepip"].result()
    assert not made.had_pip
    assert made.has_pip


# -- the test command --------------------------------------------------------------------------


def test_the_test_command_writes_the_course_librarys_bytecode_before_pytest(tmp_path, monkeypatch):
    """Where PYTHONDONTWRITEBYTECODE is set no process of the suite writes any: compiled once
    here, every kernel and server the suite starts reads it instead of compiling again."""
    module = tmp_path / "course_lib" / "lesson_part.py"
    module.parent.mkdir()
    module.write_text("ANSWER = 42\n")
    monkeypatch.setattr(main, "ROOT", tmp_path)
    env = CourseEnv("venv", Path(sys.prefix), ".venv")
    main.compile_course_library(env)
    assert list((module.parent / "__pycache__").glob("lesson_part.*.pyc"))
