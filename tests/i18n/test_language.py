"""The language switch: the edition decides, COURSE_LANG and set_language override it, the
operating system's locale never does; lookups fall back to English, never to a stale text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib import i18n
from course_lib.authoring.blocks import MESSAGES as STUB_MESSAGES
from course_lib.checks import CheckFailed, NotDoneYet, check, messages
from course_lib.checks.learner import STUB_ID
from course_lib.i18n import LANGUAGES, language, set_language, speaking, translate
from course_lib.i18n.messages import template

ROOT = Path(__file__).resolve().parents[2]


def language_in(cwd: Path, **env: str) -> str:
    """``language()`` in a fresh Python started in ``cwd`` with ``env`` (and a Chinese locale)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("COURSE_LANG", "JPY_SESSION_NAME")}
    clean.update(LANG="zh_CN.UTF-8", LC_ALL="zh_CN.UTF-8", LANGUAGE="zh_CN", **env)
    code = "from course_lib.i18n import language; print(language())"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=clean, capture_output=True, text=True, check=True
    )
    return run.stdout.strip()


def test_the_operating_systems_locale_never_decides(tmp_path):
    assert language_in(tmp_path) == "en"


def test_the_course_lang_variable_decides_and_takes_the_usual_spellings(tmp_path):
    assert language_in(tmp_path, COURSE_LANG="zh-CN") == "zh-CN"
    assert language_in(tmp_path, COURSE_LANG="zh_CN") == "zh-CN"
    assert language_in(tmp_path, COURSE_LANG="en") == "en"


def test_the_notebook_jupyterlab_opened_decides_by_its_metadata(tmp_path):
    zh, en = tmp_path / "zh.ipynb", tmp_path / "en.ipynb"
    zh.write_text(json.dumps({"metadata": {"course": {"lang": "zh-CN"}}, "cells": []}), "utf-8")
    en.write_text(json.dumps({"metadata": {"course": {}}, "cells": []}), "utf-8")
    assert language_in(tmp_path, JPY_SESSION_NAME=str(zh)) == "zh-CN"
    folder = tmp_path / "zh-CN"
    folder.mkdir()
    assert language_in(folder, JPY_SESSION_NAME=str(en)) == "en"


def test_a_kernel_started_in_a_translated_editions_folder_speaks_its_language(tmp_path):
    folder = tmp_path / "notebooks" / "zh-CN"
    folder.mkdir(parents=True)
    assert language_in(folder) == "zh-CN"
    assert language_in(folder, COURSE_LANG="en") == "en"


def test_set_language_overrides_the_environment_and_speaking_overrides_both(monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "en")
    try:
        set_language("zh-CN")
        assert language() == "zh-CN"
        with speaking("en"):
            assert language() == "en"
        assert language() == "zh-CN"
    finally:
        set_language(None)
    assert language() == "en"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        set_language("fr")


def test_a_message_is_chinese_in_the_chinese_edition_and_english_otherwise():
    with speaking("zh-CN"):
        assert (
            messages.say("header_failed", id="00.1", title="greeting")
            == "练习 00.1（greeting）未通过。"
        )
    with speaking("en"):
        assert messages.say("header_failed", id="00.1", title="greeting") == (
            "Exercise 00.1 (greeting) is not right yet."
        )


def test_a_sentence_without_a_reviewed_translation_falls_back_to_english():
    table = {"new": "A sentence nobody translated yet, {name}."}
    assert translate(table, "new", "zh-CN", name="Ada") == "A sentence nobody translated yet, Ada."


def test_a_translation_of_an_older_english_is_never_used():
    where = "course_lib.checks.messages:header_failed"
    current = messages.MESSAGES["header_failed"]
    assert template(where, current, "zh-CN") != current
    edited = current.replace("is not right yet", "is wrong")
    assert template(where, edited, "zh-CN") == edited


def test_every_languages_stub_message_is_recognised_as_a_stub():
    for lang in LANGUAGES:
        message = translate(STUB_MESSAGES, "stub", lang, id="03.2", hint="写点什么 / write it")
        found = STUB_ID.match(message)
        assert found and found["id"] == "03.2", (lang, message)


def test_a_real_check_speaks_chinese_in_the_chinese_edition():
    def hard_coded(name: str) -> str:
        return "Hello, Ada!"

    def stub(name: str) -> str:
        raise NotImplementedError("练习 00.1：用 f-string 拼出文本 Hello, <name>! 并返回它")

    with speaking("zh-CN"):
        with pytest.raises(CheckFailed) as failed:
            check("00.1", hard_coded)
        with pytest.raises(NotDoneYet) as not_done:
            check("00.1", stub)
    assert str(failed.value).startswith("练习 00.1（greeting）未通过。\n用例：")
    assert str(not_done.value).startswith("练习 00.1（greeting）尚未完成。")
    assert i18n.language() == "en"
