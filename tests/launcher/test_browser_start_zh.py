"""``start --lang zh-CN`` in a real browser (Debian's Chromium): JupyterLab opens the Chinese
lesson 00 with its own menus in Chinese, and a check run there speaks Chinese, while the English
lesson 00 in the same JupyterLab still speaks English (the edition decides, not the server).

JupyterLab is started from this environment with the launcher's own command and environment for
``--lang zh-CN`` (``jupyter.lab_command``, ``main.command_environ``, ``jupyter.language_environ``),
on a copy of notebooks/, with its user settings, workspaces and runtime files in a temporary
folder.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from course_launcher import jupyter, main
from course_launcher.environment import CourseEnv
from lab_server import free_port, serving, write_settings

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts" / "launcher"
CHINESE_MENUS = {"文件", "编辑", "查看", "运行", "内核"}
WRONG_CELL = "hard_coded_greeting"
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
    write_settings(base / "settings", LAB_SETTINGS)
    env = CourseEnv("venv", Path(sys.prefix), ".venv", windows=False)
    token, port = os.urandom(16).hex(), free_port()
    options = [
        "--no-browser", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--LabApp.user_settings_dir={base / 'settings'}",
        f"--LabApp.workspaces_dir={base / 'workspaces'}", "--LabApp.news_url=",
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
        yield f"{url}/?token={token}"


def settle(page) -> None:
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)


def run_the_wrong_greeting(page) -> str:
    """Run lesson 00's "not right yet" example cell as a learner would; return its output."""
    cell = page.locator(".jp-NotebookPanel:visible .jp-CodeCell", has_text=WRONG_CELL).first
    cell.scroll_into_view_if_needed()
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    output = cell.locator(".jp-OutputArea-output")
    output.first.wait_for(state="visible", timeout=90_000)
    return output.first.inner_text()


def test_start_in_chinese_opens_the_chinese_lesson_00_with_jupyterlabs_menus_in_chinese(
    chinese_lab, page
):
    page.goto(chinese_lab)
    settle(page)
    assert page.url.split("?")[0].endswith("/lab/tree/zh-CN/00_welcome.ipynb")
    heading = page.locator(".jp-Notebook h1", has_text="欢迎：这门课怎么学")
    heading.first.wait_for(state="attached", timeout=90_000)  # markdown renders after the cells
    menus = set(page.locator(".lm-MenuBar-itemLabel").all_inner_texts())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "start-zh-CN.png"))
    assert CHINESE_MENUS <= menus, menus
    said = run_the_wrong_greeting(page)
    assert said.startswith("练习 00.1（greeting）未通过。\n用例："), said


def test_the_english_lesson_in_the_same_jupyterlab_still_speaks_english(chinese_lab, page):
    page.goto(chinese_lab.replace("/?token=", "/lab/tree/00_welcome.ipynb?reset&token="))
    settle(page)
    said = run_the_wrong_greeting(page)
    assert said.startswith("Exercise 00.1 (greeting) is not right yet.\nCase:"), said
