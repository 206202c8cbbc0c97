"""Start the course with ``bash scripts/start.sh``, see what it serves, stop it; print a report.

Run by the tests inside a network namespace with nothing but loopback (``unshare --net``), where
the test process itself cannot reach the server: this program starts the course there, waits
for the URL it prints, lists the folder JupyterLab serves and prints one JSON line with that
list and everything the start printed. Standard library only.

    python3 offline_probe.py COURSE_FOLDER
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

URL = re.compile(r"(http://127\.0\.0\.1:\d+)/lab/tree/00_welcome\.ipynb\?token=(\w+)")


def main(course: str) -> None:
    with tempfile.TemporaryFile("w+") as log:
        server = subprocess.Popen(
            ["bash", "scripts/start.sh", "--no-browser"],
            cwd=course, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        served, deadline = None, time.monotonic() + 300
        try:
            while served is None and server.poll() is None and time.monotonic() < deadline:
                time.sleep(0.5)
                log.seek(0)
                found = URL.search(log.read())
                if found:
                    served = list_served(*found.groups())
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=60)
            log.seek(0)
            print(json.dumps({"served": served, "output": log.read()}))


def list_served(base: str, token: str) -> list[str] | None:
    request = urllib.request.Request(
        f"{base}/api/contents", headers={"Authorization": f"token {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return sorted(item["name"] for item in json.loads(reply.read())["content"])
    except OSError:
        return None


if __name__ == "__main__":
    main(sys.argv[1])
