"""``python -m course_lib serve-model``: the local model over HTTP until Ctrl-C."""

from __future__ import annotations

import argparse
import sys

from course_lib.listening import LOOPBACK, serve_until_interrupted
from course_lib.local_model.http_limits import MEGABYTE, ServerLimits
from course_lib.local_model.server import DEFAULT_HOST, DEFAULT_PORT, make_server

DEFAULTS = ServerLimits()
MESSAGES = {
    "cannot_listen": (
        "serve-model: cannot listen on {host}:{port}: {reason}. Pick another port with --port."
    ),
    "not_positive": "must be a number above 0, not {value!r}",
    "serving": "Local model serving at {url} (Ctrl-C to stop)",
    "public": "Warning: listening beyond this machine; anyone who can reach it may use it.",
    "stopped": "\nStopped.",
}


def positive_number(text: str) -> float:
    """argparse type for the limits: a number above 0 (argparse names the option)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(MESSAGES["not_positive"].format(value=text))
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve-model",
        help="serve the local model over HTTP (OpenAI-compatible)",
        description=(
            "Serve the offline toy model at http://HOST:PORT/v1 for any OpenAI-compatible "
            "client, curl or a browser. Stop with Ctrl-C."
        ),
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to bind (default: loopback)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default: 8000)")
    parser.add_argument("--seed", type=int, default=0, help="seed for ids and timestamps")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    limits = parser.add_argument_group("limits (a request beyond them gets a JSON 4xx)")
    for flag, default, says in (
        (
            "--max-body-mb",
            DEFAULTS.max_body_bytes / MEGABYTE,
            "largest request body in MB; larger ones get 413",
        ),
        (
            "--header-timeout",
            DEFAULTS.header_timeout,
            "seconds to send a request's headers, else 408",
        ),
        ("--body-timeout", DEFAULTS.body_timeout, "seconds to send a request's body, else 408"),
        ("--idle-timeout", DEFAULTS.idle_timeout, "seconds a connection may wait between requests"),
    ):
        limits.add_argument(
            flag, type=positive_number, default=default, help=f"{says} (default: %(default)g)"
        )
    parser.set_defaults(handler=run)


def limits_from(args: argparse.Namespace) -> ServerLimits:
    return ServerLimits(
        max_body_bytes=max(1, int(args.max_body_mb * MEGABYTE)),
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        idle_timeout=args.idle_timeout,
    )


def run(args: argparse.Namespace) -> int:
    try:
        server = make_server(
            args.host, args.port, seed=args.seed, verbose=args.verbose, limits=limits_from(args)
        )
    except OSError as error:
        reason = error.strerror or error
        print(
            MESSAGES["cannot_listen"].format(host=args.host, port=args.port, reason=reason),
            file=sys.stderr,
        )
        return 1
    print(MESSAGES["serving"].format(url=server.base_url), flush=True)
    if args.host not in LOOPBACK:
        print(MESSAGES["public"])
    serve_until_interrupted(server.serve_forever, server.server_close)
    print(MESSAGES["stopped"], flush=True)
    return 0
