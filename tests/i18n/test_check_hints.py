"""A check module's hints and texts are looked up by their full msgctxt, in the language in force
when the failure is made (not when the module was imported)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from course_lib.checks import messages
from course_lib.checks.compare import HintText, fail, spoken
from course_lib.checks.failures import CheckFailed
from course_lib.checks.lesson01 import round_trip
from course_lib.checks.lesson05 import agent_loop
from course_lib.i18n import speaking
from course_lib.i18n.catalog import Entry, write_catalog
from course_lib.i18n.messages import context, owner, reviewed, table_entries, table_template

SHARED_KEY = "summary"  # both modules' TEXTS have it, with the same English


def write(root, domain: str, translations: dict[str, str]) -> None:
    entries = [
        Entry(key, english, translations.get(key, "")) for key, english in table_entries(domain)
    ]
    write_catalog(root / "zh-CN" / f"{domain}.po", "zh-CN", domain, entries)


def test_two_modules_sharing_a_key_and_its_english_keep_their_own_translations(tmp_path):
    assert round_trip.TEXTS[SHARED_KEY] == agent_loop.TEXTS[SHARED_KEY]  # the collision
    first = context(*owner(round_trip.TEXTS), SHARED_KEY)
    second = context(*owner(agent_loop.TEXTS), SHARED_KEY)
    assert first == "course_lib.checks.lesson01.round_trip:TEXTS:summary" != second
    write(tmp_path, "checks-lesson01", {first: "{count} 段对话（第 01 课）"})
    write(tmp_path, "checks-lesson05", {second: "{count} 段对话（第 05 课）"})
    assert table_template(round_trip.TEXTS, SHARED_KEY, "zh-CN", tmp_path).endswith("01 课）")
    assert table_template(agent_loop.TEXTS, SHARED_KEY, "zh-CN", tmp_path).endswith("05 课）")
    reviewed.cache_clear()


def test_a_module_whose_shared_key_is_untranslated_does_not_borrow_the_others(tmp_path):
    first = context(*owner(round_trip.TEXTS), SHARED_KEY)
    write(tmp_path, "checks-lesson01", {first: "{count} 段对话"})
    write(tmp_path, "checks-lesson05", {})
    english = agent_loop.TEXTS[SHARED_KEY]
    assert table_template(agent_loop.TEXTS, SHARED_KEY, "zh-CN", tmp_path) == english
    assert table_template(round_trip.TEXTS, SHARED_KEY, "zh-CN", tmp_path) == "{count} 段对话"
    reviewed.cache_clear()


def test_a_table_no_domain_holds_is_english_in_every_language():
    table = {"generic": messages.MESSAGES["generic"]}  # same key and English, not the table
    assert owner(table) is None
    assert table_template(table, "generic", "zh-CN") == table["generic"]
    assert table_template(messages.MESSAGES, "generic", "zh-CN") != table["generic"]


def test_a_hint_made_in_english_is_said_in_the_language_in_force_when_it_fails():
    with speaking("en"):  # like a module's EXCEPTION_HINTS, built when it was imported
        early = HintText.of(messages.MESSAGES, "generic")
    assert str(early) == messages.MESSAGES["generic"]
    with speaking("zh-CN"):
        chinese = messages.say("generic")
        assert spoken(early) == chinese != str(early)
        with pytest.raises(CheckFailed) as failed:
            fail("greeting('Ada')", "Hello, Ada!", "Hi", early)
    assert failed.value.failure.hint == chinese
    assert failed.value.failure.hint_key == "generic"
    assert chinese in str(failed.value)
    with speaking("en"):
        assert spoken(early) == messages.MESSAGES["generic"]
    assert spoken("a plain text") == "a plain text" and spoken(None) is None


def test_what_a_check_module_builds_at_import_is_english_whatever_the_importer_speaks():
    """A rule's case label is built when its module is imported: a Chinese kernel importing the
    module directly (not through ``check``) gets the same label as everyone else."""
    from course_lib.checks.lesson01 import tool_message

    code = "from course_lib.checks.lesson01 import tool_message as m; print(m.WEATHER_CASE)"
    env = {k: v for k, v in os.environ.items() if k != "JPY_SESSION_NAME"}
    run = subprocess.run(
        [sys.executable, "-c", code], env={**env, "COURSE_LANG": "zh-CN"},
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert "the SDK's tool call" in tool_message.WEATHER_CASE
    assert run.stdout.strip() == tool_message.WEATHER_CASE
