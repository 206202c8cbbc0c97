"""The leftover-process check used by the serving tests sees a server it was not told to stop."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from processes import course_servers

from course_lib.mcp_servers.connect import COURSE_TOOLS_SERVER

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def test_a_running_server_started_here_is_found_and_is_gone_once_stopped():
    server = subprocess.Popen([sys.executable, *COURSE_TOOLS_SERVER], stdin=subprocess.PIPE)
    try:
        # Until the child has exec'd, /proc shows it with this process's command line: wait for
        # the exec (on a busy machine it can come late), or for the child to end.
        bound = time.monotonic() + 120
        while server.pid not in course_servers() and server.poll() is None:
            if time.monotonic() > bound:
                break
            time.sleep(0.05)
        assert server.pid in course_servers()
    finally:
        server.kill()
        server.wait(timeout=60)
    assert server.pid not in course_servers()
