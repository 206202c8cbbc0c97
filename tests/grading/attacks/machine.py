"""What the red-team tests look at on the grader's own machine: listeners on its loopback, its
processes, and a generous wait for a condition (a bound for a loaded box, never a speed)."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path


class Listener:
    """A TCP and a UDP socket on the grader's loopback that count whoever reaches them."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.port, self.udp_port = self.tcp.getsockname()[1], self.udp.getsockname()[1]
        for target in (self._accept, self._receive):
            threading.Thread(target=target, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.tcp.accept()
            except OSError:
                return
            self.hits.append("tcp")
            connection.close()

    def _receive(self) -> None:
        while True:
            try:
                self.udp.recvfrom(100)
            except OSError:
                return
            self.hits.append("udp")

    def close(self) -> None:
        self.tcp.close()
        self.udp.close()


def host_processes(*names: str) -> list[str]:
    """The command lines of the grader machine's processes that mention any of ``names``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if any(name in command for name in names):
            found.append(command)
    return found


def children_of(parent: int) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:
            found.append(int(pid))
    return found


def process_state(pid: int) -> str:
    """The state letter ``/proc`` shows for ``pid`` (``R``, ``S``, ``Z``, ...); "" if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def running(pid: int) -> bool:
    return process_state(pid) not in ("", "Z")


def interrupt_running_cell(kernel, timeout: float) -> dict:
    """Run a cell that loops forever, interrupt the kernel once it runs (an idle kernel ignores
    SIGINT), and return the cell's reply."""
    msg_id = kernel.kc.execute("import time\nprint('started', flush=True)\ntime.sleep(3600)")
    while True:
        msg = kernel.get_message("iopub", timeout=timeout)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            break
    kernel.interrupt()
    return kernel._reply(msg_id, timeout)


def eventually(condition, seconds: float = 100):
    """``condition()`` once it is true, or its last value after ``seconds`` (a generous bound
    for a loaded machine, not a speed the test expects)."""
    deadline = time.monotonic() + seconds
    while not (found := condition()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found
