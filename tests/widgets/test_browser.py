"""The widgets in a real browser: JupyterLab on loopback, driven by Debian's Chromium.

For each notebook in ``NOTEBOOKS``: open it in JupyterLab (``?reset``), run it from the Run menu
down to its last widget (the cells above it, then that cell: what comes after has no part in a
widget above, and tests/test_notebooks.py runs every cell of every lesson), check that no cell
failed, then find every course widget on the page and make it react as a learner would: type
into a SchemaExplorer, press Call on a ToolForm, look at a ConversationView's colours, change a
ToolChoiceTrace's request. Screenshots go to
``test-artifacts/widgets/``.

For each lesson: open it and check that every Mermaid diagram became a picture. A lesson that
shows widgets is opened once for both tests: the widget test notes its diagrams on the way.

One JupyterLab server and one browser page serve the whole module: JupyterLab is loaded once,
and each test closes what the last one opened and opens its notebook in that same JupyterLab
(its ``docmanager:open`` command, as the file browser does), which saves the few seconds a
fresh JupyterLab takes to start in the page each time; the kernel of each widget test's
notebook is started ahead, while the test before it works in the browser (or, for the first,
while the browser starts), and the notebook connects to it when opened. The notebooks are
copied to a temporary folder first, so JupyterLab never writes to the repository. Chromium is
Debian's (``apt-get install chromium``); without it these tests skip, saying so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from lab_server import (
    STARTED,
    click_into,
    free_port,
    open_alone,
    serving,
    start_kernel_ahead,
    write_settings,
)

from course_lib.widgets import __all__ as WIDGET_NAMES

ROOT = Path(__file__).resolve().parents[2]
# Every notebook that shows a course widget; add lessons here as they use widgets.
NOTEBOOKS = [
    "tests/widgets/notebooks/widgets_demo.ipynb",
    "solutions/01_handwritten_schemas.ipynb",
    "solutions/02_reflection.ipynb",
    "solutions/03_pitfalls.ipynb",
    "solutions/04_registry.ipynb",
    "solutions/05_agent_loop.ipynb",
    "solutions/07_other_protocols.ipynb",
]
# Every lesson, for its diagrams.
LESSONS = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "solutions").glob("*.ipynb"))]
CHROMIUM = Path(os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts" / "widgets"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
# JupyterLab settings for a quiet, deterministic session: no news or update checks (no network,
# no popup over the notebook), no autosave, every cell attached to the page (no windowing).
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}
TIMEOUT_MS = 45_000

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install -y chromium); "
    "set COURSE_CHROMIUM to use another path",
)


@dataclass(frozen=True)
class Lab:
    url: str
    token: str
    log: Path

    def start_url(self) -> str:
        return f"{self.url}/lab?reset&token={self.token}"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A JupyterLab server of this environment on a free loopback port, with its own config."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    for relative in sorted({*NOTEBOOKS, *LESSONS}):
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, target)
    write_settings(base / "settings", LAB_SETTINGS)
    token = os.urandom(16).hex()
    port = free_port()
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "IPYTHONDIR": str(base / "ipython"),
        "JUPYTER_PLATFORM_DIRS": "1",
    }
    command = [
        sys.executable, "-m", "jupyterlab",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        "--ServerApp.open_browser=False", f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}", f"--LabApp.user_settings_dir={base / 'settings'}",
        f"--LabApp.workspaces_dir={base / 'workspaces'}", "--LabApp.news_url=",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, to open notebooks by command
    ]  # fmt: skip
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    log = base / "lab.log"
    with serving(command, cwd=root, env=env, port=port, token=token, log=log) as url:
        yield Lab(url, token, log)


@pytest.fixture(scope="module")
def widget_notebooks(request) -> list[str]:
    """The notebooks whose widget test this session runs, in the order it runs them."""
    return [
        item.callspec.params["notebook"]
        for item in request.session.items
        if getattr(item, "originalname", None)
        == "test_every_widget_in_the_notebook_renders_and_reacts"
    ]


def start_the_next_kernel(lab: Lab, widget_notebooks: list[str], notebook: str | None) -> None:
    """The kernel of the widget test after the one of ``notebook`` (None: the first), started
    ahead (lab_server.start_kernel_ahead): it starts while this test works in the browser."""
    index = 0 if notebook is None else widget_notebooks.index(notebook) + 1
    if index < len(widget_notebooks):
        start_kernel_ahead(lab.url, lab.token, widget_notebooks[index])


@pytest.fixture(scope="module")
def page(lab: Lab, widget_notebooks: list[str]) -> Iterator[object]:
    """One page of the browser with JupyterLab loaded, for every test of the module."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    start_the_next_kernel(lab, widget_notebooks, None)  # while the browser starts
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = chromium.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(lab.start_url())
            page.wait_for_function(STARTED, timeout=TIMEOUT_MS)
            yield page
        finally:
            chromium.close()


