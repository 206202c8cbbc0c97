"""Every learner-facing table of every check module is in a catalog domain, found from the source.

``course_lib.i18n.messages.check_tables`` reads the check modules for their tables
(``checks-lessonNN``); nothing lists them by hand. These tests fail when a check module holds
sentences a learner reads in a table no domain covers (a table of sentences under another name),
or reads a catalogued table around ``translate`` (English whatever the edition).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import subprocess
import sys
import types
from pathlib import Path

import course_lib.checks
from course_lib.i18n.messages import CHECKS, LOCALE, TABLES, check_tables, owner, table_entries

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(path.name for path in CHECKS.glob("lesson[0-9][0-9]"))
# Module-level dicts of texts that are data, not sentences a learner reads as feedback.
# The domains of what the course says outside its checks (tests/i18n/test_other_domains.py).
OTHER_DOMAINS = ("toolkit", "widgets", "launcher", "grading")
DATA_TABLES = {
    "course_lib.checks.lesson03._annotation_cases:CLASSES": "Python source of the case classes",
    "course_lib.checks.lesson04._tool_sources:TOOL_SOURCES": "the Python source of its tools",
    "course_lib.checks.lesson08.serve_registry.cases:TOOL_SOURCES": "Python source of the tools",
    "course_lib.checks.lesson08.serve_registry.cases:VISIBLE_DECORATORS": "decorator source",
    "course_lib.checks.lesson09.budget.cases:SYSTEM": "a chat message the scripted model reads",
}
SENTENCE = re.compile(r"[A-Za-z]+ [A-Za-z]+")


def check_modules() -> list[types.ModuleType]:
    found = []
    for info in pkgutil.walk_packages(course_lib.checks.__path__, "course_lib.checks."):
        if ".lesson" in info.name:
            found.append(importlib.import_module(info.name))
    return found


def uncovered(module: types.ModuleType) -> list[str]:
    """``module``'s module-level dicts of sentences that no domain's table is and that are not
    known data."""
    found = []
    for attribute, value in vars(module).items():
        if not isinstance(value, dict) or not value or attribute.startswith("__"):
            continue
        texts = list(value.values())
        if not all(isinstance(text, str) for text in texts):
            continue
        if not any(SENTENCE.search(text) for text in texts):
            continue  # names, JSON types, ids: not sentences
        if owner(value) is None and not any(value is data for data in data_tables()):
            found.append(f"{module.__name__}:{attribute}")
    return found


def data_tables() -> list[dict]:
    """The ``DATA_TABLES`` themselves (a module importing one holds the same dict)."""
    return [getattr(importlib.import_module(name.split(":")[0]), name.split(":")[1])
            for name in DATA_TABLES]  # fmt: skip


def test_every_lesson_with_checks_has_its_domain_and_nothing_else_is_one():
    assert [d for d in TABLES if d.startswith("checks-")] == [f"checks-{name}" for name in LESSONS]
    others = {domain: TABLES[domain] for domain in OTHER_DOMAINS}
    assert TABLES == {"messages": TABLES["messages"], **check_tables(), **others}


def test_every_catalogued_table_is_a_table_of_texts():
    for domain in check_tables():
        for key, english in table_entries(domain):
            assert isinstance(english, str) and english.strip(), f"{domain}: {key}"


def test_every_table_of_sentences_in_a_check_module_is_in_a_domain():
    modules = check_modules()
    assert len(modules) > 100
    missing = [name for module in modules for name in uncovered(module)]
    assert not missing, "learner-facing tables no catalog domain covers: " + ", ".join(missing)


def test_a_table_of_sentences_under_another_name_is_caught():
    module = types.ModuleType("course_lib.checks.lesson99.sample")
    module.REASONS = {"slow": "The loop never ended: stop after max_turns."}  # not a table name
    module.JSON_NAMES = {"str": "string", "int": "integer"}  # data, not sentences
    assert uncovered(module) == ["course_lib.checks.lesson99.sample:REASONS"]


def test_a_shared_table_belongs_to_the_module_that_defines_it_not_the_ones_importing_it():
    from course_lib.checks.lesson01 import _values, description

    assert "course_lib.checks.lesson01._values:HINTS" in TABLES["checks-lesson01"]
    if description.HINTS is _values.HINTS:
        assert owner(description.HINTS) == ("course_lib.checks.lesson01._values", "HINTS")
    assert owner(description.HINTS)[0] in (description.__name__, _values.__name__)


def catalogued_reads(path: Path, tables: set[str]) -> list[str]:
    """``TABLE[...]`` reads of a catalogued table in ``path``: English, whatever the edition."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            if node.value.id in tables and isinstance(node.ctx, ast.Load):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value.id}[...]")
    return found


def test_no_check_module_reads_a_catalogued_table_around_translate():
    names = {name.split(":")[1] for domain in check_tables().values() for name in domain}
    reads = [
        read
        for path in sorted(CHECKS.glob("lesson[0-9][0-9]/**/*.py"))
        for read in catalogued_reads(path, names)
    ]
    assert not reads, "read these through translate / HintText.of:\n" + "\n".join(reads)


def test_the_update_command_writes_one_catalog_per_lesson_and_status_reports_it(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "course_lib", "i18n", "update", "--locale", str(tmp_path),
         "--translations", str(tmp_path / "lessons")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    written = sorted(path.name for path in (tmp_path / "zh-CN").glob("*.po"))
    others = [f"{domain}.po" for domain in OTHER_DOMAINS]
    assert written == sorted(["messages.po", *(f"checks-{name}.po" for name in LESSONS), *others])
    assert f"checks-{LESSONS[0]}.po" in run.stdout
    assert (LOCALE / "zh-CN" / f"checks-{LESSONS[0]}.po").exists()


SPEAKS = """
from course_lib.checks.lesson04.registry import cases as registry
from course_lib.i18n import speaking, translate
from course_lib.i18n import messages
with speaking({lang!r}):
    said = translate(registry.HINTS, next(iter(registry.HINTS)))
print(messages.tables.cache_info().currsize, said != "")
"""


def test_a_process_speaking_english_never_reads_the_check_modules_for_their_tables():
    """Finding the tables reads every check module's source (about 0.3-0.5 s of CPU): a kernel
    or a grader speaking English needs none of it; one speaking Chinese reads them once."""
    found = {}
    for lang in ("en", "zh-CN"):
        run = subprocess.run(
            [sys.executable, "-c", SPEAKS.format(lang=lang)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        found[lang] = run.stdout.split()
    assert found == {"en": ["0", "True"], "zh-CN": ["1", "True"]}
