"""Message catalogs: the sentences the library says (checks, hints, the stub's words), translated.

The English tables stay where they are used (``course_lib.checks.messages.MESSAGES``, a check
module's ``HINTS``, ...). ``TABLES`` names them, one domain at a time, and ``course i18n update``
keeps one PO file per domain and language in ``course_lib/locale/<lang>/<domain>.po`` in step
with them: ``msgctxt`` = where the sentence lives (``context``), ``msgid`` = the English sentence
with its ``{placeholders}``, ``msgstr`` = the translation with the same placeholders.

The domains:

- ``messages``: what the check machinery and the stubs say (listed below by hand: two tables);
- ``checks-lessonNN``: every learner-facing table of lesson NN's check modules (its exercise
  folders included), found by reading their source (``check_tables``): a module-level dict
  literal or ``Catalog() | {...}`` named ``HINTS``, ``TEXTS``, ``PHRASES`` or ``MESSAGES``, or
  ending in ``_HINTS``, ``_TEXTS`` or ``_PHRASES``. A new check module's tables join their
  lesson's domain by being written; tests/i18n fails on a table of sentences under another name.
- ``toolkit``, ``widgets``, ``launcher``, ``grading``: what the course says outside its checks
  (listed below by hand). The launcher reads its own catalog (``scripts/course_launcher/
  messages.py``: it runs before polib is installed); ``load_module`` imports it from ``scripts/``.

At run time ``template(context, english, lang)`` looks a sentence up by its full ``msgctxt`` and
its exact English: a sentence whose English changed is not in the index until a translator
reviews it, so the learner reads the current English rather than a stale translation; two
modules' tables that use the same key never share a translation.
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
import sys
from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / "locale"
CHECKS = Path(__file__).resolve().parent.parent / "checks"
CHECKS_PACKAGE = "course_lib.checks"
# The names a learner-facing table of a check module has.
TABLE_NAME = re.compile(r"^(HINTS|TEXTS|PHRASES|MESSAGES)$|_(HINTS|TEXTS|PHRASES)$")
# A table named MESSAGES is its module's own: its msgctxt is ``<module>:<key>``; any other
# table's is ``<module>:<TABLE>:<key>`` (a module may hold HINTS and TEXTS with the same key).
DEFAULT_TABLE = "MESSAGES"


def check_tables(root: Path = CHECKS) -> dict[str, tuple[str, ...]]:
    """``checks-lessonNN`` -> the learner-facing tables of lesson NN's check modules, as
    ``module:attribute`` in file and source order (read from the source: nothing is imported)."""
    domains: dict[str, tuple[str, ...]] = {}
    for folder in sorted(root.glob("lesson[0-9][0-9]")):
        found = []
        for path in sorted(folder.rglob("*.py")):  # an exercise's folder is part of its lesson
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":  # an exercise's folder: the package is the module
                parts = parts[:-1]
            module = ".".join((CHECKS_PACKAGE, *parts))
            found.extend(f"{module}:{name}" for name in defined_tables(path))
        if found:
            domains[f"checks-{folder.name}"] = tuple(found)
    return domains


CONTAINERS = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.Lambda, ast.ListComp, ast.DictComp)


def defined_tables(path: Path) -> list[str]:
    """The learner-facing tables ``path`` assigns at module level: by name, a dict literal whose
    values are texts (not lists of hints, like ``FORMAT_HINTS``)."""
    names = []
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return []  # a file that cannot be read holds no table (importing it fails on its own)
    for node in tree.body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        table = catalogued(node.value)
        if table is None or any(isinstance(value, CONTAINERS) for value in table.values):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names.extend(t.id for t in targets if isinstance(t, ast.Name) and TABLE_NAME.search(t.id))
    return names


def catalogued(value: ast.expr | None) -> ast.Dict | None:
    """The dict literal of ``{...}`` or ``Catalog(...) | {...}`` (``course_lib.checks.catalog``)."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
        call = value.left
        is_catalog = isinstance(call, ast.Call) and getattr(call.func, "id", "") == "Catalog"
        value = value.right if is_catalog else None
    return value if isinstance(value, ast.Dict) else None


