"""The trace viewer in a real headless Chromium, opened from file:// as a user would."""

import os
import shutil
from pathlib import Path

import pytest

from mcot.viewer import write_viewer

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason="Debian's chromium is not installed (.ci/run installs it)",
)


def test_viewer_shows_a_trace_with_its_canvas_images(handmade_run: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    page_path = write_viewer(handmade_run)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=CHROMIUM_FLAGS,  # playwright gives each launch a fresh profile
        )
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(page_path.as_uri())
            entries = page.locator(".entry")
            assert entries.count() == 2
            page.fill("#filter", "canvas")
            assert entries.count() == 1
            entries.first.click()
            assert page.locator(".step").count() == 5
            assert "Which exit? </script>" in page.inner_text(".question")
            images = page.locator("#main img")
            assert images.count() == 2
            page.wait_for_function("() => document.querySelector('#main img').naturalWidth > 0", timeout=10_000)
            width = page.evaluate("() => document.querySelector('#main img').naturalWidth")
            assert width == 8  # the blob loaded from file://
            assert errors == []
        finally:
            browser.close()
