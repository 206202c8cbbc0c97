"""``python -m course_lib serve-model``: the local model over HTTP until Ctrl-C."""

from __future__ import annotations

import argparse
import sys

from course_lib.local_model.server import DEFAULT_HOST, DEFAULT_PORT, make_server


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve-model",
        help="serve the local model over HTTP (OpenAI-compatible)",
        description=(
            "Serve the offline toy model at http://HOST:PORT/v1 (POST /v1/chat/completions, "
            "GET /v1/models) for any OpenAI-compatible client. Stop with Ctrl-C."
        ),
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to bind (default: loopback)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default: 8000)")
    parser.add_argument("--seed", type=int, default=0, help="seed for ids and timestamps")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        server = make_server(args.host, args.port, seed=args.seed, verbose=args.verbose)
    except OSError as error:
        print(
            f"serve-model: cannot listen on {args.host}:{args.port}: {error.strerror or error}. "
            "Pick another port with --port.",
            file=sys.stderr,
        )
        return 1
    print(f"Local model serving at {server.base_url} (Ctrl-C to stop)", flush=True)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print("Warning: listening beyond this machine; anyone who can reach it may use it.")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.", flush=True)
    finally:
        server.server_close()
    return 0
