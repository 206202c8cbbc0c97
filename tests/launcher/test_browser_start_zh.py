"""``start --lang zh-CN`` in a real browser (Debian's Chromium): JupyterLab opens the Chinese
lesson 00 with its own menus in Chinese, and a check run there speaks Chinese, while the English
lesson 00 in the same JupyterLab still speaks English (the edition decides, not the server).

In the same JupyterLab, a learner's wrong answer to exercise 00.1 fails its check cell with a
Chinese message and hint, and a Chinese lesson with a widget (lesson 04, solved: its ToolForm)
shows the widget's labels in Chinese and calls the tool from it.

JupyterLab is started from this environment with the launcher's own command and environment for
``--lang zh-CN`` (``jupyter.lab_command``, ``main.command_environ``, ``jupyter.language_environ``),
on a copy of notebooks/ (lesson 04's Chinese notebook replaced by its solution), with its user
settings, workspaces and runtime files in a temporary folder. The tests share one page: the
first opens the start address; the others open their notebook in that same JupyterLab (by its
``docmanager:open`` command, as the file browser does), sooner than loading JupyterLab again.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import lab_server
import pytest
from course_launcher import jupyter, main
from course_launcher.environment import CourseEnv
from lab_server import (
    STARTED,
    free_port,
    open_alone,
    serving,
    start_kernel_ahead,
    write_settings,
)

# How long a step may take before it counts as hung: a bound, not a speed requirement (a busy
# machine may take minutes to start a kernel and run a cell; a step that works ends sooner).
HANG_MS = 300_000

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts" / "launcher"
CHINESE_MENUS = {"文件", "编辑", "查看", "运行", "内核"}
WRONG_CELL = "hard_coded_greeting"
# A wrong answer to 00.1, typed into its exercise cell as a learner would.
WRONG_ANSWER = 'def greeting(name: str) -> str:\n    return "Hello, Ada!"\n'
WIDGET_LESSON = "04_registry"  # a Chinese lesson with a ToolForm, solved (the cells above it run)
WIDGET_CELL = 'ToolForm(registry, "search_notes")'  # the code cell that shows it
RUN_ALL_ABOVE = "运行选中单元格上方的所有单元格"  # JupyterLab's Run > Run All Above Selected Cell
# No autosave, and every cell on the page (no windowing), in this JupyterLab's own settings.
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install -y chromium)",
)


@pytest.fixture(scope="module")
def chinese_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """JupyterLab as ``start --lang zh-CN --no-browser`` runs it; yields its start address."""
    base = tmp_path_factory.mktemp("lab-zh")
    shutil.copytree(ROOT / "notebooks", base / "course" / "notebooks")  # the repository stays as is
    solved = f"zh-CN/{WIDGET_LESSON}.ipynb"
    shutil.copy(ROOT / "solutions" / solved, base / "course" / "notebooks" / solved)
    write_settings(base / "settings", LAB_SETTINGS)
    env = CourseEnv("venv", Path(sys.prefix), ".venv", windows=False)
    token, port = os.urandom(16).hex(), free_port()
    options = [
        "--no-browser", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--LabApp.user_settings_dir={base / 'settings'}",
        f"--LabApp.workspaces_dir={base / 'workspaces'}", "--LabApp.news_url=",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: notebooks opened by command
    ]  # fmt: skip
    lang, options = jupyter.split_language(["--lang", "zh-CN", *options])
    command = jupyter.lab_command(env, base / "course", options, lang)
    outside = {k: v for k, v in os.environ.items() if k not in ("COURSE_LANG", "JPY_SESSION_NAME")}
    outside.update(
        JUPYTER_CONFIG_DIR=str(base / "config"), JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        IPYTHONDIR=str(base / "ipython"), JUPYTER_PLATFORM_DIRS="1",
    )  # fmt: skip
    environ = {**main.command_environ(env, outside), **jupyter.language_environ(env, lang, outside)}
    log = base / "lab.log"
    # a bound for a hung start, not a speed requirement
    with serving(
        command, cwd=ROOT, env=environ, port=port, token=token, log=log, seconds=300
    ) as url:
        # The notebooks' kernels, started ahead while the browser starts (lab_server's
        # start_kernel_ahead): each test's notebook connects to its kernel when opened.
        for notebook in (
            "zh-CN/00_welcome.ipynb",
            "00_welcome.ipynb",
            f"zh-CN/{WIDGET_LESSON}.ipynb",
        ):
            start_kernel_ahead(url, token, notebook)
        yield f"{url}/?token={token}"


# The current notebook's kernel is connected and idle. (The toolbar's execution indicator says
# "idle" as soon as a notebook opens, before its kernel has started; on a busy machine Run All
# then ran no cell, or only the first.)
KERNEL_READY = """() => {
  const widget = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const session = widget && widget.sessionContext && widget.sessionContext.session;
  const kernel = session && session.kernel;
  return !!kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle';
}"""


def settle(page) -> None:
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=HANG_MS)
    page.wait_for_function(KERNEL_READY, timeout=HANG_MS)


def run_the_wrong_greeting(page) -> str:
    """Run lesson 00's "not right yet" example cell as a learner would; return its output."""
    cell = code_cell(page, WRONG_CELL)
    click_into(cell)
    page.keyboard.press("Shift+Enter")
    output = cell.locator(".jp-OutputArea-output")
    output.first.wait_for(state="visible", timeout=HANG_MS)
    return output.first.inner_text()


