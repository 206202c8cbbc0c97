"""What the course says outside its checks speaks the learner's edition too: the toolkit, the
widgets, the launcher and the grader's pages and scorecard come from catalogs, and no sentence
of theirs is built outside one."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib.i18n import speaking, translate
from course_lib.i18n.messages import LOCALE, TABLES, table_entries

ROOT = Path(__file__).resolve().parents[2]
DOMAINS = ("toolkit", "widgets", "launcher", "grading")
# The modules whose every sentence comes from a catalog: no string literal or f-string in them
# (outside docstrings and the catalogued tables) holds English prose, except these, each for a
# reason: code the modules run or write, arguments' help, and values of the language-free files.
CONVERTED = [
    *sorted((ROOT / "course_lib" / "widgets").glob("*.py")),
    *sorted((ROOT / "course_lib" / "toolkit").glob("*.py")),
    *sorted((ROOT / "scripts" / "course_launcher").glob("*.py")),
    ROOT / "scripts" / "course.py",
    ROOT / "course_lib" / "grading" / "class_report.py",
    ROOT / "course_lib" / "grading" / "texts.py",
    ROOT / "course_lib" / "grading" / "cli.py",  # its messages and --help too
    ROOT / "course_lib" / "grading" / "scorecard.py",
    # what they raise that reaches the instructor as `course grade: {error}`
    ROOT / "course_lib" / "grading" / "shard.py",
    ROOT / "course_lib" / "grading" / "canonical.py",
    ROOT / "course_lib" / "grading" / "discover.py",
    ROOT / "course_lib" / "i18n" / "arguments.py",  # argparse's own words
]
# Functions (or methods) of modules converted in part: (module, function).
CONVERTED_FUNCTIONS = [
    (ROOT / "course_lib" / "grading" / "report.py", "feedback"),
    (ROOT / "course_lib" / "grading" / "report.py", "summary_table"),
    (ROOT / "course_lib" / "grading" / "report.py", "scenario_lines"),
    (ROOT / "course_lib" / "grading" / "isolation.py", "refusal"),
    (ROOT / "course_lib" / "grading" / "kernel.py", "_within_cap"),  # the note on cut output
    *[(ROOT / "course_lib" / "grading" / "results.py", name)
      for name in ("not_submitted", "_judge", "_error_text", "_fault_message", "notebook_notes")],
]  # fmt: skip
NOT_PROSE = (
    "from typing import Literal",  # SchemaExplorer's example function (code)
    "<style>",  # CSS
    "\nbody{font",  # CSS
    "show which parts of your toolkit",  # `course toolkit`'s argparse help
    "List the toolkit's parts",  # its argparse description
    "from {} import {} as {}",  # code the toolkit writes
    "import json, os, sys",  # code the launcher runs in another Python
    "import sys; print(",  # the same
    "\nimport glob, os, ensurepip",  # the same
    "dict[str, str]",  # type comments (Python 3.6)
    "list[tuple[str, dict]]",  # the same
    "{python} -m course_lib check",  # a command line
    "set -gx PATH",  # a shell line
    "not a PO string",  # caught by the catalog reader: never shown
    "module {} has no attribute {}",  # Python's own AttributeError wording (widgets/__init__)
    "SUBMISSIONS | merge SHARD_DIR",  # `course grade`'s positional metavar (its syntax)
)
# The check modules every lesson's checks share (course_lib/checks/*.py; a lesson's own are in
# its folder): what they say to a learner comes from the catalogs (``messages.po``); these texts
# of theirs never reach a learner, each for its reason. With them the driver's modules, whose
# words on a value JSON cannot hold reach every lesson's Where line, on a value it could not read
# its Got line, and on a request it could not answer the check's ``driver_error`` message.
SHARED_CHECKS = [
    *sorted((ROOT / "course_lib" / "checks").glob("*.py")),
    *(
        ROOT / "course_lib" / name
        for name in ("driver.py", "driver_clients.py", "driver_values.py")
    ),
]
NOT_SHOWN = {
    "no hint or text {} in this catalog": "catalog.py: a check's author asked for a key no "
    "table holds (KeyError while writing a check)",
    "{}: no hint {} in its catalog": "catalog.py: raised at import for a rule whose hint is "
    "missing: the check's author's error, before any learner runs it",
    "hidden cases for {}": "compare.py: the seed of the hidden cases' random generator (never "
    "shown; changing it would change every hidden case)",
    "exercise {} has no rule {}": "core.py: a test or a check's author names a rule that does "
    "not exist (KeyError)",
    "exercise {} is registered twice": "core.py: a check's author registered one id twice "
    "(at import)",
    "exercise {} must be worth at least one point": "core.py: a check's author gave no points "
    "(at import)",
    "{}{}:\n{}    return None\n": "function_cases.py: the Python source of a case's function",
    "the table of {}": "cases.py: a case names a hint its table lacks (the check's author's "
    "error, at import for a module-level table)",
    "the cases of {}: no rule {} in its RULES": "cases.py: a case names a rule that does not "
    "exist (the check's author's error, at import for a module-level table)",
    "no basic JSON type for {}": "parameter_schemas.py: the oracle met an annotation of the "
    "course's own cases it has no type for (a check author's error)",
}
TAG = re.compile(r"<[^<>]*>")
FIELD = re.compile(r"\{[^{}]*\}")
PROSE = re.compile(r"[A-Za-z]{2,}[,.;:!?]?\s+[A-Za-z]{2,}")


def template(node: ast.AST) -> str:
    """A literal's text, an f-string's with ``{}`` for each value."""
    if isinstance(node, ast.Constant):
        return node.value
    return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)


def left_alone(tree: ast.AST) -> set[int]:
    """Docstrings, the module-level tables (dicts, and str constants named in UPPER case: the
    launcher's), and the parts of f-strings (judged whole)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skipped.add(id(body[0].value))
        if isinstance(node, ast.JoinedStr):
            skipped.update(id(value) for value in node.values)
    for node in getattr(tree, "body", []):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            upper = all(isinstance(t, ast.Name) and t.id.isupper() for t in targets)
            if isinstance(node.value, ast.Dict) or upper:
                skipped.update(id(sub) for sub in ast.walk(node.value))
    return skipped


def prose_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of each string in ``tree`` with English prose, outside what is left alone."""
    skipped = left_alone(tree)
    found = []
    for node in ast.walk(tree):
        text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) in skipped or not (text or isinstance(node, ast.JoinedStr)):
            continue
        literal = template(node)
        if PROSE.search(FIELD.sub(" ", TAG.sub(" ", literal))) and not literal.startswith(
            NOT_PROSE
        ):
            found.append((node.lineno, literal))
    return found


def prose_outside_catalogs(tree: ast.AST, where: str) -> list[str]:
    return [f"{where}:{line}: {literal[:80]!r}" for line, literal in prose_strings(tree)]


def test_no_sentence_of_the_converted_modules_is_built_outside_a_catalog():
    found = []
    for path in CONVERTED:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += prose_outside_catalogs(tree, str(path.relative_to(ROOT)))
    for path, name in CONVERTED_FUNCTIONS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        (function,) = [n for n in ast.walk(tree) if getattr(n, "name", None) == name]
        found += prose_outside_catalogs(function, f"{path.relative_to(ROOT)}:{name}")
    assert not found, "learner-facing text outside a catalog:\n" + "\n".join(found)


def shared_check_prose(path: Path, source: str | None = None) -> list[str]:
    """What the scan finds in a shared check module (``source``: instead of the file's), less
    the texts that never reach a learner."""
    text = path.read_text(encoding="utf-8") if source is None else source
    found = prose_outside_catalogs(ast.parse(text), str(path.relative_to(ROOT)))
    return [line for line in found if not any(f": {shown!r}"[:-1] in line
                                              for shown in NOT_SHOWN)]  # fmt: skip


def test_no_sentence_of_the_shared_check_modules_is_built_outside_a_catalog():
    assert {path.name for path in SHARED_CHECKS} >= {
        "compare.py", "function_cases.py", "core.py", "learner.py", "meaning.py", "messages.py",
    }  # fmt: skip
    found = [line for path in SHARED_CHECKS for line in shared_check_prose(path)]
    assert not found, "learner-facing text outside a catalog:\n" + "\n".join(found)


def test_each_text_the_shared_check_scan_lets_pass_is_still_there_and_nothing_else_passes():
    everything = [
        line
        for path in SHARED_CHECKS
        for line in prose_outside_catalogs(ast.parse(path.read_text(encoding="utf-8")), "x")
    ]
    for shown in NOT_SHOWN:  # a text that is gone (or moved to a catalog) leaves the list
        assert sum(f": {shown!r}"[:-1] in line for line in everything) == 1, shown
    assert len(everything) == len(NOT_SHOWN)


def test_the_shared_check_scan_fails_on_an_added_english_message():
    path = ROOT / "course_lib" / "checks" / "function_cases.py"
    source = path.read_text(encoding="utf-8")
    assert shared_check_prose(path, source) == []
    added = source + (
        "\n\ndef expect_named(case, name):\n"
        '    fail(case, Plain(f"a function named {name}"), None)\n'
    )
    (found,) = shared_check_prose(path, added)
    assert found.endswith(": 'a function named {}'")
    label = source.replace('TEXTS.text("type_error_naming", names=names_text(names))',
                           'f"a TypeError naming {names_text(names)}"')  # fmt: skip
    assert label != source
    assert [line.split(": ", 1)[1] for line in shared_check_prose(path, label)] == [
        "'a TypeError naming {}'"
    ]


@pytest.mark.parametrize(
    ("name", "fixed", "english", "found"),
    [
        ("driver.py", 'error_reply("driver_failed", name=name, error=scrub(message)[:300])',
         '{"error": f"the notebook\'s driver failed: {name}: {scrub(message)[:300]}"}',
         "the notebook's driver failed: {}: {}"),
        ("driver.py", 'error_reply("reply_too_large", limit=MAX_REPLY_CHARS)',
         '{"error": f"the reply is larger than {MAX_REPLY_CHARS} characters"}',
         "the reply is larger than {} characters"),
        ("driver.py", 'DriverError("case_failed", error=f"{type(exc).__name__}: {exc}")',
         'DriverError(f"building the case failed: {type(exc).__name__}: {exc}")',
         "building the case failed: {}: {}"),
    ],
)  # fmt: skip
def test_the_shared_check_scan_fails_on_the_drivers_english_put_back(name, fixed, english, found):
    path = ROOT / "course_lib" / name
    source = path.read_text(encoding="utf-8")
    assert source.count(fixed) == 1 and shared_check_prose(path, source) == []
    (caught,) = shared_check_prose(path, source.replace(fixed, english))
    assert caught.endswith(f": {found!r}")


def test_the_scan_catches_an_f_string_message_and_leaves_markup_and_tables_alone():
    source = (
        'TEXTS = {"a": "A whole sentence here."}\n'
        "def f(name):\n"
        '    """A docstring is no message."""\n'
        "    x = f'<div style=\"color:red;border:4px solid\">{name}</div>'\n"
        '    raise ValueError(f"no tool named {name!r} in this registry")\n'
    )
    found = prose_outside_catalogs(ast.parse(source), "sample")
    assert found == ["sample:5: 'no tool named {} in this registry'"]


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_domain_is_catalogued_and_wholly_translated(domain):
    from course_lib.i18n.catalog import read_catalog

    english = dict(table_entries(domain))
    assert len(english) >= 25, domain
    entries = {e.key: e for e in read_catalog(LOCALE / "zh-CN" / f"{domain}.po")}
    assert set(entries) == set(english), f"run `python -m course_lib i18n update` ({domain})"
    assert all(entries[key].english == text and entries[key].translated
               for key, text in english.items()), domain  # fmt: skip
    assert domain in TABLES


def test_the_toolkit_speaks_the_edition():
    from course_lib.toolkit.messages import say

    with speaking("zh-CN"):
        chinese = say("course_missing", part="run_agent", exercise="05.1")
    english = say("course_missing", part="run_agent", exercise="05.1")
    assert chinese == "使用课程提供的 run_agent：完成练习 05.1 后就会用你自己的。"
    assert english == "Using the course's run_agent: finish exercise 05.1 to use yours."


def test_a_widget_text_is_translated_only_for_its_own_english():
    from course_lib.widgets.texts import TEXTS

    assert translate(TEXTS, "matches", "zh-CN") == "你的结果与参考实现一致。"
    changed = {"matches": TEXTS["matches"] + " Well done."}  # no catalog holds this table
    assert translate(changed, "matches", "zh-CN") == changed["matches"]


# -- the widgets, in a kernel running a notebook of each edition ---------------------------------

WIDGET_CELLS = [
    "from course_lib.reference import ToolRegistry\n"
    "from course_lib.widgets import ConversationView, SchemaExplorer, ToolForm\n"
    "registry = ToolRegistry()\n"
    "@registry.tool\n"
    "def add(a: int, b: int = 1) -> int:\n"
    '    """Add two numbers.\n\n    Args:\n        a: The first.\n        b: The second.\n    """\n'
    "    return a + b\n"
    "form = ToolForm(registry, 'add')\n"
    "print(form.text())",
    "form.fill(a=2)\nform.call()\nprint(form.text())",
    "print(ConversationView([{'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'c1',"
    " 'type': 'function', 'function': {'name': 'add', 'arguments': '{'}}]}]).text())",
    "print(SchemaExplorer('x = 1').text())",
]


def widget_lines(folder: Path) -> list[str]:
    """What the widgets print in a kernel started in ``folder`` (as nbval and ``course
    execute`` start a notebook's kernel: in its folder)."""
    import nbformat

    from course_lib.authoring.execute import run_notebook

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in WIDGET_CELLS]
    ran = run_notebook(nb, folder, timeout=120)
    return [output["text"] for cell in ran.cells for output in cell.outputs]


@pytest.mark.parametrize("edition", ["en", "zh-CN"])
def test_the_widgets_speak_the_edition_of_the_notebook_their_kernel_runs(edition):
    folder = ROOT / "notebooks" / ("" if edition == "en" else edition)
    form, called, conversation, explorer = widget_lines(folder)
    if edition == "zh-CN":
        assert "  a (integer，必填): 0\n" in form and form.endswith("结果：（按“调用”）\n")
        assert called.splitlines()[1:] == [
            "  a (integer，必填): 2", "  b (integer，可选): 1", '调用：add({"a": 2, "b": 1})',
            "结果：", "  3",
        ]  # fmt: skip
        assert "    ! 调用参数不是有效的 JSON" in conversation
        assert "! 调用 c1 没有得到回应：没有任何 tool 消息回应它" in conversation
        assert explorer.startswith(
            "SchemaExplorer（OpenAI Chat Completions）\n错误：这里还没有函数"
        )
    else:
        assert "  a (integer, required): 0\n" in form and form.endswith("result: (press Call)\n")
        assert "! unanswered call c1: no tool message answers it" in conversation
        assert explorer.startswith("SchemaExplorer (OpenAI Chat Completions)\nerror: No function")


def test_a_folder_merely_named_zh_is_not_the_chinese_edition(tmp_path):
    for name in ("zh", "en", "zh-cn"):
        (tmp_path / name).mkdir()
        form = widget_lines(tmp_path / name)[0]
        assert form.endswith("result: (press Call)\n"), name


# -- the launcher: before the course's packages exist --------------------------------------------


def launcher(*arguments: str, **env: str) -> subprocess.CompletedProcess:
    """``scripts/course.py`` run as a learner runs it, with a Chinese locale and ``env``."""
    clean = {k: v for k, v in os.environ.items() if k != "COURSE_LANG"}
    clean.update(LANG="zh_CN.UTF-8", LC_ALL="zh_CN.UTF-8", PYTHONIOENCODING="utf-8", **env)
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "course.py"), *arguments],
        cwd=ROOT, env=clean, capture_output=True, text=True, encoding="utf-8", timeout=120,
    )  # fmt: skip


