"""The HTML report and the trace viewer load nothing from the network, even when a model's answers and traces
are full of remote URLs (images, stylesheets, imports, frames).

Static: every tag attribute that loads something (src, href, srcset, poster, data, action, background), every
style (attribute or element: url(...) and @import) and every script src of the generated pages is local.
In a browser (headless Chromium, when installed): opening the report and the viewer (on a poisoned trace)
requests nothing but file: and data: URLs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

EVIL = "evil.example"
PAYLOADS = [
    f'<img src="https://{EVIL}/img.png">',
    f'<link rel="stylesheet" href="http://{EVIL}/s.css">',
    f"<style>@import url(http://{EVIL}/i.css); body {{ background: url('https://{EVIL}/b.png') }}</style>",
    f'<iframe src="//{EVIL}/frame"></iframe>',
    f'<script src="https://{EVIL}/x.js"></script>',
    f"![chart](https://{EVIL}/md.png)",
    f'<svg><image href="https://{EVIL}/svg.png"/></svg>',
    f"https://{EVIL}/plain-link",
]
LOADING_ATTRIBUTES = {"src", "href", "srcset", "poster", "data", "action", "background", "formaction", "xlink:href"}
REMOTE = re.compile(r"^\s*(?:https?:|ftp:|//|\\\\)", re.IGNORECASE)
CSS_REMOTE = re.compile(r"url\(\s*['\"]?\s*(?:https?:|//)|@import", re.IGNORECASE)


class _Loads(HTMLParser):
    """Collects what an HTML page would load: attribute URLs of every tag and the text of its style elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[tuple[str, str, str]] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in LOADING_ATTRIBUTES:
                for part in value.split(",") if name == "srcset" else [value]:
                    self.urls.append((tag, name, part.strip()))
            if name == "style":
                self.styles.append(value)
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def remote_loads(html: str) -> list[str]:
    """Return every remote resource an HTML page would load on its own (tags, styles), as "tag attr=value"."""
    parser = _Loads()
    parser.feed(html)
    found = [f"<{tag} {name}={value}>" for tag, name, value in parser.urls if REMOTE.match(value)]
    found += [f"style: {style[:80]}" for style in parser.styles if CSS_REMOTE.search(style)]
    return found


def test_the_scan_sees_remote_loads() -> None:
    page = "".join(PAYLOADS[:5]) + '<div style="background:url(//x/y)"></div><img srcset="a.png 1x, https://x/b 2x">'
    assert len(remote_loads(page)) == 7
    assert remote_loads('<img src="blobs/a.png"><a href="#id=1">x</a><svg xmlns="http://www.w3.org/2000/svg">') == []


def _mcot(*args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    done = subprocess.run([sys.executable, "-m", "mcot", *args], capture_output=True, text=True, cwd=cwd, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _poison(run: Path) -> str:
    """Put every payload into the run's predictions and trace texts; return the id of one poisoned pair."""
    text = "Look: " + " ".join(PAYLOADS) + " \\boxed{A}"
    lines = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
    for record in lines:
        record["prediction"] = text
        if record.get("trace"):
            path = run / record["trace"]
            steps = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            for step in steps:
                if step.get("kind") == "model":
                    step["text"] = text
                if step.get("kind") == "tool":
                    step["result"] = text
            path.write_text("".join(json.dumps(step) + "\n" for step in steps))
    (run / "results.jsonl").write_text("".join(json.dumps(record) + "\n" for record in lines))
    return f"{lines[0]['id']}"


def _items(root: Path) -> Path:
    """Write items whose category, question and choices carry the payloads (a dataset can hold anything)."""
    import io

    from PIL import Image

    from mcot.core.item import Item, write_items

    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "white").save(buffer, format="PNG")
    items = [
        Item(
            id=f"q{i}",
            benchmark="games",
            category=f"maze {PAYLOADS[i % len(PAYLOADS)]}",
            question="Which exit? " + " ".join(PAYLOADS),
            images=["images/q.png"],
            choices=PAYLOADS[:4],
            answer="A",
            answer_type="choice",
        )
        for i in range(3)
    ]
    return write_items(root / "items", [(item, {"images/q.png": buffer.getvalue()}) for item in items]) and (
        root / "items"
    )


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    root = tmp_path_factory.mktemp("remote")
    items = _items(root)
    _mcot("run", "--data", str(items), "--model", "offline", "--mode", "text,canvas", "--out", "run", cwd=root)
    run = root / "run"
    first = _poison(run)
    _mcot("score", str(run), cwd=root)
    _mcot("view", str(run), cwd=root)
    yield run, first


def test_the_report_and_the_viewer_load_nothing_remote(pages: tuple[Path, str]) -> None:
    run, _ = pages
    html = {name: (run / name).read_text(encoding="utf-8") for name in ("report.html", "index.html")}
    assert EVIL in html["report.html"]  # the payloads reached the report (as text)
    for name, page in html.items():
        assert remote_loads(page) == [], name
    scripts = list((run / "index_files").glob("*.js"))
    assert scripts and any(EVIL in p.read_text(encoding="utf-8") for p in scripts)  # poisoned traces, as data


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (.ci/run installs it)")
def test_a_browser_opening_them_requests_nothing_remote(pages: tuple[Path, str]) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    run, first = pages
    requested: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
        )
        try:
            context = browser.new_context()

            def record(route: Any) -> None:
                requested.append(route.request.url)
                if route.request.url.startswith(("file:", "data:", "blob:", "about:")):
                    route.continue_()
                else:
                    route.abort()

            context.route("**/*", record)
            page = context.new_page()
            page.goto((run / "report.html").as_uri())
            page.wait_for_load_state("load")
            for mode in ("text", "canvas", "tools"):
                page.goto((run / "index.html").as_uri() + f"#id={first}&mode={mode}")
                page.wait_for_selector("body[data-ready]")
                page.wait_for_timeout(200)
        finally:
            browser.close()
    remote = [url for url in requested if not url.startswith(("file:", "data:", "blob:", "about:"))]
    assert requested and remote == []
