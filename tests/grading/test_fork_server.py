"""The fork server: one warm parent, one forked pytest process per job. Many jobs at once each
get their own reply, a crash or a hang stays with its job (a hang is killed at its budget, with
everything in its session), and the server answers the next job as if nothing happened.

The jobs here run tiny pytest files instead of notebooks, so each test takes seconds; the
grading tests run notebooks through the same server.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from course_lib.grading import kernel_zygote
from course_lib.grading.fork_server import ForkServer
from course_lib.grading.runner import grading_env

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

PASSING = "def test_ok():\n    assert True\n"
CRASHING = "import os\n\ndef test_crash():\n    os._exit(5)\n"
HANGING = (
    "import subprocess, sys, time\n\n"
    "def test_hang():\n"
    "    with open('grandchild.pid', 'w') as handle:\n"
    "        child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
    "        handle.write(str(child.pid))\n"
    "    time.sleep(600)\n"
)


@pytest.fixture(scope="module")
def server():
    server = ForkServer((), {**grading_env(), "SERVER_ONLY": "set when the server started"})
    yield server
    server.stop()


def job(
    server: ForkServer,
    folder: Path,
    source: str,
    budget: float = 120,
    env=None,
    warm=False,
    lessons=None,
) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_job.py").write_text(source, encoding="utf-8")
    args = ["-q", "-p", "no:cacheprovider", "-p", "course_lib.grading.plugin", "test_job.py"]
    log = str(folder / "log.txt")
    return server.run(args, str(folder), log, budget, env, warm=warm, lessons=lessons)


def test_a_job_runs_pytest_in_a_child_and_reports_its_exit(server, tmp_path):
    reply = job(server, tmp_path, PASSING)
    assert (reply["exit"], reply["timed_out"]) == (0, False)
    assert "1 passed" in (tmp_path / "log.txt").read_text(encoding="utf-8")


def test_a_crash_stays_with_its_job_and_the_server_goes_on(server, tmp_path):
    assert job(server, tmp_path / "crash", CRASHING)["exit"] == 5
    assert job(server, tmp_path / "next", PASSING)["exit"] == 0


def test_a_hang_is_killed_at_its_budget_with_what_it_started(server, tmp_path):
    # The hang must have started its grandchild before the budget ends: as long as a passing
    # job takes now (on a busy machine, many times its usual second), twice over, and 5 s.
    started = time.monotonic()
    assert job(server, tmp_path / "measure", PASSING)["exit"] == 0
    slack = 5 + 2 * (time.monotonic() - started)
    reply = job(server, tmp_path, HANGING, budget=slack)
    assert reply["timed_out"] is True
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    killed = time.monotonic()
    with pytest.raises(ProcessLookupError):
        # the kill is sent before the reply; the exit (and reaping) can lag a little
        while time.monotonic() - killed < slack:
            os.kill(grandchild, 0)
            threading.Event().wait(0.1)


def test_many_jobs_at_once_each_get_their_own_reply(server, tmp_path):
    replies: dict[int, dict] = {}

    def run(number: int) -> None:
        source = PASSING if number % 2 else CRASHING
        replies[number] = job(server, tmp_path / str(number), source)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()  # each job ends at its budget
    assert {n: r["exit"] for n, r in replies.items()} == {n: 0 if n % 2 else 5 for n in range(8)}


def test_a_server_that_died_is_started_again_for_the_next_job(server, tmp_path):
    """(The module's server: the tests after this one get the one started again.)"""
    assert job(server, tmp_path / "a", PASSING)["exit"] == 0
    died = server.process
    died.kill()
    died.wait()
    assert job(server, tmp_path / "b", PASSING)["exit"] == 0
    assert server.process is not died and server.process.poll() is None


def test_the_child_holds_none_of_the_servers_pipes(server, tmp_path):
    if not Path("/proc/self/fd").exists():
        pytest.skip("needs /proc")
    source = (
        "import os\n\ndef test_fds():\n"
        "    links = []\n"
        "    for fd in os.listdir('/proc/self/fd'):\n"
        "        try:\n"
        "            links.append(os.readlink(f'/proc/self/fd/{fd}'))\n"
        "        except OSError:\n"
        "            pass  # the listing's own descriptor, already closed\n"
        "    with open('fds.txt', 'w') as handle:\n"
        "        handle.write('\\n'.join(links))\n"
    )
    assert job(server, tmp_path, source)["exit"] == 0
    held = set((tmp_path / "fds.txt").read_text().splitlines())
    requests = os.fstat(server.process.stdin.fileno()).st_ino
    replies = os.fstat(server.process.stdout.fileno()).st_ino
    assert f"pipe:[{requests}]" not in held and f"pipe:[{replies}]" not in held
    assert len([link for link in held if link.startswith("pipe:")]) == 1  # its results pipe


@pytest.mark.skipif(not kernel_zygote.wanted(), reason="no kernel zygote here (or it is off)")
def test_a_child_starts_its_kernels_from_the_servers_zygote(server, tmp_path):
    """The server starts the kernel zygote once; every child keeps the socket to it, and the
    zygote runs with a kernel's environment, not the server's (SERVER_ONLY is the server's)."""
    source = (
        "import os\n\ndef test_zygote():\n"
        "    from course_lib.grading import kernel_zygote\n"
        "    os.fstat(kernel_zygote.control_fd())\n"
        "    environ = open(f'/proc/{kernel_zygote._process.pid}/environ', 'rb').read()\n"
        "    with open('zygote.txt', 'w') as handle:\n"
        "        handle.write(repr((kernel_zygote.available(), b'SERVER_ONLY' in environ)))\n"
    )
    assert job(server, tmp_path, source)["exit"] == 0
    assert (tmp_path / "zygote.txt").read_text() == "(True, False)"


def test_each_job_runs_with_the_environment_it_was_given(server, tmp_path):
    source = (
        "import os\n\ndef test_env():\n"
        "    with open('env.txt', 'w') as handle:\n"
        "        handle.write(repr((os.environ.get('JOB_MARK'), 'SERVER_ONLY' in os.environ)))\n"
    )
    env = {**grading_env(), "JOB_MARK": "this job"}
    env.pop("SERVER_ONLY", None)
    assert job(server, tmp_path, source, env=env)["exit"] == 0
    assert (tmp_path / "env.txt").read_text() == "('this job', False)"


WARM = """
import gc, pkgutil, sys
import course_lib.checks

def test_warm():
    lessons = [m.name for m in pkgutil.iter_modules(course_lib.checks.__path__)
               if m.name.startswith("lesson")]
    assert len(lessons) >= 10
    for name in lessons:
        assert f"course_lib.checks.{name}" in sys.modules, name
    for name in ("openai", "course_lib.local_model", "mcp.server.lowlevel", "jsonschema"):
        assert name in sys.modules, name
    assert gc.get_freeze_count() > 0
"""


def test_a_child_finds_every_lessons_checks_and_their_deferred_imports_loaded(server, tmp_path):
    reply = job(server, tmp_path, WARM, warm=True)
    assert reply["exit"] == 0, (tmp_path / "log.txt").read_text(encoding="utf-8")


def test_warming_up_starts_no_thread(server, tmp_path):
    """The server forks while it holds no thread: an import that started one would leave the
    children with a lock some thread held. (A warm job is forked once the server has taken
    every warm step: the base imports and every lesson's.)"""
    if not Path("/proc/self/task").exists():
        pytest.skip("needs /proc")
    assert job(server, tmp_path, WARM, warm=True)["exit"] == 0
    assert os.listdir(f"/proc/{server.process.pid}/task") == [str(server.process.pid)]


def test_the_deferred_imports_are_read_from_inside_functions_only():
    from course_lib.grading.fork_server import deferred_imports_of_checks

    deferred = deferred_imports_of_checks()
    assert "course_lib.local_model" in deferred  # imported inside check functions
    assert "course_lib.checks.lesson04.to_text" not in deferred  # a module-level import
    assert deferred == sorted(set(deferred))


COLD = """
import sys

def test_cold():
    assert "course_lib.checks.lesson08" not in sys.modules
"""


ONE_LESSON = """
import gc, sys

def test_one_lesson():
    assert "course_lib.checks.lesson02" in sys.modules
    assert "course_lib.checks.lesson08" not in sys.modules  # its checks pull in the MCP SDK
    assert "mcp.server.lowlevel" not in sys.modules
    assert gc.get_freeze_count() > 0
"""


def test_the_first_job_is_forked_at_once_and_the_warm_up_is_for_the_lessons_jobs_name(tmp_path):
    """The server says it is ready after the base imports; a job that comes at once is not
    kept waiting for the lessons' checks to load (its child imports what it needs). A class run
    of one lesson (a learner's ``course check``, most tests) warms up for that lesson alone; a
    job that names none still gets every lesson's (``WARM``)."""
    fresh = ForkServer((), grading_env())
    try:
        assert job(fresh, tmp_path / "first", COLD, lessons=["lesson02"])["exit"] == 0
        reply = job(fresh, tmp_path / "one", ONE_LESSON, warm=True, lessons=["lesson02"])
        assert reply["exit"] == 0, (tmp_path / "one" / "log.txt").read_text(encoding="utf-8")
        assert job(fresh, tmp_path / "all", WARM, warm=True)["exit"] == 0
    finally:
        fresh.stop()


def test_a_submission_asks_the_server_to_warm_up_for_its_own_lessons_checks():
    from course_lib.grading.canonical import default_canonical_dir, load_lessons
    from course_lib.grading.runner import check_packages

    lessons = load_lessons(default_canonical_dir())
    assert check_packages(lessons["05_agent_loop"]) == ["lesson05"]
    assert check_packages(lessons["00_welcome"]) == ["lesson00"]