def test_start_in_chinese_opens_the_chinese_lesson_00_with_jupyterlabs_menus_in_chinese(
    chinese_lab, page
):
    page.goto(chinese_lab)
    settle(page)
    assert page.url.split("?")[0].endswith("/lab/tree/zh-CN/00_welcome.ipynb")
    heading = page.locator(".jp-Notebook h1", has_text="欢迎：这门课怎么学")
    heading.first.wait_for(state="attached", timeout=HANG_MS)  # markdown renders after the cells
    menus = set(page.locator(".lm-MenuBar-itemLabel").all_inner_texts())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "start-zh-CN.png"))
    assert CHINESE_MENUS <= menus, menus
    said = run_the_wrong_greeting(page)
    assert said.startswith("练习 00.1（greeting）未通过。\n用例："), said


def test_the_english_lesson_in_the_same_jupyterlab_still_speaks_english(chinese_lab, page):
    open_lesson(chinese_lab, page, "00_welcome.ipynb")
    said = run_the_wrong_greeting(page)
    assert said.startswith("Exercise 00.1 (greeting) is not right yet.\nCase:"), said


def open_lesson(chinese_lab: str, page, notebook: str) -> None:
    """``notebook`` (a path under notebooks/), alone in the JupyterLab of ``page`` (loaded
    first, should no test have loaded it yet), settled. What was open is closed unasked, so an
    edited notebook left behind never asks whether to save."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    if not page.evaluate(STARTED):  # JupyterLab, with no document open
        page.goto(chinese_lab.replace("/?token=", "/lab?reset&token="))
        page.wait_for_function(STARTED, timeout=HANG_MS)
    open_alone(page, notebook)
    settle(page)


def code_cell(page, text: str):
    cell = page.locator(".jp-NotebookPanel:visible .jp-CodeCell", has_text=text).first
    cell.scroll_into_view_if_needed()
    return cell


def click_into(cell) -> None:
    lab_server.click_into(cell, seconds=HANG_MS / 1000)


def test_a_wrong_answer_in_the_chinese_lesson_00_fails_its_check_with_a_chinese_message_and_hint(
    chinese_lab, page
):
    open_lesson(chinese_lab, page, "zh-CN/00_welcome.ipynb")
    exercise = code_cell(page, 'raise NotImplementedError("练习 00.1')
    click_into(exercise)
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(WRONG_ANSWER)  # no auto-indent or closing quotes
    page.keyboard.press("Shift+Enter")
    check = code_cell(page, 'check("00.1", greeting)')
    click_into(check)
    page.keyboard.press("Shift+Enter")
    output = check.locator(".jp-OutputArea-output")
    output.first.wait_for(state="visible", timeout=HANG_MS)
    said = output.first.inner_text()
    page.screenshot(path=str(ARTIFACTS / "start-zh-CN-check-failed.png"))
    assert "练习 00.1（greeting）未通过。\n用例：greeting('张伟')" in said, said
    assert '期望："Hello, 张伟!"\n实际："Hello, Ada!"' in said, said
    assert "\n提示：文本必须包含传入的名字（'张伟'），一个字符都不能少" in said, said
    assert "Hint:" not in said and "is not right yet" not in said, said


def test_a_chinese_widget_lesson_shows_the_widgets_labels_in_chinese(chinese_lab, page):
    from playwright.sync_api import expect

    open_lesson(chinese_lab, page, f"zh-CN/{WIDGET_LESSON}.ipynb")
    # The lesson up to its ToolForm, as a learner gets there: the cells above it, then its own
    # cell. The rest of the lesson has no part in the widget, and the Call below would wait in
    # the kernel's queue behind all of it.
    widget_cell = code_cell(page, WIDGET_CELL)
    click_into(widget_cell)  # the selected cell, for the menu
    page.locator(".lm-MenuBar-itemLabel").get_by_text("运行", exact=True).click()
    page.locator(".lm-Menu-itemLabel").get_by_text(RUN_ALL_ABOVE, exact=True).click()
    click_into(widget_cell)
    page.keyboard.press("Shift+Enter")
    form = page.locator(".course-tool-form").first
    form.wait_for(state="visible", timeout=HANG_MS)
    form.scroll_into_view_if_needed()
    result = form.locator(".course-result")
    expect(result).to_contain_text("按“调用”运行这个工具。")
    expect(form).to_contain_text("必填")
    button = form.locator(".course-call-button")
    expect(button).to_have_text("调用")
    form.locator("input[placeholder='string']").first.fill("豆腐")
    button.click()
    expect(result.locator(".course-sent")).to_contain_text("豆腐", timeout=HANG_MS)
    expect(result).to_contain_text("Shopping: milk, 豆腐, rice")
    expect(result).not_to_contain_text("按“调用”")
    form.screenshot(path=str(ARTIFACTS / "start-zh-CN-widget.png"))
    said = form.inner_text()
    assert "Press Call" not in said and "required" not in said, said
