"""How long a learner's first start takes, with uv and with pip, measured in the same run.

Each round makes a fresh ``git clone`` of this checkout and an empty home folder (so no
installer has anything cached), then times ``bash scripts/start.sh --no-browser`` from
``env -i`` with a minimal PATH, the way a new learner's terminal runs it, until JupyterLab
answers on the address it printed. ``COURSE_INSTALLER`` picks uv or pip; the rounds alternate
between the two so both see the same machine and network.

    python benchmarks/bench_first_start.py [--rounds 2]

Prints each round and the median per installer; timings are informational, never test
assertions. Needs the network (PyPI) and a python3 >= 3.10 in /usr/bin or /bin.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MINIMAL_PATH = "/usr/bin:/bin"
URL = re.compile(r"(http://127\.0\.0\.1:\d+)/lab/tree/00_welcome\.ipynb\?token=(\w+)")


def answers(base: str, token: str) -> bool:
    headers = {"Authorization": f"token {token}"}
    request = urllib.request.Request(f"{base}/api/status", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=2):
            return True
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


# The launcher's own lines that end each phase of a first start.
PHASES = {
    "venv": "Installing the course's packages",  # venv made (and, for uv, uv fetched)
    "install": "Installed with",
}


def read_lines(stream, lines: list[tuple[float, str]]) -> None:
    for line in stream:
        lines.append((time.monotonic(), line))


def first_start(installer: str, folder: Path) -> dict[str, float]:
    """Seconds from ``start.sh`` in a fresh clone to JupyterLab answering, and per phase."""
    course, home = folder / "course", folder / "home"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(course)], check=True)
    home.mkdir()
    variables = {"HOME": str(home), "PATH": MINIMAL_PATH, "COURSE_INSTALLER": installer}
    command = ["env", "-i", *(f"{k}={v}" for k, v in variables.items())]
    lines: list[tuple[float, str]] = []
    started = time.monotonic()
    server = subprocess.Popen(
        [*command, "bash", "scripts/start.sh", "--no-browser"], cwd=course, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    threading.Thread(target=read_lines, args=(server.stdout, lines), daemon=True).start()
    try:
        while True:
            if server.poll() is not None:
                raise SystemExit("the start failed:\n" + "".join(line for _, line in lines))
            found = URL.search("".join(line for _, line in lines))
            if found and answers(*found.groups()):
                total = time.monotonic() - started
                break
            time.sleep(0.2)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=60)
    marks = {
        name: next(when for when, line in lines if text in line) - started
        for name, text in PHASES.items()
    }
    return {
        "total": total,
        "venv": marks["venv"],
        "install": marks["install"] - marks["venv"],
        "lab": total - marks["install"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    rounds = parser.parse_args().rounds
    print(f"{platform.platform()}, {os.cpu_count()} CPUs, {rounds} round(s) per installer")
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    runs: dict[str, list[dict[str, float]]] = {"uv": [], "pip": []}
    for round_number in range(rounds):
        for installer in ("uv", "pip") if round_number % 2 == 0 else ("pip", "uv"):
            folder = Path(tempfile.mkdtemp(prefix="course-first-start-"))
            try:
                runs[installer].append(first_start(installer, folder))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            print(f"round {round_number + 1}, {installer}: " + phases(runs[installer][-1]))
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    median = {
        installer: {key: statistics.median(run[key] for run in done) for key in done[0]}
        for installer, done in runs.items()
    }
    for installer in ("uv", "pip"):
        print(f"median, {installer}: " + phases(median[installer]))
    print(f"pip / uv: {median['pip']['total'] / median['uv']['total']:.1f}x")


def phases(run: dict[str, float]) -> str:
    return (
        f"{run['total']:.1f} s (venv {run['venv']:.1f} s, install {run['install']:.1f} s, "
        f"JupyterLab up {run['lab']:.1f} s)"
    )


if __name__ == "__main__":
    main()