def shoot(target, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(ARTIFACTS / f"{name}.png"))


# -- running a notebook -----------------------------------------------------------------------

# The first ``count`` code cells have run (their prompts say ``[n]``).
CELLS_RAN = """count => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
  return prompts.length >= count
    && prompts.slice(0, count).every(p => /\\[\\d+\\]/.test(p.textContent));
}"""
NO_OUTPUTS = """() => document.querySelectorAll('.jp-Notebook .jp-OutputArea-child').length === 0"""
RUNNING = """() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
  .some(p => /\\[[*\\d]+\\]/.test(p.textContent))"""


def menu(page, top: str, item: str, *, until: str) -> None:
    """Click a JupyterLab menu item, as a learner would, until the JavaScript ``until`` holds.

    Right after a notebook opens, a command can still be disabled (the notebook is not yet the
    current widget) and the click does nothing, so it is retried a few times.
    """
    for _attempt in range(4):
        page.locator(".lm-MenuBar-itemLabel").get_by_text(top, exact=True).click()
        page.locator(".lm-Menu-itemLabel").get_by_text(item, exact=True).click()
        accept_kernel_dialog(page)
        try:
            page.wait_for_function(until, timeout=5_000)
            return
        except Exception:  # playwright's TimeoutError: try the menu again
            page.keyboard.press("Escape")
    raise AssertionError(f"{top} > {item} had no effect after 4 tries")


def accept_kernel_dialog(page) -> None:
    """A slow kernel start can make JupyterLab ask which kernel to use: take the preferred one."""
    dialog = page.locator(".jp-Dialog")
    if dialog.count() and "Select Kernel" in dialog.inner_text():
        dialog.locator(".jp-Dialog-button.jp-mod-accept").click()


def open_notebook(page, notebook: str, diagrams: dict[str, dict], *, kernel: bool = True) -> None:
    """Open ``notebook``, alone, and, if it is a lesson with diagrams, note what its diagrams
    look like before anything runs (``diagrams``): the diagram test of the lesson reads this
    visit's note instead of opening the lesson (and starting a kernel) a second time."""
    open_alone(page, notebook, kernel=kernel)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=TIMEOUT_MS)
    if notebook in LESSONS and mermaid_blocks(notebook):
        diagrams[notebook] = diagram_state(page, notebook)


# A code cell that shows a course widget: it calls one by its class's name.
SHOWS_A_WIDGET = re.compile(rf"\b(?:{'|'.join(WIDGET_NAMES)})\(")


