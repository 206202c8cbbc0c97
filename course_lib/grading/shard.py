"""Grade a large class on many machines: a deterministic share per shard, and a merge.

``--shard i/n`` (``i`` from 1 to ``n``) takes every ``n``-th student of the sorted list, starting
at the ``i``-th, so a student's notebooks all land in one shard (their feedback page is whole)
and every shard gets nearly the same number of students. ``merge`` checks that the shards fit
together (all of ``1..n``, same versions, no student twice) and writes the same files one
single run would have written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from course_lib.grading.report import from_payload, to_payload, write_outputs
from course_lib.i18n import translate

# Why ``course grade`` cannot take a --shard or merge shards (the instructor reads it, in the
# command's language: ``course grade: {error}``).
MESSAGES = {
    "shard_syntax": "--shard takes i/n, like 2/4, not {text!r}",
    "shard_range": "--shard {text}: i must be between 1 and n",
    "missing": "{path} is missing: pass the --out folders of the shards",
    "not_a_gradebook": (
        "{path} is not a grades.json written by `course grade --shard`: pass the --out folders "
        "of the shards"
    ),
    "splits": "the shards come from different splits: {counts}",
    "incomplete": "expected shards 1..{count} once each; got {seen}",
    "incomplete_missing": "expected shards 1..{count} once each; got {seen} (missing {missing})",
    "versions": "the shards were graded with different versions; re-grade them alike",
    "overlap": "students graded in two shards: {students}",
}


def say(key: str, **fields: object) -> str:
    return translate(MESSAGES, key, **fields)


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; a clear ``ValueError`` for anything else."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(say("shard_syntax", text=text)) from None
    if not 1 <= index <= count:
        raise ValueError(say("shard_range", text=text))
    return index, count


def shard_students(students: list[str], index: int, count: int) -> list[str]:
    """This shard's students: every ``count``-th of the sorted list, from the ``index``-th."""
    return sorted(students)[index - 1 :: count]


def merge(shard_dirs: list[Path], out: Path) -> dict[str, Any]:
    """Combine shard outputs into ``out``; returns the merged ``grades.json`` payload."""
    payloads = []
    for directory in shard_dirs:
        path = directory / "grades.json"
        if not path.is_file():
            raise FileNotFoundError(say("missing", path=path))
        try:  # what the merge reads first: the shard and the versions
            payload = json.loads(path.read_text(encoding="utf-8"))
            usable = bool(parse_shard(payload["shard"])) and isinstance(payload["versions"], dict)
        except (ValueError, KeyError, TypeError, AttributeError):
            usable = False
        if not usable:
            raise ValueError(say("not_a_gradebook", path=path))
        payloads.append(payload)
    counts = {int(p["shard"].split("/")[1]) for p in payloads}
    if len(counts) != 1:
        raise ValueError(say("splits", counts=sorted(counts)))
    count = counts.pop()
    seen = sorted(int(p["shard"].split("/")[0]) for p in payloads)
    if seen != list(range(1, count + 1)):
        missing = sorted(set(range(1, count + 1)) - set(seen))
        if missing:
            shown = ", ".join(f"{m}/{count}" for m in missing)
            raise ValueError(say("incomplete_missing", count=count, seen=seen, missing=shown))
        raise ValueError(say("incomplete", count=count, seen=seen))
    if len({json.dumps(p["versions"], sort_keys=True) for p in payloads}) != 1:
        raise ValueError(say("versions"))
    results = []
    students: set[str] = set()
    for payload in payloads:
        part = from_payload(payload)
        overlap = students & {result.student for result in part}
        if overlap:
            raise ValueError(say("overlap", students=", ".join(sorted(overlap))))
        students |= {result.student for result in part}
        results += part
    merged = to_payload(results, versions_used=payloads[0]["versions"])
    write_outputs(out, merged)
    return merged
