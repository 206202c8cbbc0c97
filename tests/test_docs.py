"""The README and docs/ say true things: links reach files and headings, the lessons table is the
registered exercises (and the number of capstone scenarios it quotes is the check's), the start
command is on the first screen, and every command shown runs or parses as written.

A command shown in a code block is checked by what it is: the course's own commands are parsed by
the parser that will read them (``course_lib.cli.build_parser``, the launcher's ``start`` and
JupyterLab's own option parser), the read-only ones are run, pytest commands must collect tests,
``export`` names a variable some code reads, conda names ``environment.yml``'s environment, and
the ``curl`` example is sent with the real ``curl`` to a real ``serve-model``. A command this file
does not know fails, so a new one is classified when it is written.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from course_lib import cli
from course_lib.checks.core import EXERCISES, import_lesson

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", ROOT / "README.zh-CN.md", *(ROOT / "docs").glob("*.md")])
SHELL_FENCES = ("bash", "sh", "shell", "console")
# Code blocks that are not shell commands, even with a shell fence (none today).
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
# What one screen of a rendered README shows: a newcomer finds the start command without scrolling.
FIRST_SCREEN_LINES = 30


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def prose(text: str) -> str:
    """The page without its fenced code blocks (a link inside code is not a link)."""
    return FENCE.sub("", text)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"`|\*|_(?=\W)|(?<=\W)_", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for line in prose(path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"#{1,6}\s+(.*)", line)
        if match:
            slug = github_slug(match.group(1))
            number = 0
            while (slug if number == 0 else f"{slug}-{number}") in found:
                number += 1
            found.add(slug if number == 0 else f"{slug}-{number}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_link_to_a_file_reaches_it_and_its_heading(page: Path) -> None:
    broken = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # https:, mailto: ... (no network here)
            continue
        path_part, _, anchor = target.partition("#")
        resolved = (page.parent / path_part).resolve() if path_part else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert not broken, f"{page_id(page)}: " + "; ".join(broken)


def test_github_slug_is_githubs_rule() -> None:
    assert github_slug("With conda") == "with-conda"
    assert github_slug("What `course grade` writes (the gradebook)") == (
        "what-course-grade-writes-the-gradebook"
    )
    assert github_slug("两条命令") == "两条命令"


def registered(notebook: str) -> tuple[list[str], int]:
    """(the notebook's exercise ids in order, its points), as its checks register them."""
    import_lesson(f"lesson{notebook[:2]}")
    specs = [spec for spec in EXERCISES.values() if spec.notebook == notebook]
    ids = sorted((spec.id for spec in specs), key=lambda i: tuple(map(int, i.split("."))))
    return ids, sum(spec.points for spec in specs)


def lessons_table(text: str) -> dict[str, str]:
    rows = {}
    for line in text.splitlines():
        match = re.match(r"\| `(\d\d_\w+)` \|.*\| ([^|]+) \|$", line)
        if match:
            rows[match.group(1)] = match.group(2).strip()
    return rows


@pytest.mark.parametrize(
    ("readme", "to", "cell_format"),
    [("README.md", "to", "{span} ({points})"), ("README.zh-CN.md", "至", "{span}（{points} 分）")],
)
def test_readme_lessons_table_is_the_registered_exercises(readme, to, cell_format) -> None:
    rows = lessons_table((ROOT / readme).read_text(encoding="utf-8"))
    lessons = sorted(path.stem for path in (ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(rows) == lessons, "the table has a row for every lesson, and only those"
    for notebook, cell in rows.items():
        ids, points = registered(notebook)
        span = ids[0] if len(ids) == 1 else f"{ids[0]} {to} {ids[-1]}"
        expected = cell_format.format(span=span, points=points)
        assert cell == expected, f"{notebook}: registered {span}, {points} points"


# How the READMEs write the number of capstone scenarios 09.6 is graded by.
ENGLISH_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
CHINESE_NUMBERS = (
    "零 一 二 三 四 五 六 七 八 九 十 十一 十二 十三 十四 十五 十六 十七 十八 十九 二十"
).split()
SCENARIO_COUNT = {
    "README.md": (r"graded by (\w+) scenarios", ENGLISH_NUMBERS),
    "README.zh-CN.md": (r"由(\w+)个场景", CHINESE_NUMBERS),
}


@pytest.mark.parametrize("readme", sorted(SCENARIO_COUNT))
def test_readme_counts_the_capstones_scenarios(readme) -> None:
    from course_lib.checks.lesson09.assistant.scenarios import scenarios

    pattern, numbers = SCENARIO_COUNT[readme]
    written = re.findall(pattern, (ROOT / readme).read_text(encoding="utf-8"))
    assert written, f"{readme} no longer says how many scenarios grade 09.6: update this test"
    assert [numbers.index(w) if w in numbers else w for w in written] == [len(scenarios())]


def test_readme_start_command_is_on_the_first_screen() -> None:
    for name, command in (
        ("README.md", "bash scripts/start.sh"),
        ("README.zh-CN.md", "bash scripts/start.sh --lang zh-CN"),
    ):
        first_screen = (ROOT / name).read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN_LINES]
        assert command in first_screen, f"{name}: `{command}` alone on a line in the first screen"


def test_readme_is_a_front_page() -> None:
    size = len((ROOT / "README.md").read_bytes())
    assert size <= 8 * 1024, f"README.md is {size} bytes; move detail to docs/"


# --- commands -------------------------------------------------------------------------------


def shown_commands() -> list[tuple[str, str]]:
    """(page, command) for every command line in a shell code block, continuations joined."""
    found = []
    for page in PAGES:
        for fence, body in FENCE.findall(page.read_text(encoding="utf-8")):
            if fence not in SHELL_FENCES:
                continue
            for line in body.replace("\\\n", " ").splitlines():
                words = shlex.split(line, comments=True)
                if words:
                    found.append((page_id(page), " ".join(shlex.quote(w) for w in words)))
    return found


INLINE_COMMAND = re.compile(
    r"`((?:bash|python3?|py|\.venv/bin/python|pip|conda|curl|export) [^`]+)`"
)


def inline_commands() -> list[tuple[str, str]]:
    """(page, command) for every command written in running text as inline code."""
    found = []
    for page in PAGES:
        for command in INLINE_COMMAND.findall(prose(page.read_text(encoding="utf-8"))):
            # Windows spelling: `py scripts\course.py ...` is the same launcher
            words = shlex.split(command.replace("\\", "/"))
            found.append((page_id(page), " ".join(shlex.quote(w) for w in words)))
    return found


COMMANDS = sorted(set(shown_commands() + inline_commands()))


def read_by_some_code(variable: str) -> bool:
    """Some Python source reads ``variable`` by name: the course's, or the SDKs' (which read
    ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``ANTHROPIC_API_KEY`` themselves)."""
    import anthropic
    import openai

    places = [ROOT / "course_lib", Path(openai.__file__).parent, Path(anthropic.__file__).parent]
    found = subprocess.run(["grep", "-rqF", "--include=*.py", f'"{variable}"', *map(str, places)])
    return found.returncode == 0


def check_course_lib(words: list[str]) -> str:
    """Parse ``course_lib`` arguments with the course's own parser; run the read-only ones."""
    try:
        cli.build_parser(words[0] if words else None).parse_args(words)
    except SystemExit as exit_:
        raise AssertionError(
            f"`course {' '.join(words)}` does not parse (exit {exit_.code})"
        ) from None
    for word in words:
        if word.endswith(".ipynb") and "NN" not in word:
            assert (ROOT / word).is_file(), f"{word} does not exist"
    # Running them is other tests' work (tests/authoring, tests/i18n, tests/grading ...).
    return "parsed"


def check_launcher(words: list[str]) -> str:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from course_launcher import jupyter
        from course_launcher.main import LIBRARY_COMMANDS
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    command, arguments = words[0], words[1:]
    if command == "--help":
        return "parsed"
    if command == "test":
        assert arguments == [], "the README's test command takes no arguments"
        return "parsed"
    if command in LIBRARY_COMMANDS:
        return check_course_lib(words)
    assert command == "start", f"unknown launcher command {command!r}"
    _, rest = jupyter.split_language(arguments)
    from jupyterlab.labapp import LabApp

    LabApp().parse_command_line(rest)  # JupyterLab's own parser: an unknown flag raises
    return "parsed"


def check_python(words: list[str]) -> str:
    if words[:2] == ["-m", "course_lib"]:
        return check_course_lib(words[2:])
    if words[:2] == ["-m", "pytest"]:
        result = subprocess.run(
            [sys.executable, *words, "--collect-only"], cwd=ROOT, capture_output=True, text=True
        )
        # pytest exits 5 when the paths and -k select no test
        assert result.returncode == 0, result.stdout[-2000:]
        return "collected"
    if words[0] == "scripts/course.py":
        return check_launcher(words[1:])
    if words[0] == "-m" and words[1].startswith("course_lib."):
        # a module run on its own: it exists, and takes the options shown
        source = ROOT / (words[1].replace(".", "/") + ".py")
        if not source.is_file():
            source = source.with_suffix("") / "__main__.py"
        assert source.is_file(), f"no module {words[1]}"
        return check_options(source, words[2:])
    if words[0].startswith("benchmarks/"):
        assert (ROOT / words[0]).is_file(), f"{words[0]} does not exist"
        return check_options(ROOT / words[0], words[1:])
    raise AssertionError(f"a python command this test does not know: {words}")


def check_options(script: Path, words: list[str]) -> str:
    """The options shown are options the script's argparse parser declares (``[--x]``: optional)."""
    text = script.read_text("utf-8")
    for module in re.findall(r"^from (course_lib[\w.]*) import", text, re.M):
        helper = ROOT / (module.replace(".", "/") + ".py")  # options declared by a helper
        text += helper.read_text("utf-8") if helper.is_file() else ""
    declared = set(re.findall(r"add_argument\(\s*\"(--[\w-]+)\"", text))
    options = [word.strip("[]") for word in words if word.strip("[").startswith("--")]
    given = {option.partition("=")[0] for option in options}
    assert given <= declared, f"{script.name} has no option {sorted(given - declared)}"
    return "parsed"


def check_curl(words: list[str]) -> str:
    """Send the example as written, to a real ``serve-model`` on the port the example names."""
    url = next(w for w in words if w.startswith("http://"))
    port = int(re.match(r"http://127\.0\.0\.1:(\d+)/", url).group(1))
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            pytest.skip(f"port {port} is busy here")
    server = subprocess.Popen(
        [sys.executable, "-m", "course_lib", "serve-model", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        server.stdout.readline()  # the server says where it listens once it does
        result = subprocess.run(
            ["curl", "-sS", "--fail-with-body", *words[1:]], capture_output=True, text=True
        )
    finally:
        server.terminate()
        server.wait()
    assert result.returncode == 0, result.stdout + result.stderr
    assert '"chat.completion"' in result.stdout
    return "ran"


def check(words: list[str]) -> str:
    program = words[0]
    if program in ("python", "python3", "py", ".venv/bin/python"):
        return check_python(words[1:])
    if program == "bash":
        assert words[1] in ("scripts/start.sh", "scripts/test.sh"), words
        return check_launcher([words[1].split("/")[1].removesuffix(".sh"), *words[2:]])
    if program == "conda":
        env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
        if words[1] == "activate":
            assert words[2] == env["name"], f"environment.yml names {env['name']!r}"
        else:
            assert words[1:] == ["env", "create", "-f", "environment.yml"], words
        return "checked"
    if program == "export":
        name = words[1].partition("=")[0]
        assert read_by_some_code(name), f"no code reads {name}"
        return "checked"
    if program == "sbatch":
        wrapped = shlex.split(words[words.index("--wrap") + 1])
        return check(wrapped)
    if program == "curl":
        return check_curl(words)
    if program == "pip" and words[1:] == ["install", "./my_toolkit"]:
        # what `course toolkit` writes by default; tests/toolkit installs it with pip
        assert cli.build_parser("toolkit").parse_args(["toolkit"])
        return "parsed"
    raise AssertionError(f"a command this test does not know how to check: {words}")


@pytest.mark.parametrize(("page", "command"), COMMANDS, ids=[f"{p}: {c}" for p, c in COMMANDS])
def test_every_command_shown_runs_or_parses_as_written(page: str, command: str) -> None:
    words = shlex.split(command)
    # Placeholders a reader fills in are given a value a reader might type.
    fill = {"SUBMISSIONS": "submissions", "NOTEBOOK": "notebooks/00_welcome.ipynb"}
    words = [fill.get(w, w) for w in words]
    words = [re.sub(r"\$SLURM_\w+", "1", w) for w in words]
    env_before = dict(os.environ)
    try:
        assert check(words) in ("ran", "parsed", "collected", "checked")
    finally:
        os.environ.clear()
        os.environ.update(env_before)


def test_an_unknown_command_is_not_waved_through() -> None:
    with pytest.raises(AssertionError, match="does not know"):
        check(["make", "install"])
    with pytest.raises(AssertionError, match="does not parse"):
        check(["python", "-m", "course_lib", "grade", "--no-such-option"])
