"""What does `ToolRegistry.call` cost on top of the tool itself?

One function, one JSON arguments string (as a model sends it), four ways to run it, in one run:

- `registry.call`: our dispatch: find by name, validate and convert from JSON (pydantic, strict),
  call, turn the result into text.
- pydantic TypedDict + call: the bare minimum a careful hand-written dispatcher does, a
  `TypeAdapter` over the arguments validating the same JSON, then the direct call.
- pydantic model + call: the same with a `BaseModel` of the arguments.
- langchain-core `tool(...).invoke`: the same function as a langchain-core tool, fed the parsed
  arguments.

Each round times a batch of calls of every candidate in turn (interleaved, so a noisy shared
machine slows all of them alike); the figure is the median over rounds in microseconds per call.

Targets (issue 2): `registry.call` within 2x of the faster bare pydantic route, and at least 5x
cheaper than langchain-core's `invoke`.

Run: `.venv/bin/python benchmarks/bench_dispatch.py [--rounds 15] [--batch 2000]`
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any, Literal

import pydantic
import typing_extensions as te

from course_lib.reference import ToolRegistry

ARGUMENTS = '{"city": "北京", "unit": "f", "days": 3}'


def get_weather(city: str, unit: Literal["c", "f"] = "c", days: int = 1) -> str:
    """Weather forecast for a city.

    Args:
        city: City name, e.g. 北京 or Paris.
        unit: Temperature unit, "c" or "f".
        days: How many days to forecast.
    """
    return f"{city}: 21°{unit} for {days} day(s)"


def candidates() -> dict[str, Callable[[], Any]]:
    """Each candidate as a zero-argument callable doing one complete dispatch of ARGUMENTS."""
    registry = ToolRegistry()
    registry.tool(get_weather)

    class WeatherArguments(te.TypedDict):
        city: str
        unit: te.NotRequired[Literal["c", "f"]]
        days: te.NotRequired[int]

    typed_dict = pydantic.TypeAdapter(WeatherArguments)

    class WeatherModel(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(extra="forbid", strict=True)
        city: str
        unit: Literal["c", "f"] = "c"
        days: int = 1

    from langchain_core.tools import tool as langchain_tool

    langchain = langchain_tool(get_weather)

    return {
        "registry.call": lambda: registry.call("get_weather", ARGUMENTS),
        "pydantic TypedDict + call": lambda: get_weather(
            **typed_dict.validate_json(ARGUMENTS, strict=True)
        ),
        "pydantic model + call": lambda: get_weather(
            **WeatherModel.model_validate_json(ARGUMENTS).__dict__
        ),
        "langchain-core invoke": lambda: langchain.invoke(json.loads(ARGUMENTS)),
    }


def measure(runs: dict[str, Callable[[], Any]], rounds: int, batch: int) -> dict[str, float]:
    """Median microseconds per call for each candidate."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for run in runs.values():  # warm up: imports, caches, first-call costs
        for _ in range(50):
            run()
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter_ns()
            for _ in range(batch):
                run()
            samples[name].append((time.perf_counter_ns() - start) / batch / 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def check_same_answers(runs: dict[str, Callable[[], Any]]) -> None:
    """A benchmark of different work would be meaningless: all four must return the same text."""
    answers = {name: run() for name, run in runs.items()}
    if len(set(answers.values())) != 1:
        raise SystemExit(f"the candidates disagree: {answers}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--batch", type=int, default=2000)
    options = parser.parse_args()

    runs = candidates()
    check_same_answers(runs)
    medians = measure(runs, options.rounds, options.batch)

    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print(f"pydantic {version('pydantic')}, langchain-core {version('langchain-core')}")
    print(f"arguments: {ARGUMENTS}  ({options.rounds} rounds x {options.batch} calls)")
    ours = medians["registry.call"]
    print(f"{'candidate':<28} {'us/call':>9} {'vs registry.call':>17}")
    for name, value in medians.items():
        print(f"{name:<28} {value:>9.2f} {value / ours:>16.2f}x")

    bare = min(medians["pydantic TypedDict + call"], medians["pydantic model + call"])
    overhead = ours / bare
    speedup = medians["langchain-core invoke"] / ours
    print(
        f"registry.call vs bare pydantic + call: {overhead:.2f}x (target <= 2x): "
        f"{'met' if overhead <= 2 else 'MISSED'}"
    )
    print(
        f"langchain-core invoke vs registry.call: {speedup:.1f}x slower (target >= 5x): "
        f"{'met' if speedup >= 5 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
