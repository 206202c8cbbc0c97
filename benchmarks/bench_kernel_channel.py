"""What one check request costs between the grader and the learner's kernel.

A check sends the driver in the kernel one JSON request per case (call this target with these
arguments, send back what came out). Three ways to carry the same requests, timed in the same
run against the same kernel (a ``GuardedKernel``, as grading starts it):

- ``serve loop``: the grader's channel (``KernelChannel``): one ``execute_request`` per check,
  the requests and answers taking turns over the kernel's stdin channel;
- ``execute per request``: one silent ``execute_request`` per request, the answer read from its
  ``user_expressions`` (how a grader that asks the kernel one request at a time does it, and how
  this grader did it before);
- ``in process``: the same driver called directly, no kernel at all (the floor).

    python benchmarks/bench_kernel_channel.py [--requests 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from course_lib.driver import Driver  # noqa: E402
from course_lib.grading.kernel import GuardedKernel  # noqa: E402
from course_lib.grading.kernel_channel import KernelChannel  # noqa: E402
from course_lib.grading.plugin import DRIVER  # noqa: E402

TARGET = "def weather(city, unit='c'):\n    return {'city': city, 'temp': 21, 'unit': unit}\n"
REQUEST = {
    "op": "call",
    "fn": {"target": "weather"},
    "args": [{"json": "北京"}],
    "kwargs": {"unit": {"json": "f"}},
    "keep": False,
}


def serve_loop(kernel: GuardedKernel, count: int) -> float:
    channel = KernelChannel(kernel, timeout=600)
    start = time.perf_counter()
    for _ in range(count):
        assert channel.send(REQUEST)["returned"]["unit"] == "f"
    channel.close()
    return time.perf_counter() - start


def execute_per_request(kernel: GuardedKernel, count: int) -> float:
    call = f"__course_driver__.handle_json({json.dumps(json.dumps(REQUEST))})"
    client = kernel.kc
    start = time.perf_counter()
    for _ in range(count):
        msg_id = client.execute(
            "", silent=True, store_history=False, allow_stdin=True, user_expressions={"r": call}
        )
        while True:
            reply = client.shell_channel.get_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        text = reply["content"]["user_expressions"]["r"]["data"]["text/plain"]
        assert json.loads(ast.literal_eval(text))["returned"]["unit"] == "f"
    return time.perf_counter() - start


def in_process(count: int) -> float:
    namespace: dict = {}
    exec(TARGET, namespace)
    driver = Driver(namespace)
    text = json.dumps(REQUEST)
    start = time.perf_counter()
    for _ in range(count):
        assert json.loads(driver.handle_json(text))["returned"]["unit"] == "f"
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        kernel = GuardedKernel(folder, memory_mb=2048, output_cap=100_000)
        try:
            kernel.evaluate(DRIVER)
            assert kernel.run_quietly(TARGET, 30) == "ok"
            ways = {
                "serve loop": lambda: serve_loop(kernel, args.requests),
                "execute per request": lambda: execute_per_request(kernel, args.requests),
                "in process": lambda: in_process(args.requests),
            }
            times: dict[str, list[float]] = {name: [] for name in ways}
            for _ in range(args.rounds):  # the ways take turns, so they see the same load
                for name, way in ways.items():
                    times[name].append(way() / args.requests * 1000)
        finally:
            kernel.stop()
    print(f"{args.requests} requests x {args.rounds} rounds, median ms per request")
    median = {name: statistics.median(values) for name, values in times.items()}
    for name, value in median.items():
        print(f"  {name:<22}{value:8.3f} ms")
    ratio = median["execute per request"] / median["serve loop"]
    print(f"execute per request / serve loop: {ratio:.2f}x")


if __name__ == "__main__":
    main()