def last_widget_cell(notebook: str) -> int:
    """The index, among the code cells of ``notebook``, of the last one that shows a widget."""
    cells = json.loads((ROOT / notebook).read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    shown = [i for i, source in enumerate(sources) if SHOWS_A_WIDGET.search(source)]
    assert shown, f"{notebook} shows no course widget: take it out of NOTEBOOKS"
    return shown[-1]


def run_to_the_last_widget(page, notebook: str, diagrams: dict[str, dict]) -> None:
    """Open ``notebook``, clear its stored outputs (none passes for a fresh one), then run the
    cells above its last widget's cell (Run > Run All Above Selected Cell) and that cell."""
    open_notebook(page, notebook, diagrams)
    idle = ".jp-Notebook-ExecutionIndicator[data-status='idle']"
    page.wait_for_selector(idle, timeout=TIMEOUT_MS)
    accept_kernel_dialog(page)
    page.locator(".jp-Notebook .jp-Cell").first.click()  # make the notebook the current widget
    menu(page, "Edit", "Clear Outputs of All Cells", until=NO_OUTPUTS)
    last = last_widget_cell(notebook)
    widget_cell = page.locator(".jp-Notebook .jp-CodeCell").nth(last)
    click_into(widget_cell, seconds=TIMEOUT_MS / 1000)  # the selected cell, for the menu
    menu(page, "Run", "Run All Above Selected Cell", until=RUNNING)
    click_into(widget_cell, seconds=TIMEOUT_MS / 1000)
    page.keyboard.press("Control+Enter")  # run it, staying there (no new cell at the end)
    page.wait_for_function(CELLS_RAN, arg=last + 1, timeout=TIMEOUT_MS)
    page.wait_for_selector(idle, timeout=TIMEOUT_MS)


def cell_errors(page) -> list[str]:
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    return [errors.nth(i).inner_text()[:500] for i in range(errors.count())]


# -- what each widget must do -----------------------------------------------------------------

PROBE_SOURCE = '''def probe_forecast(city: str, probe_days: int = 3) -> str:
    """Forecast for a city."""
    return city
'''


def check_schema_explorer(widget, name: str) -> None:
    from playwright.sync_api import expect

    output = widget.locator(".course-schema-output")
    expect(output).to_contain_text('"type"')
    widget.locator(".course-source textarea").fill(PROBE_SOURCE)
    expect(output).to_contain_text('"probe_days"')  # in a whole tool and in a parameters schema
    widget.locator("select").select_option(label="Anthropic Messages")
    expect(output).to_contain_text("Reference (Anthropic Messages)")
    shoot(widget, f"{name}-typed")
    widget.locator(".course-source textarea").fill(
        "def broken(*values: int) -> int:\n    return 0\n"
    )
    expect(output.locator(".course-error")).to_contain_text("*values")


def check_tool_form(widget, name: str) -> None:
    from playwright.sync_api import expect

    result = widget.locator(".course-result")
    expect(result).to_contain_text("Press Call")
    strings = widget.locator("input[placeholder='string']")
    filled = False
    for i in range(strings.count()):
        if strings.nth(i).input_value() == "":
            strings.nth(i).fill("北京")
            filled = True
    widget.locator(".course-call-button").click()
    expect(result).not_to_contain_text("Press Call")
    expect(result.locator(".course-sent, .course-error").first).to_be_visible()
    if filled:
        expect(result.locator(".course-sent")).to_contain_text("北京")
    shoot(widget, f"{name}-called")


PAIR_COLOURS = """root => {
  const colours = {};
  for (const box of root.querySelectorAll('[data-call-id]')) {
    const id = box.dataset.callId;
    (colours[id] = colours[id] || []).push(getComputedStyle(box).borderLeftColor);
  }
  return colours;
}"""


def check_conversation(widget, name: str) -> None:
    from playwright.sync_api import expect

    colours: dict[str, list[str]] = widget.evaluate(PAIR_COLOURS)
    pairs = {call_id: seen for call_id, seen in colours.items() if len(seen) == 2}
    unanswered = [call_id for call_id, seen in colours.items() if len(seen) == 1]
    for call_id in unanswered:  # a call with no answer must be flagged, not just left alone
        expect(widget).to_contain_text(f"Call {call_id} was never answered")
    assert pairs or unanswered, f"{name}: no tool call on the page: {colours}"
    for call_id, seen in pairs.items():
        assert seen[0] == seen[1], f"{name}: call {call_id} and its answer differ: {seen}"
    firsts = [seen[0] for seen in pairs.values()]
    assert len(set(firsts)) == len(firsts), f"{name}: two calls share a colour: {pairs}"
    shoot(widget, f"{name}-pairs")


def scores_of(widget) -> dict[str, str]:
    rows = widget.locator(".course-score-row")
    return {
        rows.nth(i).get_attribute("data-tool"): rows.nth(i).get_attribute("data-score")
        for i in range(rows.count())
    }


def check_choice_trace(widget, name: str) -> None:
    before = scores_of(widget)
    assert before, f"{name}: no score rows"
    weakest = min(before, key=lambda tool: float(before[tool]))
    widget.locator(".course-request input").fill(weakest.replace("_", " ") + " please")
    deadline = time.monotonic() + 10
    while scores_of(widget) == before and time.monotonic() < deadline:
        time.sleep(0.1)
    after = scores_of(widget)
    assert after != before, f"{name}: scores did not change after a new request: {before}"
    assert float(after[weakest]) > float(before[weakest])
    shoot(widget, f"{name}-rescored")


CHECKS = {
    "course-schema-explorer": check_schema_explorer,
    "course-tool-form": check_tool_form,
    "course-conversation": check_conversation,
    "course-choice-trace": check_choice_trace,
}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[Path(n).stem for n in NOTEBOOKS])
def test_every_widget_in_the_notebook_renders_and_reacts(
    lab, widget_notebooks, page, diagrams, notebook
):
    start_the_next_kernel(lab, widget_notebooks, notebook)
    stem = Path(notebook).stem
    for stale in ARTIFACTS.glob(f"{stem}-*.png"):
        stale.unlink()
    try:
        run_to_the_last_widget(page, notebook, diagrams)
        assert not cell_errors(page), f"{notebook}: cells failed: {cell_errors(page)}"
        page.wait_for_selector(".course-widget", timeout=TIMEOUT_MS)
        shoot(page, f"{stem}-ran")
        checked = 0
        for css_class, check in CHECKS.items():
            widgets = page.locator(f".{css_class}")
            for i in range(widgets.count()):
                widget = widgets.nth(i)
                widget.scroll_into_view_if_needed()
                check(widget, f"{stem}-{css_class.removeprefix('course-')}-{i}")
                checked += 1
        assert checked == page.locator(".course-widget").count()
    except Exception:
        shoot(page, f"{stem}-failure")
        raise


