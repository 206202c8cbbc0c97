"""Every catalog entry keeps its English's placeholders, code spans, links and fences, so a
translation can never break code or a link (``course_lib.i18n.safety``)."""

from __future__ import annotations

import pytest

from course_lib.i18n import EDITIONS
from course_lib.i18n.catalog import TRANSLATIONS, read_catalog
from course_lib.i18n.messages import LOCALE
from course_lib.i18n.safety import problems

CATALOGS = sorted(
    [path for lang in EDITIONS for path in (TRANSLATIONS / lang).glob("*.po")]
    + [path for lang in EDITIONS for path in (LOCALE / lang).glob("*.po")]
)
ENGLISH_MD = (
    "Call `greeting(name)`; see [the docs](https://example.org/a) or <https://example.org/b>.\n\n"
    "```python\nprint(greeting('Ada'))  # prints it\n```\n\n"
    '```mermaid\nflowchart LR\n    A["a function"] --> B["a tool"]\n```\n\n'
    "Exercise {id} ({title})."
)
GOOD_ZH = (
    "调用 `greeting(name)`；见[文档](https://example.org/a)或 <https://example.org/b>。\n\n"
    "```python\nprint(greeting('Ada'))  # 打印它\n```\n\n"
    '```mermaid\nflowchart LR\n    A["一个函数"] --> B["一个工具"]\n```\n\n'
    "练习 {id}（{title}）。"
)


@pytest.mark.parametrize("path", CATALOGS, ids=[f"{p.parent.name}/{p.name}" for p in CATALOGS])
def test_every_translation_keeps_its_englishs_placeholders_code_spans_links_and_fences(path):
    # A fuzzy entry's text was made from the English before the edit (``#| msgid``): it is held
    # to that, and never shown; the new English is the translator's next job, not a breakage.
    broken = [
        f"{entry.key}: {'; '.join(found)}"
        for entry in read_catalog(path)
        if entry.text
        and (made_from := entry.previous if entry.fuzzy else entry.english)
        and (found := problems(made_from, entry.text))
    ]
    assert not broken, f"{path.name}:\n" + "\n".join(broken)


def test_a_faithful_translation_with_translated_labels_and_comments_is_safe():
    assert problems(ENGLISH_MD, GOOD_ZH) == []


def test_a_path_into_the_translated_edition_counts_as_the_english_path():
    english = "Run `python3 -m course_lib check notebooks/00_welcome.ipynb`."
    assert (
        problems(english, "运行 `python3 -m course_lib check notebooks/zh-CN/00_welcome.ipynb`。")
        == []
    )


@pytest.mark.parametrize(
    ("wrong", "broken"),
    [
        (GOOD_ZH.replace("`greeting(name)`", "greeting(name)"), "lost code `greeting(name)`"),
        (GOOD_ZH.replace("`greeting(name)`", "`问候(name)`"), "lost code `greeting(name)`"),
        (GOOD_ZH.replace("(https://example.org/a)", "(https://example.cn/a)"), "lost link"),
        (GOOD_ZH.replace("<https://example.org/b>", "https://example.org/b"), "lost link"),
        (GOOD_ZH.replace("print(greeting('Ada'))", "print(greeting('阿达'))"), "lost fence"),
        (GOOD_ZH.replace("```python", "```"), "lost fence python"),
        (GOOD_ZH.replace('--> B["一个工具"]', '--> C["一个工具"]'), "lost fence mermaid"),
        (GOOD_ZH.replace("{title}", "{标题}"), "lost placeholder {title}"),
        (GOOD_ZH.replace("{id}", "{id!r}"), "lost placeholder {id}"),
        (GOOD_ZH + " {extra}", "added placeholder {extra}"),
    ],
    ids=["unquoted-code", "translated-code", "link-target", "autolink", "fence-code",
         "fence-language", "mermaid-node-id", "placeholder-name", "placeholder-conversion",
         "added-placeholder"],
)  # fmt: skip
def test_a_translation_that_changes_code_a_link_or_a_placeholder_is_caught(wrong, broken):
    assert any(line.startswith(broken) for line in problems(ENGLISH_MD, wrong)), problems(
        ENGLISH_MD, wrong
    )


def test_every_message_catalog_domain_is_checked_here():
    from course_lib.i18n.messages import TABLES, catalog_file

    wanted = {catalog_file(lang, domain) for lang in EDITIONS for domain in TABLES}
    assert any(path.name.startswith("checks-lesson") for path in wanted)
    assert wanted <= set(CATALOGS), sorted(str(p) for p in wanted - set(CATALOGS))
