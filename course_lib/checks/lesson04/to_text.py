"""Exercise 04.5, ``to_text(result, *, max_chars=20_000) -> str``: the text a model reads for a
tool's result.

Every value that is not plain JSON (dates, Decimals, sets, tuples, a dataclass, a pydantic model)
is written as source text and built beside the learner's code, so every run sees the same values;
the text comes back as a str. Rules, the case that breaks each, and the hint that names it: see
``RULES`` and ``HINTS``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from course_lib.checks.cases import Case, run_cases
from course_lib.checks.catalog import Catalog
from course_lib.checks.compare import Plain, expect_equal, first_difference, hidden_rng, pick_hint
from course_lib.checks.compare import fail as fail_case
from course_lib.checks.core import Rule, exercise
from course_lib.checks.learner import Learner, Reply
from course_lib.checks.lesson04._tool_sources import NOTEBOOK, expect_json_text, json_text, phrase

MARKER_MAX = 100
DEFAULT_MAX = 20_000

ORDER_SETUP = """
@dataclass
class Order:
    id: int
    city: str
    placed: date
    items: tuple
    total: Decimal
"""
FORECAST_SETUP = """
from pydantic import BaseModel

class Unit(Enum):
    C = "c"
    F = "f"

class Forecast(BaseModel):
    city: str
    high: float
    unit: Unit
    issued: DateTime