def test_the_launcher_speaks_chinese_with_lang_zh_cn_and_english_otherwise():
    chinese = launcher("setup", "--bogus", "--lang", "zh-CN")
    assert chinese.returncode == 2
    assert chinese.stderr.strip() == "setup 只接受 --dev；收到的是 --bogus --lang zh-CN。"
    english = launcher("setup", "--bogus")  # the Chinese locale does not decide
    assert english.stderr.strip() == "setup takes only --dev; got --bogus."
    usage = launcher("help", COURSE_LANG="zh-CN").stdout
    assert usage.startswith("用法：python3 scripts/course.py")
    assert launcher("help").stdout.startswith("Usage: python3 scripts/course.py")
    unknown = launcher("start", "--lang", "fr")  # a language the course does not speak
    assert unknown.stderr.strip() == "start --lang takes one of en, zh-CN; got 'fr'."


def test_the_launchers_own_catalog_reader_reads_what_polib_reads():
    from course_lib.i18n.catalog import read_catalog

    sys.path.insert(0, str(ROOT / "scripts"))
    from course_launcher import messages

    path = LOCALE / "zh-CN" / "launcher.po"
    ours = [(c, e, t) for c, e, t, usable in messages.read_catalog(str(path)) if usable]
    theirs = [(e.key, e.english, e.text) for e in read_catalog(path) if e.translated]
    assert ours == theirs and len(ours) == len(messages.MESSAGES)
    assert any("\n" in english for _, english, _ in ours)  # multi-line entries too


