"""Function -> tool conversion: ours against pydantic, langchain-core and transformers.

Run: ``.venv/bin/python benchmarks/bench_convert.py [--rounds N]``

Every converter turns the same corpus (benchmarks/corpus.py) into OpenAI Chat Completions tools in
one process. For each we print the microseconds per function (median over rounds), the ratio to
ours, the total compact-JSON size, the number of ``title`` keywords and how many functions are
converted correctly by the expectations in the corpus.

Ours caches two things: the parsed docstring (keyed by its text) and pydantic models' schemas
(keyed by class). "cold" clears both caches before every round, so every round pays the full
price; "warm" keeps them, which is what a process converting the same functions again sees.
Conversions that raise count as incorrect; their time is still counted.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import CORPUS, EXPECTED, WITHOUT_DESCRIPTION  # noqa: E402

from course_lib.reference import function_to_tool  # noqa: E402
from course_lib.reference.docstrings import _parse  # noqa: E402
from course_lib.reference.model_schemas import _MODEL_CACHE  # noqa: E402

Converter = Callable[[Callable[..., Any]], dict]


def ours(func: Callable[..., Any]) -> dict:
    return function_to_tool(func)


def clear_our_caches() -> None:
    _parse.cache_clear()
    _MODEL_CACHE.clear()


def pydantic_type_adapter(func: Callable[..., Any]) -> dict:
    from pydantic import TypeAdapter

    function = {"name": func.__name__, "description": inspect.getdoc(func) or ""}
    function["parameters"] = TypeAdapter(func).json_schema()
    return {"type": "function", "function": function}


def langchain_core(func: Callable[..., Any]) -> dict:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return convert_to_openai_tool(func)


def transformers_get_json_schema(func: Callable[..., Any]) -> dict:
    from transformers.utils import get_json_schema

    return get_json_schema(func)


CONVERTERS: dict[str, Converter] = {
    "course_lib (ours)": ours,
    "pydantic TypeAdapter": pydantic_type_adapter,
    "langchain-core convert_to_openai_tool": langchain_core,
    "transformers get_json_schema": transformers_get_json_schema,
}


# -- correctness by the corpus's expectations -----------------------------------------------------


def problems(tool: dict, expected: dict[str, dict], name: str = "") -> list[str]:
    """What is wrong with one converted tool, judged by the expectations (empty when correct)."""
    function = tool.get("function", {})
    params = function.get("parameters", {})
    defs = params.get("$defs", {})
    props = params.get("properties", {})
    required = set(params.get("required", []))
    found = []
    if name in WITHOUT_DESCRIPTION:
        if function.get("description"):
            found.append(f"description {function['description'][:40]!r} from a sections-only doc")
    elif not function.get("description"):
        found.append("no description")
    if set(props) != set(expected):
        found.append(f"properties {sorted(props)} != {sorted(expected)}")
        return found
    for name, exp in expected.items():
        found += _property_problems(name, exp, _resolve(props[name], defs), required, defs)
    return found


def _property_problems(
    name: str, exp: dict, prop: dict, required: set[str], defs: dict
) -> list[str]:
    """What is wrong with one converted property, judged by its expectation."""
    found = []
    if (name in required) != exp["required"]:
        found.append(f"{name}: required should be {exp['required']}")
    if "nullable" in json.dumps(prop):
        found.append(f"{name}: OpenAPI 'nullable' instead of JSON Schema null")
    branches = [_resolve(b, defs) for b in prop.get("anyOf", [prop])]
    branches = [{**prop, **b} if b is prop else b for b in branches]
    branches = [one for b in branches for one in _split_types(b)]
    has_null = any(b.get("type") == "null" for b in branches)
    main = [b for b in branches if b.get("type") != "null"]
    if has_null != exp["nullable"]:
        found.append(f"{name}: nullable should be {exp['nullable']}")
    if exp["union"] is not None:
        got = [b.get("type") for b in main]
        if got != exp["union"]:
            found.append(f"{name}: union should keep {exp['union']}, got {got}")
        return found
    if exp["type"] is not None and [b.get("type") for b in main] != [exp["type"]]:
        got = [b.get("type") for b in main]
        found.append(f"{name}: type should be {exp['type']}, got {got}")
    if exp["enum"] is not None and (not main or main[0].get("enum") != exp["enum"]):
        found.append(f"{name}: enum should be {exp['enum']}")
    if exp["items"] is not None:
        items = _resolve(main[0].get("items", {}), defs) if main else {}
        if items.get("type") != exp["items"]:
            found.append(f"{name}: items should be {exp['items']}, got {items.get('type')}")
    if exp["fields"] is not None:
        nested = _resolve(main[0], defs) if main else {}
        got = {f: f in nested.get("required", []) for f in nested.get("properties", {})}
        if got != exp["fields"]:
            found.append(f"{name}: fields required should be {exp['fields']}, got {got}")
    return found


_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}


def _split_types(branch: dict) -> list[dict]:
    """``{"type": ["string", "null"], ...}`` read as the branches it stands for (as anyOf would).

    An ``enum`` goes with the branch of each value's type, so ``Literal["a"] | None`` written as
    ``{"type": ["string", "null"], "enum": ["a", None]}`` reads as ``enum ["a"]`` or null.
    """
    types = branch.get("type")
    if not isinstance(types, list):
        return [branch]
    out = []
    for json_type in types:
        one = {**branch, "type": json_type}
        if "enum" in branch:
            one["enum"] = [v for v in branch["enum"] if _JSON_TYPES.get(type(v)) == json_type]
        out.append(one)
    return out


def _resolve(node: dict, defs: dict) -> dict:
    ref = node.get("$ref")
    if ref:
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return {**defs.get(ref.rsplit("/", 1)[-1], {}), **siblings}
    all_of = node.get("allOf")
    if all_of and len(all_of) == 1:
        return {**_resolve(all_of[0], defs), **{k: v for k, v in node.items() if k != "allOf"}}
    return node


def count_titles(node: Any) -> int:
    if isinstance(node, list):
        return sum(count_titles(v) for v in node)
    if not isinstance(node, dict):
        return 0
    total = 0
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            total += 1
        elif key in ("properties", "$defs"):
            total += sum(count_titles(v) for v in value.values())
        elif key not in ("enum", "default", "const", "examples"):
            total += count_titles(value)
    return total


# -- measurement ----------------------------------------------------------------------------------


def convert_all(convert: Converter) -> list[dict | Exception]:
    out: list[dict | Exception] = []
    for func in CORPUS:
        try:
            out.append(convert(func))
        except Exception as exc:  # a failure is a result too: it counts as incorrect
            out.append(exc)
    return out


def judged(convert: Converter) -> tuple[int, int, dict[str, list[str]]]:
    """The columns of the table that do not depend on the machine: the total compact-JSON size,
    the ``title`` keywords, and what is wrong with each incorrect function (by name).

    tests/test_performance_page.py holds docs/performance.md's table to these.
    """
    results = convert_all(convert)
    tools = [r for r in results if isinstance(r, dict)]
    wrong = {}
    for func, result in zip(CORPUS, results, strict=True):
        issues = (
            [f"raised {type(result).__name__}: {str(result)[:80]}"]
            if isinstance(result, Exception)
            else problems(result, EXPECTED[func.__name__], func.__name__)
        )
        if issues:
            wrong[func.__name__] = issues
    size = sum(len(json.dumps(t, ensure_ascii=False, separators=(",", ":"))) for t in tools)
    return size, sum(map(count_titles, tools)), wrong


def closed_bytes() -> int:
    """How many of our JSON bytes are the top-level ``additionalProperties: false``."""
    return sum(
        len('"additionalProperties":false,')
        for t in convert_all(ours)
        if t["function"]["parameters"].get("additionalProperties") is False
    )


def time_rounds(rounds: int) -> dict[str, list[float]]:
    """Microseconds per function, per round, for every converter plus ours with cold caches.

    Rounds are interleaved (every converter once per round) so that load from other processes
    on the machine affects all converters alike.
    """
    plans: list[tuple[str, Converter, Callable[[], None] | None]] = [
        (label, convert, None) for label, convert in CONVERTERS.items()
    ]
    plans.insert(1, (COLD, ours, clear_our_caches))
    samples: dict[str, list[float]] = {label: [] for label, _, _ in plans}
    for _ in range(rounds):
        for label, convert, before in plans:
            if before is not None:
                before()
            start = time.perf_counter()
            convert_all(convert)
            samples[label].append((time.perf_counter() - start) / len(CORPUS) * 1e6)
    return samples


COLD = "course_lib (ours), cold caches"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    return (
        f"{platform.platform()}, {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )


def versions() -> str:
    names = ["pydantic", "langchain-core", "transformers", "docstring-parser"]
    return ", ".join(f"{n} {metadata.version(n)}" for n in names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--verbose", action="store_true", help="print every incorrect function")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for convert in CONVERTERS.values():  # imports and one-time library setup, not measured
        convert_all(convert)

    medians = {label: statistics.median(v) for label, v in time_rounds(args.rounds).items()}
    ours_label = next(iter(CONVERTERS))
    base = medians[ours_label]
    print(f"Function -> tool conversion, {len(CORPUS)} functions, median of {args.rounds} rounds")
    print(f"Machine: {machine()}")
    print(f"Libraries: {versions()}\n")
    print("| converter | µs/function | × ours | JSON bytes | `title` keys | correct |")
    print("|---|---:|---:|---:|---:|---:|")
    failures = {}
    for label, micros in medians.items():
        size, titles, wrong = judged(ours if label == COLD else CONVERTERS[label])
        failures[label] = wrong
        correct = f"{len(CORPUS) - len(wrong)}/{len(CORPUS)}"
        print(f"| {label} | {micros:.0f} | {micros / base:.2f} | {size:,} | {titles} | {correct} |")
    print(
        f"\nOf our JSON bytes, {closed_bytes():,} are the top-level `additionalProperties: false`, "
        "which the issue requires and the other converters do not emit."
    )
    for label, wrong in failures.items():
        if wrong:
            shown = list(wrong.items()) if args.verbose else list(wrong.items())[:3]
            print(f"{label}: {len(wrong)} incorrect, e.g.")
            for name, issues in shown:
                print(f"  {name}: {'; '.join(issues)[:150]}")


if __name__ == "__main__":
    main()
