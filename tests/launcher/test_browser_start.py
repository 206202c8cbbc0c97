"""The address the first start prints, opened in a real browser (Debian's Chromium).

It must show ``00_welcome.ipynb`` with nothing over it: JupyterLab asks "Would you like to get
notified about official Jupyter news?" in a popup that stays until answered, unless the
settings the launcher ships into the environment say no. The second test shows the check below
does see that popup when the settings ask for it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "launcher"
NOTIFICATION_PLUGIN = "@jupyterlab/apputils-extension:notification"
POPUPS = ".Toastify__toast"

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install -y chromium)",
)


@pytest.fixture(scope="module")
def page() -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )  # fmt: skip
        try:
            yield browser.new_page(viewport={"width": 1280, "height": 800})
        finally:
            browser.close()


def open_and_settle(page, url: str) -> None:
    """Open ``url`` and wait until the notebook is drawn and its kernel is idle.

    JupyterLab decides about the news question as soon as its settings are loaded, before it
    opens any document; a kernel takes a good while longer to start. Both tests look at the
    page at this same point; the second waits for the question (bounded), as on a loaded box
    it can come a moment after the kernel.
    """
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)


def current_tab(page) -> str:
    return page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current").first.inner_text()


def popups(page) -> list[str]:
    return page.locator(POPUPS).all_inner_texts()


def test_the_start_url_opens_00_welcome_with_no_popup_over_it(first_start, page):
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
        question.first.wait_for(state="visible", timeout=90_000)
        assert any("official Jupyter news" in text for text in popups(page)), popups(page)
    finally:
        lab.api("PUT", path, {"raw": "{}"})
