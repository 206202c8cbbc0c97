"""The address the first start prints, opened in a real browser (Debian's Chromium).

It must show ``00_welcome.ipynb`` with nothing over it: JupyterLab asks "Would you like to get
notified about official Jupyter news?" in a popup that stays until answered, unless the
settings the launcher ships into the environment say no. The second test shows the check below
does see that popup when the settings ask for it.
"""

from __future__ import annotations

import os
import time
from contextlib import suppress
from pathlib import Path

import pytest
from lab_server import start_kernel_ahead

# How long a step may take before it counts as hung: a bound, not a speed requirement (a busy
# machine may take minutes to start a kernel and run a cell; a step that works ends sooner).
HANG_MS = 300_000

CHROMIUM = Path(os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "launcher"
NOTIFICATION_PLUGIN = "@jupyterlab/apputils-extension:notification"
POPUPS = ".Toastify__toast"
# The notebook's kernel is there and idle: the status bar says "Python 3 (ipykernel) | Idle".
# The toolbar's execution indicator says "idle" from the moment a notebook opens, while the
# status bar still says "No Kernel | Initializing" (seen here); cells run then do nothing.
KERNEL_IDLE = """() => [...document.querySelectorAll('.jp-StatusBar-Item')].some(item => {
  const said = item.textContent.trim();
  return said.endsWith(' | Idle') && !said.startsWith('No Kernel');
})"""

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install -y chromium)",
)


def open_and_settle(page, url: str) -> None:
    """Open ``url`` and wait until the notebook is drawn and its kernel is idle.

    JupyterLab decides about the news question as soon as its settings are loaded, before it
    opens any document; a kernel takes a good while longer to start. Both tests look at the
    page at this same point; the second waits for the question (bounded), as on a loaded box
    it can come a moment after the kernel.
    """
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=HANG_MS)
    page.wait_for_function(KERNEL_IDLE, timeout=HANG_MS)


def current_tab(page) -> str:
    return page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current").first.inner_text()


def popups(page) -> list[str]:
    return page.locator(POPUPS).all_inner_texts()


def test_the_start_url_opens_00_welcome_with_no_popup_over_it(first_start, page):
    # its kernel starts while JupyterLab loads in the page, not after (the notebook connects to it)
    start_kernel_ahead(first_start.lab.base, first_start.lab.token, "00_welcome.ipynb")
    open_and_settle(page, first_start.url)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "start-url.png"))
    assert current_tab(page).strip() == "00_welcome.ipynb"
    assert popups(page) == []


def test_the_popup_check_sees_the_news_question_when_the_settings_ask_for_it(first_start, page):
    lab = first_start.lab
    path = f"/lab/api/settings/{NOTIFICATION_PLUGIN}"
    lab.api("PUT", path, {"raw": '{"fetchNews": "none"}'})  # the learner's own setting wins
    try:
        open_and_settle(page, first_start.url)
        # usually up by now; on a loaded box it may come a little later, so wait for it (bounded)
        question = page.locator(POPUPS).filter(has_text="official Jupyter news")
        question.first.wait_for(state="visible", timeout=HANG_MS)
        assert any("official Jupyter news" in text for text in popups(page)), popups(page)
    finally:
        lab.api("PUT", path, {"raw": "{}"})


def test_where_run_all_stopped_is_marked_in_the_table_of_contents(first_start, page):
    """Lesson 00 says so: Run All stops at the first unfinished exercise, JupyterLab does not
    scroll there, and the table of contents marks that section with a red ⚠ (JupyterLab's own
    "error" state, ``data-running="-0.5"``); clicking it brings the stop into view."""
    lab = first_start.lab
    copy = "run-all-probe.ipynb"
    made = lab.api("POST", "/api/contents", {"copy_from": "09_capstone.ipynb"})
    lab.api("PATCH", f"/api/contents/{made['path']}", {"path": copy})
    start_kernel_ahead(lab.base, lab.token, copy)  # while JupyterLab loads in the page
    fresh = page  # the same page and browser context: JupyterLab's scripts are cached there
    try:
        # ``reset``: the workspace as a first visit has it, whatever the other tests opened
        opening = time.monotonic()
        open_and_settle(fresh, first_start.url.replace("00_welcome.ipynb", copy) + "&reset")
        opening = time.monotonic() - opening  # how fast this machine is now, for the budget below
        fresh.locator(".jp-Notebook .jp-Cell").first.click()
        if not fresh.locator(".jp-TableOfContents-tree").first.is_visible():
            fresh.locator(".jp-SideBar [data-id='table-of-contents']").click()
        fresh.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        fresh.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        marked = fresh.locator(".jp-tocItem-content[data-running='-0.5']")
        # Run All of lesson 09 up to its stop: a budget from this run's own opening time, as
        # a busy machine makes both slower (120 s on a quiet one).
        deadline = time.monotonic() + max(120.0, 20 * opening)
        asked = fresh.locator(".jp-Dialog .jp-mod-accept")
        marked_or_asked = fresh.locator(
            ".jp-tocItem-content[data-running='-0.5'], .jp-Dialog .jp-mod-accept"
        )
        while not marked.count() and time.monotonic() < deadline:
            if asked.count():  # which kernel: as offered
                asked.first.click()
                fresh.wait_for_timeout(100)
            with suppress(Exception):  # playwright's TimeoutError: the loop's bound decides
                marked_or_asked.first.wait_for(
                    state="attached", timeout=max(1.0, deadline - time.monotonic()) * 1000
                )
        marked.first.wait_for(state="visible", timeout=10_000)
        assert marked.count() == 1
        assert "Exercise 09.1" in marked.first.inner_text()
        marked.first.click()
        stop = fresh.locator(".jp-CodeCell", has_text='check("09.1", route)')
        stop.first.wait_for(state="attached", timeout=30_000)
        box = stop.first.bounding_box()
        assert box is not None and box["y"] < 800 and box["y"] + box["height"] > 0  # on screen
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        fresh.screenshot(path=str(ARTIFACTS / "run-all-stop.png"))
        lab.api("DELETE", f"/api/contents/{copy}")