# -- diagrams ---------------------------------------------------------------------------------

# JupyterLab 4 renders each diagram as an <img> holding the SVG; a diagram that does not parse
# gets a warning instead of a picture.
MERMAID_STATE = """() => ({
  pictures: [...document.querySelectorAll('.jp-RenderedMermaid img')]
    .filter(img => img.src.startsWith('data:image/svg+xml') && img.naturalWidth > 0).length,
  warnings: [...document.querySelectorAll('.jp-RenderedMermaid.jp-mod-warning')]
    .map(e => e.textContent.slice(0, 300)),
})"""


def mermaid_blocks(relative: str) -> int:
    cells = json.loads((ROOT / relative).read_text(encoding="utf-8"))["cells"]
    return sum(
        "".join(cell["source"]).count("```mermaid")
        for cell in cells
        if cell["cell_type"] == "markdown"
    )


def diagram_state(page, notebook: str) -> dict:
    """The diagrams of the lesson open in ``page``, once at least as many pictures as it has
    Mermaid blocks have appeared (or the time ran out): a screenshot of the first, or of the
    page when the state is not the expected one."""
    expected = mermaid_blocks(notebook)
    stem = Path(notebook).stem
    try:
        page.wait_for_function(
            f"() => ({MERMAID_STATE})().pictures >= {expected}", timeout=TIMEOUT_MS
        )
    except Exception:  # playwright's TimeoutError: the test's assertion says what is there
        pass
    state = page.evaluate(MERMAID_STATE)
    if state == {"pictures": expected, "warnings": []}:
        first = page.locator(".jp-RenderedMermaid").first
        first.scroll_into_view_if_needed()
        shoot(first, f"{stem}-diagram")
    else:
        shoot(page, f"{stem}-diagram-failure")
    return state


@pytest.fixture(scope="module")
def diagrams() -> dict[str, dict]:
    """Lesson -> the state of its diagrams, noted when a test of this module opened it."""
    return {}


@pytest.mark.parametrize("notebook", LESSONS, ids=[Path(n).stem for n in LESSONS])
def test_every_mermaid_diagram_of_the_lesson_renders_as_a_picture(page, diagrams, notebook):
    expected = mermaid_blocks(notebook)
    if expected == 0:
        pytest.skip(f"{notebook} has no Mermaid diagram yet (tests/test_lesson_shape.py decides)")
    if notebook not in diagrams:  # no widget test opened it (a lesson without widgets)
        open_notebook(page, notebook, diagrams, kernel=False)  # only looked at: no kernel
    state = diagrams[notebook]
    assert state == {"pictures": expected, "warnings": []}, f"{notebook}: {state}"
