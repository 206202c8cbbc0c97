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


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; a clear ``ValueError`` for anything else."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard takes i/n, like 2/4, not {text!r}") from None
    if not 1 <= index <= count:
        raise ValueError(f"--shard {text}: i must be between 1 and n")
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
            raise FileNotFoundError(f"{path} is missing: pass the --out folders of the shards")
        payloads.append(json.loads(path.read_text(encoding="utf-8")))
    counts = {int(p["shard"].split("/")[1]) for p in payloads}
    if len(counts) != 1:
        raise ValueError(f"the shards come from different splits: {sorted(counts)}")
    count = counts.pop()
    seen = sorted(int(p["shard"].split("/")[0]) for p in payloads)
    if seen != list(range(1, count + 1)):
        missing = sorted(set(range(1, count + 1)) - set(seen))
        raise ValueError(
            f"expected shards 1..{count} once each; got {seen}"
            + (f" (missing {', '.join(f'{m}/{count}' for m in missing)})" if missing else "")
        )
    if len({json.dumps(p["versions"], sort_keys=True) for p in payloads}) != 1:
        raise ValueError("the shards were graded with different versions; re-grade them alike")
    results = []
    students: set[str] = set()
    for payload in payloads:
        part = from_payload(payload)
        overlap = students & {result.student for result in part}
        if overlap:
            raise ValueError(f"students graded in two shards: {', '.join(sorted(overlap))}")
        students |= {result.student for result in part}
        results += part
    merged = to_payload(results, versions_used=payloads[0]["versions"])
    write_outputs(out, merged)
    return merged
