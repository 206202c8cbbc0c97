"""The kernel's side of the grader's channel: one ``input_request`` to the grader over the
kernel's stdin socket, the route back to the grader, and ``input()`` while a check runs.

Split from ``course_lib.driver`` (its ``_KernelDriver`` uses these); the name starts with
``course_lib.driver`` so that a cell naming it is seen as touching the driver.
"""

from __future__ import annotations

from typing import Any


def stdin_request(kernel: Any, prompt: str, ident: Any, parent: Any) -> str:
    """One ``input_request`` to the grader and its reply's value: ipykernel's own
    ``_input_request`` without the two stream flushes it makes first (each waits for the IOPub
    thread; nothing the grader reads depends on the order of the learner's printed output)."""
    import zmq

    socket, session = kernel.stdin_socket, kernel.session
    while True:  # a reply left from an earlier request is not this one's
        try:
            socket.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            break
    content = {"prompt": prompt, "password": False}
    session.send(socket, "input_request", content, parent, ident=ident)
    while True:
        try:  # a short wait, so that an interrupt gets through
            readable, _, broken = zmq.select([socket], [], [socket], 0.01)
        except KeyboardInterrupt:
            raise KeyboardInterrupt("Interrupted by user") from None
        if readable or broken:
            _, reply = session.recv(socket)
            if reply is not None:
                break
    return str(reply["content"]["value"])


def no_input(prompt: object = "") -> str:
    """``input()`` while a check runs: nobody is there to type, as for a script whose stdin is
    closed."""
    raise EOFError("EOF when reading a line")


def shell_route(kernel: Any) -> tuple[Any, Any] | None:
    """The ident and parent header of the shell request being handled (ipykernel 6 and 7)."""
    try:
        if hasattr(kernel, "_get_shell_context_var"):
            ident = kernel._get_shell_context_var(kernel._shell_parent_ident)
        else:
            ident = kernel._parent_ident["shell"]
        return ident, kernel.get_parent("shell")
    except Exception:  # noqa: BLE001 (another ipykernel: fall back to raw_input)
        return None
