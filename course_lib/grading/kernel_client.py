"""The grader's client of a grading kernel: channels that say when they are connected, and a
heartbeat that says when the kernel has stopped answering.

Why the first: ZeroMQ connects in the background. The grader's sockets are made before the
kernel has bound its own, so each one's connection waits for its next retry (every 100 ms by
default), and each channel's retry falls at its own time. A kernel forked from the zygote
answers ``kernel_info`` within milliseconds of binding, which proves the shell and IOPub
channels but not stdin; a ROUTER socket drops a message for a peer it does not know yet, so an
``input_request`` sent before the stdin channel had connected (the first request of the first
check, when the cells before it are quick) was lost, and that check waited for the whole cell
timeout: a correct answer graded ``timeout`` (measured: 3 of 40 kernels' first ``input()``
was never asked). Every socket here reports its handshake on a monitor socket attached before
it connects, and ``GradingClient.wait_connected`` waits for all of them; retries are 10 ms
apart, so a kernel is not kept waiting for a channel's next turn.

Why the second: a kernel whose process lives but which no longer answers (stopped, or its
heartbeat thread starved) would otherwise cost every later cell its whole timeout.
``jupyter_client`` pings the kernel's heartbeat once a second; ``silent_for`` says how long it
has gone unanswered (a single missed beat on a busy machine is not silence: see
``kernel.HEARTBEAT_SILENCE``).
"""

from __future__ import annotations

import time
from typing import Any

import zmq
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.channels import HBChannel
from traitlets import Type
from zmq.utils.monitor import recv_monitor_message

from course_lib.grading.bounds import MAX_MESSAGE_BYTES

RECONNECT_MS = 10
CONNECTED = zmq.EVENT_HANDSHAKE_SUCCEEDED
# A message larger than ``bounds.MAX_MESSAGE_BYTES`` is never received: libzmq drops the
# connection instead (and so every message after it), which the socket's monitor reports.
DISCONNECTED = zmq.EVENT_DISCONNECTED
# The event that ends a wait for a connection without one (a failed attempt's EVENT_CLOSED
# does not: the socket tries again).
GIVEN_UP = zmq.EVENT_MONITOR_STOPPED
MONITORED = (zmq.DEALER, zmq.SUB)  # shell, stdin and control; IOPub


class MonitoredSocket(zmq.Socket):
    """A socket that reports its connection's handshake (see the module's docstring)."""

    handshakes: zmq.Socket | None = None
    connected: bool = False
    dropped: bool = False  # the connection was lost once connected (an oversized message)

    def connect(self, addr: str) -> Any:
        if self.type != zmq.PAIR:  # not the monitors' own PAIR sockets
            self.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        if self.type in MONITORED:
            self.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
            self.handshakes = self.get_monitor_socket(CONNECTED | GIVEN_UP | DISCONNECTED)
        return super().connect(addr)

    def lost(self) -> bool:
        """Whether the connection, once made, has been dropped (read from the monitor without
        waiting)."""
        monitor = self.handshakes
        while not self.dropped and self.connected and monitor is not None and monitor.poll(0):
            if recv_monitor_message(monitor)["event"] & DISCONNECTED:
                self.dropped = True
        return self.dropped

    def close(self, linger: int | None = None) -> None:
        if self.handshakes is not None and not self.closed:
            try:
                self.disable_monitor()
            except zmq.ZMQError:
                pass
            self.handshakes.close(linger=0)
        super().close(linger)


class MonitoredContext(zmq.Context):
    _socket_class = MonitoredSocket


class HeartbeatClock(HBChannel):
    """jupyter_client's heartbeat, which also remembers since when it has gone unanswered,
    once ``arm`` was called (a kernel still starting does not answer yet: readiness, not the
    heartbeat, judges a start)."""

    silent_since: float | None = None
    armed: bool = False

    def arm(self) -> None:
        self.silent_since = None
        self.armed = True

    def call_handlers(self, since_last_heartbeat: float) -> None:
        if self.armed and self.silent_since is None:
            self.silent_since = time.monotonic() - since_last_heartbeat

    def silent_for(self) -> float:
        """Seconds since the kernel last answered a ping (0 while it answers)."""
        if self._beating:
            self.silent_since = None
        if self.silent_since is None:
            return 0.0
        return time.monotonic() - self.silent_since


class GradingClient(BlockingKernelClient):
    """The blocking client, on sockets that say when they have connected."""

    hb_channel_class = Type(HeartbeatClock)

    def channel_sockets(self) -> list[MonitoredSocket]:
        channels = (self.shell_channel, self.iopub_channel, self.stdin_channel)
        return [channel.socket for channel in channels if channel.socket is not None]

    def lost_connection(self) -> bool:
        """Whether a channel's connection was dropped after it connected: the kernel sent a
        message larger than ``bounds.MAX_MESSAGE_BYTES`` (nothing after it would arrive)."""
        return any(socket.lost() for socket in self.channel_sockets())

    def wait_connected(self, timeout: float) -> bool:
        """Whether every channel the grader talks on (shell, IOPub, stdin) had connected within
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        for socket in self.channel_sockets():
            while not socket.connected:
                monitor = socket.handshakes
                left = deadline - time.monotonic()
                if monitor is None or left <= 0 or not monitor.poll(int(left * 1000) + 1):
                    return False
                message = recv_monitor_message(monitor)
                if message["event"] & GIVEN_UP:
                    return False
                socket.connected = bool(message["event"] & CONNECTED)
        return True


def grading_client(manager: Any) -> GradingClient:
    """A ``GradingClient`` for ``manager``'s kernel, on a context of its own (``close_client``
    ends it)."""
    manager.client_factory = GradingClient
    return manager.client(context=MonitoredContext())


def close_client(client: GradingClient) -> None:
    client.stop_channels()
    if not client.context.closed:
        client.context.destroy(linger=0)