"""
POINT_SETUP = """
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
"""


# Case labels (or what one says besides its call), said when the check runs, in its language.
CASE_TEXTS = Catalog() | {
    "a_dataclass": "{call} (a dataclass)",
    "a_pydantic_model": "{call} (a pydantic model)",
    "a_class_json_cannot_encode": "{call} (a class json cannot encode)",
    "long_page": "to_text(a 50,000 character string)",
    "exactly_max": "to_text(a string exactly max_chars long, max_chars=300)",
    "one_too_long": "to_text(a string one character too long, max_chars=300)",
    "long_chinese": "to_text(a 15,000 character string)",
    "hidden": "to_text(hidden text {index} ({length} characters), max_chars={limit})",
    "long_list": "to_text(a list of 2,000 dicts, max_chars=5_000)",
}


@dataclass(frozen=True)
class TextCase:
    """A value (JSON, or source text built beside the learner's code) and the expected text:
    the text itself for a str, else the JSON value the text must decode to. A long result's
    case (``cut_cases``) holds the whole text to_text must start from (the JSON, for a value
    that is not a str) and the ``max_chars`` it is cut to."""

    label: str
    expected: Any
    value: Any = None
    source: str | None = None
    setup: str = ""
    key: str = ""  # the HINTS key of the likely mistake when this case fails
    note: str = ""  # a key of CASE_TEXTS: what the label says besides the call
    limit: int = DEFAULT_MAX  # a long result's max_chars

    @property
    def said(self) -> str:
        """The case's label in the language in force."""
        return CASE_TEXTS.text(self.note, call=self.label) if self.note else self.label

    def spec(self) -> Any:
        return self.value if self.source is None else Learner.source(self.source, self.setup)


ORDER = "Order(7, '上海', date(2024, 5, 1), ('茶', 'tea'), Decimal('19.90'))"
FORECAST = "Forecast(city='北京', high=31.5, unit=Unit.C, issued=DateTime(2024, 7, 1, 6, 0))"
CASES = (
    TextCase("to_text('北京 is sunny')", "北京 is sunny", value="北京 is sunny", key="str"),
    TextCase("to_text({'city': '北京', 'temp': 21})", {"city": "北京", "temp": 21},
             value={"city": "北京", "temp": 21}, key="ensure_ascii"),
    TextCase("to_text(datetime(2024, 5, 1, 9, 30))", "2024-05-01T09:30:00",
             source="DateTime(2024, 5, 1, 9, 30)", key="isoformat"),
    TextCase("to_text({'day': date(2024, 2, 29)})", {"day": "2024-02-29"},
             source="{'day': date(2024, 2, 29)}", key="isoformat"),
    TextCase("to_text(Decimal('19.90'))", "19.90", source="Decimal('19.90')", key="decimal"),
    TextCase("to_text({10, 3, 1, 8})", [1, 3, 8, 10], source="{10, 3, 1, 8}", key="set"),
    TextCase("to_text(frozenset({'上海', '北京', 'Paris'}))", ["Paris", "上海", "北京"],
             source="frozenset({'上海', '北京', 'Paris'})", key="frozenset"),
    TextCase("to_text((1, '二'))", [1, "二"], source="(1, '二')", key="tuple"),
    TextCase(f"to_text({ORDER})",
             {"id": 7, "city": "上海", "placed": "2024-05-01", "items": ["茶", "tea"],
              "total": "19.90"},
             source=ORDER, setup=ORDER_SETUP, key="dataclass", note="a_dataclass"),
    TextCase(f"to_text({FORECAST})",
             {"city": "北京", "high": 31.5, "unit": "c", "issued": "2024-07-01T06:00:00"},
             source=FORECAST, setup=FORECAST_SETUP, key="pydantic", note="a_pydantic_model"),
    TextCase("to_text([None, True, 1.5])", [None, True, 1.5], value=[None, True, 1.5],
             key="json"),
)  # fmt: skip
UNKNOWN = TextCase("to_text(Point(1, 2))", None, note="a_class_json_cannot_encode")
TEXTS = Catalog() | {"summary": "{values} values and {long} long results"}

HINTS = Catalog() | {
    "not_str": "to_text always returns a str.",
    "str": "A string passes through unchanged: do not json.dumps it (it adds quotes).",
    "ensure_ascii": "Use ensure_ascii=False so 北京 stays 北京, not \\u5317\\u4eac.",
    "isoformat": (
        "Dates use ISO 8601: value.isoformat() (a T between date and time), not str(value)."
    ),
    "repr": "Do not fall back to repr(): convert each kind of value to JSON in `jsonable`.",
    "set_repr": "A set becomes a sorted JSON array, not its Python repr.",
    "not_json": "Everything but a str becomes JSON text: json.dumps(..., default=jsonable).",
    "decimal": "A Decimal becomes its exact digits as a string: str(value) gives '19.90'.",
    "set": "A set becomes a sorted list: sorted(value).",
    "frozenset": (
        "A frozenset is a set too, and becomes a sorted list the same way: test "
        "isinstance(value, (set, frozenset)), then sorted(value)."
    ),
    "tuple": "A tuple becomes a JSON array, as json.dumps writes it.",
    "dataclass": "A dataclass becomes its fields: dataclasses.asdict(value).",
    "pydantic": (
        "A pydantic model becomes its fields as JSON: value.model_dump(mode='json'), which also "
        "turns an Enum field into its value (model_dump() alone leaves the member)."
    ),
    "json": "Compare your JSON with the expected value, key by key.",
    "unknown_type": (
        "For a value jsonable does not know, raise TypeError naming its type (here Point): "
        "writing str(value) or repr(value) hands the model text it cannot use."
    ),
    "unknown_name": "Name the type in the TypeError's message: it does not mention {name}.",
    "fits": "A text that fits (len(text) <= max_chars) passes through unchanged.",
    "fits_le": (
        "A text of exactly max_chars characters fits and passes through unchanged: compare "
        "with <=, not <."
    ),
    "never_silent": (
        "The cut must never be silent: append a marker saying how many characters were cut."
    ),
    "keep_at_most": "Keep at most max_chars={limit} characters of the text.",
    "marker_shape": (
        "The marker starts with a newline and stays short (at most {limit} characters)."
    ),
    "cut_count": "Say how much was cut: the number of characters removed, len(text) - kept.",
    "default_limit": (
        "max_chars defaults to 20_000: a 50,000 character text is cut without being asked."
    ),
    "default_fits": (
        "max_chars defaults to 20_000: a text of 15,000 characters fits and passes through "
        "unchanged when max_chars is not given."
    ),
    "cut_raised": (
        "to_text raised on a long result: it returns the text, cut with a marker when it is "
        "longer than max_chars."
    ),
    "cut_json": (
        "Cut the text after turning the result into JSON: a long list is cut like a long string."
    ),
}

RULES = (
    Rule("str", "a str passes through unchanged (no quotes added)", case=CASES[0].said, hint="str"),
    Rule("json", "anything else becomes `json.dumps(result, ensure_ascii=False, default=jsonable)`",
         case=CASES[1].said, hint="ensure_ascii"),
    Rule("isoformat", '`jsonable` turns `datetime`, `date` and `time` into `value.isoformat()` '
         '(`"2024-05-01T09:30:00"`)', case=CASES[2].said, hint="isoformat"),
    Rule("decimal", 'a `Decimal` into `str(value)`, which keeps every digit (`"19.90"`)',
         case=CASES[4].said, hint="decimal"),
    Rule("set", "a `set` into a sorted list", case=CASES[5].said, hint="set"),
    Rule("frozenset", "a `frozenset` too", case=CASES[6].said, hint="frozenset"),
    Rule("dataclass", "a dataclass instance into `dataclasses.asdict(value)`", case=CASES[8].said,
         hint="dataclass"),
    Rule("pydantic", 'a pydantic model into `value.model_dump(mode="json")`', case=CASES[9].said,
         hint="pydantic"),
    Rule("unknown", "and raises `TypeError` naming the type of anything else", case=UNKNOWN.said,
         hint="unknown_type"),
    Rule("fits", "a text of at most `max_chars` characters is not cut (exactly `max_chars` "
         "included)", case="to_text(a string exactly max_chars long, max_chars=300)",
         hint="fits_le"),
    Rule("default_limit", "`max_chars` defaults to 20,000",
         case="to_text(a 50,000 character string)", hint="default_limit"),
    Rule("default_fits", "so a 15,000 character text passes unchanged when it is not given",
         case="to_text(a 15,000 character string)", hint="default_fits"),
    Rule("never_silent", "a longer text is cut, never silently",
         case="to_text(a 50,000 character string)", hint="never_silent"),
    Rule("keep_at_most", "its first `k` characters are kept, `k <= max_chars`",
         case="to_text(a 50,000 character string)", hint="keep_at_most"),
    Rule("marker_shape", "then a marker that starts with a newline and has at most 100 characters",
         case="to_text(a 50,000 character string)", hint="marker_shape"),
    Rule("cut_count", 'which says how many characters were cut (`len(text) - k`) in digits, for '
         'example `"\\n[... cut 30000 of 50000 characters ...]"`',
         case="to_text(a 50,000 character string)", hint="cut_count"),
    Rule("cut_json", "the JSON of a result that is not a str is cut the same way",
         case="to_text(a list of 2,000 dicts, max_chars=5_000)", hint="cut_json"),
)  # fmt: skip


hint = HINTS.hint


TEXT_HINTS = [
    (lambda g: not isinstance(g, str), hint("not_str")),
    (lambda g: "\\u" in g, hint("ensure_ascii")),
    (lambda g: " 09:30" in g or "2024-05-01 " in g, hint("isoformat")),
    (lambda g: any(word in g for word in ("Decimal(", "datetime.", "Order(", "Forecast(")),
     hint("repr")),
    (lambda g: g.startswith("{") and "}" in g and ", " in g and ":" not in g, hint("set_repr")),
]  # fmt: skip


def value_case(item: TextCase) -> Case:
    """The row of ``item``: its value sent (built beside the learner's code when it is source
    text), and the hint of its likely mistake for a wrong text or a TypeError."""
    mistake = hint(item.key)
    raised = [(lambda r: r.raised_a("TypeError"), mistake)]
    return Case(item.said, (item.spec(),), item.expected, raised=raised, hint=mistake, extra=item)


def judge_value(case: Case, got: Any, reply: Reply) -> None:
    """A str sent as it is comes back unchanged; any other value as the JSON text of
    ``case.expected``."""
    __tracebackhide__ = True
    item = case.extra
    if isinstance(item.value, str):
        passed = [(lambda g: g == json_text(item.value), hint("str")), *TEXT_HINTS]
        expect_equal(case.label, case.expected, got, hints=passed)
        return
    expect_json_text(
        case.label, case.expected, got, not_text=hint("not_str"),
        not_json=pick_hint(got, TEXT_HINTS, hint("not_json")),
        wrong=pick_hint(got, TEXT_HINTS, case.hint), escaped=hint("ensure_ascii"),
    )  # fmt: skip


def check_unknown(learner: Learner) -> None:
    __tracebackhide__ = True
    reply = learner.attempt("to_text", learner.source("Point(1, 2)", POINT_SETUP))
    wanted = phrase("type_error_naming", name="Point")
    if not reply.raised_a("TypeError"):
        got = Plain(reply.raised_text) if reply.raised else reply.value
        fail_case(UNKNOWN.said, wanted, got, hint("unknown_type"))
    if "Point" not in reply.message:
        chosen = hint("unknown_name", name="Point")
        fail_case(UNKNOWN.said, wanted, Plain(reply.raised_text), chosen)


# --- long results -----------------------------------------------------------------------------


def cut_cases() -> list[TextCase]:
    rng = hidden_rng("04.5")
    page = '("北京天气晴. " * 7143)[:50_000]'
    texts = [
        TextCase(CASE_TEXTS.text("long_page"), ("北京天气晴. " * 7143)[:50_000], source=page),
        TextCase(CASE_TEXTS.text("exactly_max"), "上海" * 150, "上海" * 150, limit=300),
        TextCase(CASE_TEXTS.text("one_too_long"), "x" * 301, "x" * 301, limit=300),
        TextCase(CASE_TEXTS.text("long_chinese"), "上海" * 7_500, source="'上海' * 7_500"),
    ]
    for index in range(5):
        length = rng.randint(150, 2_000)
        text = "".join(rng.choice("abc 北京上海 xyz") for _ in range(length))
        limit = rng.randint(120, 1_500)
        label = CASE_TEXTS.text("hidden", index=index, length=length, limit=limit)
        texts.append(TextCase(label, text, text, limit=limit))
    big = "[{'城市': '北京', 'n': n} for n in range(2_000)]"
    whole = json_text([{"城市": "北京", "n": n} for n in range(2_000)])
    texts.append(TextCase(CASE_TEXTS.text("long_list"), whole, source=big, limit=5_000))
    return texts


def check_cut(learner: Learner, item: TextCase) -> None:
    __tracebackhide__ = True
    text, limit, case, spec = item.expected, item.limit, item.label, item.spec()
    kwargs = {} if limit == DEFAULT_MAX else {"max_chars": limit}
    raised = [(lambda r: True, hint("cut_raised"))]
    got = learner.call("to_text", spec, case=case, hints=raised, **kwargs).value
    shape = phrase("cut_shape", limit=limit, marker=MARKER_MAX)
    if not isinstance(got, str):
        fail_case(case, shape, got, hint("not_str"))
    if len(text) <= limit:
        if got != text:
            key = "fits_le" if len(text) == limit else "fits"
            if limit == DEFAULT_MAX and len(text) < limit:
                key = "default_fits"
            fail_case(case, phrase("unchanged_text", count=len(text)),
                      phrase("characters", count=len(got)), hint(key),
                      where=first_difference(text, got))  # fmt: skip
        return
    same = (i for i, (a, b) in enumerate(zip(text, got, strict=False)) if a != b)
    kept = next(same, min(len(text), len(got)))
    marker = got[kept:]
    if not marker:
        key = silent_cut_hint(learner, item, spec, got)
        fail_case(case, shape, phrase("no_marker", count=len(got)), hint(key))
    if kept > limit:
        fail_case(case, shape, phrase("kept", count=kept), hint("keep_at_most", limit=limit))
    if not marker.startswith("\n") or len(marker) > MARKER_MAX + 1:
        fail_case(case, shape, marker[:200], hint("marker_shape", limit=MARKER_MAX))
    if str(len(text) - kept) not in marker:
        mentioning = phrase("marker_mentioning", count=len(text) - kept)
        fail_case(case, mentioning, marker, hint("cut_count"))


def silent_cut_hint(learner: Learner, item: TextCase, spec: Any, got: str) -> str:
    """Why a long text came back without a marker: a default limit that is not 20_000 (the
    same text is cut when max_chars is given), a result cut only when it is a str, or no
    marker at all."""
    if got != item.expected:
        return "never_silent"
    if item.source and item.source.startswith("["):
        return "cut_json"
    if item.limit == DEFAULT_MAX:
        probe = learner.attempt("to_text", spec, max_chars=item.limit)
        if isinstance(probe.value, str) and probe.value != item.expected:
            return "default_limit"
    return "never_silent"


@exercise("04.5", notebook=NOTEBOOK, title="to_text", points=2, rules=RULES, hints=HINTS)
def check_to_text(learner: Learner) -> str:
    run_cases(learner, "to_text", map(value_case, CASES), judge=judge_value)
    check_unknown(learner)
    cuts = cut_cases()
    for item in cuts:
        check_cut(learner, item)
    return TEXTS.text("summary", values=len(CASES) + 1, long=len(cuts))


__all__ = ["RULES", "check_to_text", "json"]
