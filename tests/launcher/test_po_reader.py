"""The launcher's PO reader and language names are a second copy of ``course_lib.i18n``'s, on
purpose: the launcher runs before the course's packages (polib) are installed, under any Python
from 3.6 up to its version check, so it cannot import ``course_lib``. These tests hold the two
copies equal, on every PO file the course ships and on the corners of the format."""

from __future__ import annotations

from pathlib import Path

import pytest
from course_launcher import messages

from course_lib import i18n
from course_lib.i18n.catalog import read_catalog

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(
    [*ROOT.glob("course_lib/locale/*/*.po"), *ROOT.glob("translations/*/*.po")],
    key=lambda path: path.relative_to(ROOT).as_posix(),
)


def launcher_reading(path: Path) -> list[tuple[str, str, str, bool]]:
    return messages.read_catalog(str(path))


def polib_reading(path: Path) -> list[tuple[str, str, str, bool]]:
    return [(e.key, e.english, e.text, e.translated) for e in read_catalog(path)]


def test_every_shipped_catalog_is_found() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in SHIPPED}
    assert "course_lib/locale/zh-CN/launcher.po" in names
    assert "translations/zh-CN/00_welcome.po" in names
    assert len(names) >= 20


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_the_launcher_reads_each_shipped_catalog_as_polib_does(path: Path) -> None:
    ours = launcher_reading(path)
    assert ours, "a shipped catalog has entries"
    assert ours == polib_reading(path)


# One entry of each kind the format allows and the catalogs use: escapes, a string over several
# lines, fuzzy, untranslated, stamped with this English, stamped with other English, obsolete.
CORNERS = r"""# header comment
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

#. a note for the translator
msgctxt "m:ESCAPES"
msgid "Tab\there, \"quoted\", back\\slash\n"
msgstr "制表\t符，\"引号\"，反\\斜杠\n"

msgctxt "m:LINES"
msgid ""
"first line\n"
"second line"
msgstr ""
"第一行\n"
"第二行"

#, fuzzy
#| msgid "old"
msgctxt "m:FUZZY"
msgid "new"
msgstr "旧"

msgctxt "m:EMPTY"
msgid "not yet"
msgstr ""

# source 86e1de74820a
msgctxt "m:STAMPED"
msgid "This"
msgstr "这"

# source 000000000000
msgctxt "m:STALE"
msgid "Other"
msgstr "别的"

msgid "no context"
msgstr "无上下文"

#~ msgctxt "m:GONE"
#~ msgid "gone"
#~ msgstr "没了"
"""


def test_the_two_readers_agree_on_every_corner_of_the_format(tmp_path: Path) -> None:
    path = tmp_path / "corners.po"
    path.write_text(CORNERS, encoding="utf-8")
    ours = launcher_reading(path)
    assert ours == polib_reading(path)
    usable = {context: ok for context, _, _, ok in ours}
    assert usable == {
        "m:ESCAPES": True,
        "m:LINES": True,
        "m:FUZZY": False,
        "m:EMPTY": False,
        "m:STAMPED": True,
        "m:STALE": False,
        "": True,
    }
    assert ours[0][1] == 'Tab\there, "quoted", back\\slash\n'
    assert ours[1][2] == "第一行\n第二行"


@pytest.mark.parametrize(
    "lang",
    ["en", "EN", "zh-CN", "zh_CN", "zh-cn", "zh", " zh ", "ZH_cn", "fr", "", "zh-TW", None, 3],
)
def test_the_launcher_names_languages_as_the_course_does(lang: object) -> None:
    assert messages.LANGUAGES == i18n.LANGUAGES
    assert messages.known(lang) == i18n.known(lang)


@pytest.mark.parametrize(
    "arguments",
    [
        ["check", "--lang", "zh-CN"],
        ["--lang=zh_CN", "check"],
        ["--lang", "en", "grade", "--lang=zh-CN"],  # the last one given wins
        ["grade", "--lang"],  # nothing after it
        ["grade", "--language", "zh-CN"],  # not the option
        ["check", "x.ipynb"],
    ],
)
def test_the_launcher_and_the_course_read_lang_alike(arguments):
    """``--lang`` is read twice, by the launcher (before the course's packages exist) and by
    ``course_lib.i18n.arguments.command_language``: one rule, held equal here."""
    from course_lib.i18n.arguments import command_language

    found, _ = messages.lang_option(arguments)
    assert command_language(arguments, {}) == (i18n.known(found) or i18n.ENGLISH)