def test_the_launcher_shows_english_for_a_fuzzy_or_stale_translation(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "scripts"))
    from course_launcher import messages

    source = (LOCALE / "zh-CN" / "launcher.po").read_text(encoding="utf-8")
    ready = 'msgctxt "course_launcher.messages:READY"'
    assert source.count(ready) == 1
    fuzzy = source.replace(ready, "#, fuzzy\n" + ready)
    stale = source.replace("The course's environment is ready:", "The environment is ready:")
    for name, text in (("fuzzy", fuzzy), ("stale", stale)):
        (tmp_path / name / "zh-CN").mkdir(parents=True)
        (tmp_path / name / "zh-CN" / "launcher.po").write_text(text, encoding="utf-8")
        monkeypatch.setattr(messages, "CATALOGS", str(tmp_path / name))
        monkeypatch.setattr(messages, "_read", {})
        monkeypatch.setattr(messages, "_chosen", ["zh-CN"])
        said = messages.text("READY", prefix=".venv", version="3.12.1")
        assert said == "The course's environment is ready: .venv (Python 3.12.1).", name
        assert messages.text("NO_TESTS").startswith("pytest 没有收集到任何测试"), name


# -- the grader: a feedback page in the edition handed in; the gradebook in no language ----------


@pytest.fixture(scope="module")
def gradebook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same wrong answer to lesson 00, handed in from each edition, graded by
    ``course grade`` into ``out/``."""
    import nbformat

    root = tmp_path_factory.mktemp("gradebook")
    for student, sub in (("ada", ""), ("bo", "zh-CN")):
        nb = nbformat.read(ROOT / "solutions" / sub / "00_welcome.ipynb", as_version=4)
        (cell,) = [cell for cell in nb.cells if cell.get("id") == "w00-ex1"]
        cell.source = cell.source.replace('return f"Hello, {name}!"', 'return "Hello, Ada!"')
        (check,) = [cell for cell in nb.cells if cell.get("id") == "w00-check1"]
        check.source += "\n# edited"  # the grader restores it and says so in a note
        (root / "class" / student).mkdir(parents=True)
        nbformat.write(nb, root / "class" / student / "00_welcome.ipynb")
    run = subprocess.run(
        [sys.executable, "-m", "course_lib", "grade", str(root / "class"), "--out",
         str(root / "out"), "--accept-isolation-gap"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={k: v for k, v in os.environ.items() if k != "COURSE_LANG"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "class report:" in run.stdout  # the summary speaks English unless asked
    return root / "out"


def test_a_chinese_submissions_feedback_page_is_chinese_and_an_english_ones_english(gradebook):
    chinese = (gradebook / "feedback" / "bo.md").read_text(encoding="utf-8")
    english = (gradebook / "feedback" / "ada.md").read_text(encoding="utf-8")
    assert chinese.startswith("# bo 的反馈\n\n总分：")
    # (a value from the results may have its punctuation escaped for Markdown: 00\.1)
    chinese, english = chinese.replace("\\", ""), english.replace("\\", "")
    assert "- **00.1**：未通过，0 / " in chinese and "用例：" in chinese
    assert english.startswith("# Feedback for ada\n\nTotal: ")
    assert "- **00.1**: failed, 0 / " in english and "Case:" in english
    assert "评分程序的说明：\n\n- 检查单元格 00.1 被修改过：已恢复" in chinese
    assert "Notes from the grader:\n\n- check cell 00.1 was edited: restored" in english


def test_the_gradebook_files_keep_their_statuses_and_ids_in_no_language(gradebook):
    import csv

    with (gradebook / "grades.csv").open(encoding="utf-8") as file:
        rows = {(r["student"], r["exercise"]): r for r in csv.DictReader(file)}
    for exercise in {e for _, e in rows}:
        ada, bo = rows[("ada", exercise)], rows[("bo", exercise)]
        same = ("notebook", "exercise", "points", "max_points", "status")
        assert [ada[c] for c in same] == [bo[c] for c in same], exercise
    assert rows[("bo", "00.1")]["status"] == "failed"
    payload = json.loads((gradebook / "grades.json").read_text(encoding="utf-8"))
    languages = {s: t["notebooks"]["00_welcome"]["language"] for s, t in payload["totals"].items()}
    assert languages == {"ada": "en", "bo": "zh-CN"}
    assert {row["status"] for row in payload["grades"]} <= {"passed", "failed", "not_attempted"}


def test_the_class_report_speaks_the_language_asked_for(gradebook):
    from course_lib.grading.class_report import render_report

    payload = json.loads((gradebook / "grades.json").read_text(encoding="utf-8"))
    with speaking("zh-CN"):
        chinese = render_report(payload)
    english = render_report(payload)
    assert "<h1>班级报告</h1>" in chinese and "<th>通过率</th>" in chinese
    assert "<h1>Class report</h1>" in english and "<th>pass rate</th>" in english


def test_the_scorecard_speaks_the_language_it_is_asked_for():
    from course_lib.grading.results import ExerciseResult, SubmissionResult
    from course_lib.grading.scorecard import scorecard

    rows = [
        ExerciseResult("you", "00_welcome", "00.1", 2, 2, "passed", "passed"),
        ExerciseResult("you", "00_welcome", "00.2", 0, 3, "not_attempted", "not done"),
        ExerciseResult("you", "00_welcome", "00.3", 0, 1, "failed", ""),
    ]
    result = SubmissionResult("you", "00_welcome", rows, notes=["a note"], language="zh-CN")
    with speaking("zh-CN"):
        chinese = scorecard(result).splitlines()
    # The marks use the glossary's words, padded to one width so the ids stay in a column.
    assert chinese[:3] == [
        "00_welcome：2 / 6 分", "  通过     00.1   通过", "  尚未完成 00.2   尚未完成",
    ]  # fmt: skip
    assert "  未通过   00.3   未通过" in chinese
    assert chinese[-1] == "  说明：a note"
    assert scorecard(result).splitlines()[:2] == [
        "00_welcome: 2 / 6 points", "  ok   00.1   passed",
    ]  # fmt: skip


def test_a_check_file_that_cannot_be_read_holds_no_table_and_the_others_are_still_read(tmp_path):
    from course_lib.i18n.messages import check_tables, defined_tables

    lesson = tmp_path / "lesson42"
    lesson.mkdir()
    (lesson / "good.py").write_text('HINTS = {"a": "A hint."}\n', encoding="utf-8")
    (lesson / "latin1.py").write_bytes(b'HINTS = {"a": "caf\xe9"}\n')  # not UTF-8
    (lesson / "broken.py").write_text("HINTS = {\n", encoding="utf-8")  # not Python
    (lesson / "folder.py").mkdir()  # not a file
    assert defined_tables(lesson / "latin1.py") == defined_tables(lesson / "folder.py") == []
    assert check_tables(tmp_path) == {"checks-lesson42": ("course_lib.checks.lesson42.good:HINTS",)}


def test_what_the_grader_says_of_a_fault_speaks_the_edition():
    from course_lib.grading import results

    timeout = {"kind": "timeout"}
    with speaking("zh-CN"):
        assert results._judge(None, None, 30, 2048) == ("error", "检查单元格没有运行")
        chinese = results._judge(timeout, {"kind": "ok"}, 2.5, 2048)
    english = results._judge(timeout, {"kind": "ok"}, 2.5, 2048)
    assert chinese == ("timeout", "练习单元格运行超过 2.5 秒，被停止了（死循环，或者在等一个永远"
                                  "不会来的东西？）；后面的练习照常评分")  # fmt: skip
    assert english[1].startswith("the exercise cell ran for more than 2.5 s and was stopped")


def test_the_local_models_explanation_speaks_the_edition_and_keeps_its_columns():
    from course_lib.local_model import explain_choice
    from course_lib.local_model.scoring import _columns

    weather = {"type": "function", "function": {
        "name": "get_weather", "description": "Will it rain? The weather forecast for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }}  # fmt: skip
    english = explain_choice("Will it rain in 北京?", [weather]).table().splitlines()
    with speaking("zh-CN"):
        chinese = explain_choice("Will it rain in 北京?", [weather]).table().splitlines()
    assert english[1].split() == ["tool", "score", "chosen", "matched", "words"]
    assert chinese[0] == "请求：Will it rain in 北京?"
    assert chinese[-1] == "阈值：0.40；调用：get_weather"
    assert chinese[2].split()[:3] == ["get_weather", "0.60", "调用"]
    # The matched words start in the same column (a Chinese character takes two).
    assert _columns(chinese[1].split("匹配")[0]) == _columns(english[1].split("matched")[0])
    assert _columns(chinese[2].split("rain")[0]) == _columns(english[2].split("rain")[0])


def test_course_check_on_the_chinese_edition_prints_a_chinese_scorecard(tmp_path):
    import shutil

    for sub in ("", "zh-CN"):
        (tmp_path / (sub or "en")).mkdir()
        shutil.copy(ROOT / "notebooks" / sub / "00_welcome.ipynb", tmp_path / (sub or "en"))
    env = {k: v for k, v in os.environ.items() if k != "COURSE_LANG"}

    def check(edition: str, *extra: str) -> subprocess.Popen:
        path = tmp_path / edition / "00_welcome.ipynb"
        return subprocess.Popen(
            [sys.executable, "-m", "course_lib", "check", str(path), *extra],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip

    # The three run at once: each grades one notebook, one thing at a time (measured: 1.5 times
    # as fast as one after another on the 2-core CI box). None passes, so none writes to it.
    started = [check("zh-CN"), check("en"), check("zh-CN", "--lang", "en")]
    try:
        chinese, english, asked = [process.communicate(timeout=300)[0] for process in started]
    finally:
        for process in started:
            if process.poll() is None:  # only after a timeout: stop the others too
                process.kill()
                process.wait()
    assert chinese.startswith("00_welcome：0 / "), chinese
    assert "  尚未完成 00.1   尚未完成" in chinese, chinese
    assert english.startswith("00_welcome: 0 / ") and "  todo 00.1   not done yet" in english
    assert asked.startswith("00_welcome: 0 / ") and "  todo 00.1   not done yet" in asked


def test_the_capstones_scenario_report_speaks_the_edition_and_keeps_the_scenarios_title():
    """run_scenario's report (lesson 09) is the toolkit domain's; the scenario itself, which the
    grader records, keeps its English title."""
    from course_lib.capstone.scenarios import (
        DEMO_DATA,
        Person,
        ScenarioRun,
        Shop,
        report,
        visible_scenarios,
    )

    scenario = visible_scenarios()["price"]
    run = ScenarioRun(scenario, Shop(DEMO_DATA), Person(), offered=[["search_products"]],
                      asked=["search_products"], results=["龙井 68 CNY"])  # fmt: skip
    english = report(run).splitlines()
    with speaking("zh-CN"):
        chinese = report(run).splitlines()
        assert visible_scenarios()["price"].title == "a customer asks for a price"
    assert english[0] == "Scenario price: a customer asks for a price (role customer)"
    assert chinese[0] == "场景 price：顾客询问价格（角色 customer）"
    assert "  request 1 offered: search_products" in english
    assert "  第 1 个请求提供的工具：search_products" in chinese
    assert "  shop changes: none" in english and "  商店数据的变化：无" in chinese


def test_the_notes_on_toolkit_parts_speak_the_submissions_edition(tmp_path, monkeypatch):
    """The report's lines on the parts a lesson takes from earlier lessons are said in the
    edition handed in (they were English on a Chinese scorecard: the grader made them outside
    the submission's language). The run itself is not what this test is about: ``_grade``
    hands back a Chinese lesson 06's result with no rows."""
    from course_lib.grading import GradeOptions, grader
    from course_lib.grading.canonical import default_canonical_dir, load_lessons
    from course_lib.grading.discover import Submission
    from course_lib.grading.results import SubmissionResult

    lessons = load_lessons(default_canonical_dir())
    slug = "06_hardening"

    def graded(language: str) -> list[str]:
        result = SubmissionResult("ada", slug, [], language=language)
        monkeypatch.setattr(grader, "_grade", lambda *args: result)
        submission = Submission("ada", slug, tmp_path / f"{slug}.ipynb")
        return grader.grade_submission(submission, lessons, GradeOptions()).notes

    english, chinese = graded("en"), graded("zh-CN")
    assert english[0].startswith("Parts from earlier lessons: 0 of "), english
    assert any(
        line.startswith("Using the course's run_agent: finish exercise 05.1") for line in english
    )
    assert len(chinese) == len(english), chinese
    for line in chinese:
        assert re.search("[\u4e00-\u9fff]", line) and "Parts from" not in line, chinese
        assert "Using the course's" not in line, chinese
