"""to_text: strings pass through, everything else becomes deterministic JSON, long text is cut."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import ipaddress
import json
import pathlib
import uuid

import pydantic
import pytest

from course_lib.reference.results import DEFAULT_MAX_CHARS, cut_text, to_text


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1


@dataclasses.dataclass
class City:
    name: str
    founded: datetime.date
    tags: set[str]


class Forecast(pydantic.BaseModel):
    city: str
    when: datetime.datetime
    low: decimal.Decimal


def test_a_string_result_passes_through_untouched():
    assert to_text("北京: 晴, 23°C") == "北京: 晴, 23°C"
    assert to_text('{"already": "json"}') == '{"already": "json"}'
    assert to_text("") == ""


def test_none_becomes_json_null():
    assert to_text(None) == "null"


@pytest.mark.parametrize(
    "value, expected",
    [
        (42, "42"),
        (2.5, "2.5"),
        (True, "true"),
        ([1, "a", None], '[1, "a", null]'),
        ({"city": "上海", "temp": 21}, '{"city": "上海", "temp": 21}'),
        ((1, 2), "[1, 2]"),
        (datetime.datetime(2024, 5, 1, 9, 30), '"2024-05-01T09:30:00"'),
        (
            datetime.datetime(2024, 5, 1, 9, 30, tzinfo=datetime.timezone.utc),
            '"2024-05-01T09:30:00+00:00"',
        ),
        (datetime.date(2024, 5, 1), '"2024-05-01"'),
        (datetime.time(9, 30, 5), '"09:30:05"'),
        (datetime.timedelta(hours=1, minutes=30), '"PT1H30M"'),
        (decimal.Decimal("19.90"), '"19.90"'),
        (uuid.UUID(int=1), '"00000000-0000-0000-0000-000000000001"'),
        (pathlib.PurePosixPath("/data/北京.csv"), '"/data/北京.csv"'),
        (ipaddress.ip_address("10.0.0.1"), '"10.0.0.1"'),
        (Colour.RED, '"red"'),
        (Level.LOW, "1"),
        (b"plain text", '"plain text"'),
        (b"\xff\x00", '"/wA="'),
        (bytearray(b"ok"), '"ok"'),
    ],
)
def test_each_kind_of_value_gets_its_documented_json_spelling(value, expected):
    assert to_text(value) == expected


def test_non_ascii_text_stays_readable_instead_of_escaped():
    text = to_text({"城市": "北京"})
    assert "北京" in text and "\\u" not in text


def test_dataclasses_become_objects_with_their_nested_values_converted():
    city = City("北京", datetime.date(1045, 1, 1), {"capital", "north"})
    assert json.loads(to_text(city)) == {
        "name": "北京",
        "founded": "1045-01-01",
        "tags": ["capital", "north"],
    }


def test_pydantic_models_become_objects_with_json_spellings_inside():
    forecast = Forecast(
        city="上海", when=datetime.datetime(2024, 5, 1, 12), low=decimal.Decimal("1.5")
    )
    assert to_text(forecast) == '{"city": "上海", "when": "2024-05-01T12:00:00", "low": "1.5"}'


def test_sets_are_sorted_so_the_same_result_always_reads_the_same():
    letters = "qwertyuiopasdfghjklzxcvbnm"  # 26 strings: hash order is practically never sorted
    assert to_text(set(letters)) == json.dumps(sorted(letters))
    assert to_text({64, 3, 1000, 17}) == "[3, 17, 64, 1000]"
    assert to_text(frozenset({"b", "a"})) == '["a", "b"]'
    # Mixed types cannot be compared; they are ordered by their JSON text instead.
    assert to_text({1, "a"}) == to_text({"a", 1}) == '["a", 1]'


def test_sets_inside_models_and_containers_are_sorted_too():
    class Tagged(pydantic.BaseModel):
        tags: set[str]

    assert to_text({"x": [Tagged(tags={"z", "y", "x"})]}) == '{"x": [{"tags": ["x", "y", "z"]}]}'


def test_dictionary_keys_json_cannot_hold_are_given_a_text_form():
    assert json.loads(to_text({Colour.RED: 1, datetime.date(2024, 1, 2): 2, (1, 2): 3})) == {
        "red": 1,
        "2024-01-02": 2,
        "[1, 2]": 3,
    }


def test_dictionaries_keep_their_insertion_order():
    assert to_text({"b": 1, "a": 2}) == '{"b": 1, "a": 2}'


def test_a_value_without_a_json_form_raises_a_type_error_naming_its_type():
    class Handle:
        pass

    with pytest.raises(TypeError, match="Handle into text"):
        to_text({"file": Handle()})


def test_text_within_the_limit_is_not_cut():
    assert to_text("x" * 100, max_chars=100) == "x" * 100


def test_long_text_is_cut_with_a_marker_saying_how_much_was_cut():
    text = to_text("a" * 1000, max_chars=200)
    kept = text.split("\n[... cut")[0]
    assert text.endswith(f"[... cut {1000 - len(kept)} of 1000 characters ...]")
    assert kept == "a" * len(kept)


@pytest.mark.parametrize("limit", [60, 61, 99, 100, 101, 999, 1000, 5000])
def test_the_cut_result_is_never_longer_than_max_chars_marker_included(limit):
    text = to_text("é" * 9995, max_chars=limit)  # 9995 -> 4 digits, cut counts cross 999/1000
    assert len(text) == limit
    kept = text.index("\n[... cut")
    assert f"cut {9995 - kept} of 9995 characters" in text


def test_long_json_results_are_cut_too():
    text = to_text(list(range(10_000)), max_chars=500)
    assert len(text) == 500 and "characters ...]" in text


def test_the_default_limit_applies_without_asking():
    assert len(to_text("x" * (DEFAULT_MAX_CHARS + 10))) == DEFAULT_MAX_CHARS


def test_a_limit_too_small_for_the_marker_is_refused_with_advice():
    with pytest.raises(ValueError, match="too small to hold the cut marker"):
        cut_text("x" * 1000, max_chars=10)


@pytest.mark.parametrize(
    "value, expected",
    [(float("nan"), '"nan"'), (float("inf"), '"inf"'), ([1.5, float("-inf")], '[1.5, "-inf"]')],
)
def test_nan_and_infinities_become_strings_because_json_has_no_spelling_for_them(value, expected):
    text = to_text(value)
    assert text == expected
    json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