# domain -> the English tables it holds, as "module:attribute" (``TABLES``, made on first use:
# finding the check modules' tables reads their source, about 0.3-0.5 s of CPU that a process
# speaking English never needs: ``table_template`` answers in English without asking who owns
# a table).
@functools.cache
def tables() -> dict[str, tuple[str, ...]]:
    return {
        "messages": (
            "course_lib.checks.messages:MESSAGES",
            "course_lib.authoring.blocks:MESSAGES",
            # what the checks of lessons 02 and 03 share (the hints of 02.2's contract among them)
            "course_lib.checks.function_cases:HINTS",
            "course_lib.checks.function_cases:TEXTS",
            "course_lib.checks.parameter_schemas:HINTS",
            "course_lib.driver_values:MESSAGES",  # where a value stops being JSON
        ),
        **check_tables(),
        # What the course says outside the checks: the toolkit, the widgets, the launcher (which
        # reads its catalog itself: it runs before the course's packages are installed), the grader.
        "toolkit": (
            "course_lib.toolkit.messages:MESSAGES",
            # what lesson 09's scenario runner prints (run_scenario's report)
            "course_lib.capstone.scenarios:TEXTS",
            "course_lib.capstone.scenarios:TITLES",
        ),
        "widgets": (
            "course_lib.widgets.texts:TEXTS",
            "course_lib.widgets.conversation_text:TEXT",
            "course_lib.widgets.conversation:HTML_TEXT",
            "course_lib.local_model.scoring:TEXTS",  # the explanation ToolChoiceTrace shows
        ),
        "launcher": ("course_launcher.messages:MESSAGES",),
        "grading": (
            "course_lib.grading.texts:TEXTS",
            "course_lib.grading.class_report:TEXT",
            "course_lib.grading.class_report:COLUMNS",
            # what the grader says of a file it refused or repaired, or of an answer it zeroed
            "course_lib.grading.discover:MESSAGES",
            "course_lib.grading.parse:MESSAGES",
            "course_lib.grading.sanitize:REPAIRS",
            "course_lib.grading.analysis:MESSAGES",
            "course_lib.grading.grader:MESSAGES",
            "course_lib.grading.ownership:MESSAGES",
            "course_lib.grading.discover:KIND_TEXTS",
            "course_lib.grading.isolation:GAP_MESSAGES",  # the class report's isolation section
            "course_lib.grading.isolation:REFUSAL_TEXTS",  # why a notebook was not graded
            # why `course grade` and `course check` cannot go on: their lessons, a shard, a merge
            "course_lib.grading.canonical:MESSAGES",
            "course_lib.grading.shard:MESSAGES",
            # what `course check` and `course grade` say to the instructor, and their --help
            "course_lib.grading.cli:MESSAGES",
            "course_lib.grading.cli:HELP",
            "course_lib.i18n.arguments:WORDS",  # argparse's own words, for every `course` command
        ),
    }


def __getattr__(name: str) -> object:
    if name == "TABLES":  # ``from course_lib.i18n.messages import TABLES``
        return tables()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The folder the launcher's package is imported from (it is not part of course_lib).
SCRIPTS = Path(__file__).resolve().parent.parent.parent / "scripts"


def load_module(module: str) -> object:
    """``module`` imported; the launcher's from ``scripts/``, as ``scripts/course.py`` does."""
    if module.startswith("course_launcher") and str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    return importlib.import_module(module)


def context(module: str, attribute: str, key: str) -> str:
    """The ``msgctxt`` of ``key`` in ``module``'s table ``attribute``."""
    if attribute == DEFAULT_TABLE:
        return f"{module}:{key}"
    return f"{module}:{attribute}:{key}"


def table_entries(domain: str) -> list[tuple[str, str]]:
    """(msgctxt, English) for every sentence of ``domain``'s tables, in table order."""
    found = []
    for name in tables()[domain]:
        module, attribute = name.split(":")
        table = getattr(load_module(module), attribute)
        found.extend((context(module, attribute, key), english) for key, english in table.items())
    return found


_owners: dict[int, tuple[str, str]] = {}


def owner(table: dict) -> tuple[str, str] | None:
    """(module, attribute) of the catalogued table ``table`` is (None: no domain holds it).

    Only modules already imported are looked at: a table reaches ``translate`` from a module
    that is loaded, and the module that defines it was loaded first."""
    found = _owners.get(id(table))
    if found is None:
        for names in tables().values():
            for name in names:
                module, attribute = name.split(":")
                held = getattr(sys.modules.get(module), attribute, None)
                if held is not None:
                    _owners.setdefault(id(held), (module, attribute))
        found = _owners.get(id(table))
    return found


def catalog_file(lang: str, domain: str, root: Path = LOCALE) -> Path:
    return root / lang / f"{domain}.po"


@functools.cache
def reviewed(lang: str, root: Path = LOCALE) -> dict[tuple[str, str], str]:
    """(msgctxt, English) -> translation, for every reviewed entry of ``lang``'s message
    catalogs under ``root``."""
    from course_lib.i18n.catalog import read_catalog  # polib, only when a translation is spoken

    index: dict[tuple[str, str], str] = {}
    for path in sorted((root / lang).glob("*.po")):
        for entry in read_catalog(path):
            if entry.translated:
                index[(entry.key, entry.english)] = entry.text
    return index


def template(msgctxt: str, english: str, lang: str, root: Path = LOCALE) -> str:
    """The sentence at ``msgctxt`` (whose English is ``english``) in ``lang``, or the English."""
    if lang == "en":
        return english
    return reviewed(lang, root).get((msgctxt, english), english)


def table_template(table: dict[str, str], key: str, lang: str, root: Path = LOCALE) -> str:
    """``table[key]`` in ``lang``: the English for a table no domain holds."""
    english = table[key]
    if lang == "en":
        return english
    found = owner(table)
    if found is None:
        return english
    return template(context(*found, key), english, lang, root)
