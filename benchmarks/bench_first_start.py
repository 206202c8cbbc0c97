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


def first_start(installer: str, folder: Path) -> float:
    """Seconds from ``start.sh`` in a fresh clone to JupyterLab answering."""
    course, home = folder / "course", folder / "home"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(course)], check=True)
    home.mkdir()
    variables = {"HOME": str(home), "PATH": MINIMAL_PATH, "COURSE_INSTALLER": installer}
    command = ["env", "-i", *(f"{k}={v}" for k, v in variables.items())]
    log = folder / "start.log"
    started = time.monotonic()
    with log.open("w") as out:
        server = subprocess.Popen(
            [*command, "bash", "scripts/start.sh", "--no-browser"],
            cwd=course, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        while True:
            if server.poll() is not None:
                raise SystemExit(f"the start failed:\n{log.read_text()}")
            found = URL.search(log.read_text(errors="replace"))
            if found and answers(*found.groups()):
                return time.monotonic() - started
            time.sleep(0.2)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    rounds = parser.parse_args().rounds
    print(f"{platform.platform()}, {os.cpu_count()} CPUs, {rounds} round(s) per installer")
    seconds: dict[str, list[float]] = {"uv": [], "pip": []}
    for round_number in range(rounds):
        for installer in ("uv", "pip") if round_number % 2 == 0 else ("pip", "uv"):
            folder = Path(tempfile.mkdtemp(prefix="course-first-start-"))
            try:
                seconds[installer].append(first_start(installer, folder))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            print(f"round {round_number + 1}, {installer}: {seconds[installer][-1]:.1f} s")
    uv, pip = statistics.median(seconds["uv"]), statistics.median(seconds["pip"])
    print(f"\nfirst start, median: uv {uv:.1f} s, pip {pip:.1f} s (pip / uv = {pip / uv:.1f}x)")


if __name__ == "__main__":
    main()
