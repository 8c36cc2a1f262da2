"""The trace viewer in a real headless Chromium (Debian's, driven by playwright), opened from file:// as a user would:
filters with counts, deep links and back/forward, j/k, side by side, lazy images, generated and edited images,
step counts, and payloads in every text field staying text."""

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from viewer_runs import (
    EVIL_ID,
    EVIL_TEXT,
    PAYLOADS,
    generation_run,
    judged_generation_run,
    offline_tools_run,
    payload_run,
    triage_run,
)

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

pytestmark = [
    pytest.mark.skipif(
        not Path(CHROMIUM).exists() and not os.environ.get("CI"),
        reason="Debian's chromium is not installed (.ci/run installs it)",
    ),
    pytest.mark.long_running,
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module (playwright gives each page's context a fresh profile)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page whose script errors fail the test."""
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    yield opened
    context.close()
    assert errors == []


def visit(page: Any, viewer: Path, **state: Any) -> None:
    """Open the viewer with a hash made of `state` (lists repeat the key) and wait until its script ran."""
    query = urlencode([(k, v) for k, vs in state.items() for v in (vs if isinstance(vs, list) else [vs])])
    page.goto(viewer.as_uri() + ("#" + query if query else ""))
    page.wait_for_selector("body[data-ready]")


def listed(page: Any) -> list[tuple[str, str]]:
    """Return the (id, arm) pairs of the filtered list, in order."""
    return [(row["id"], row["mode"]) for row in page.evaluate("window.mcot.filtered()")]


def entries(page: Any) -> list[tuple[str, str]]:
    """Return the (id, arm) pairs of the list rows in the DOM."""
    return [
        (entry.locator("b.id").inner_text(), entry.locator(".b-arm").inner_text())
        for entry in page.locator(".entry").all()
    ]


def chip(page: Any, group: str, value: str) -> Any:
    return page.locator(f'label.chip[data-group="{group}"][data-value="{value}"]')


def count(page: Any, group: str, value: str) -> int:
    return int(chip(page, group, value).locator(".count").inner_text())


def hash_state(page: Any) -> dict[str, list[str]]:
    """Return the URL's hash parameters as the page reads them."""
    return page.evaluate(
        "() => { const p = new URLSearchParams(location.hash.slice(1)); const o = {};"
        " for (const [k, v] of p) (o[k] = o[k] || []).push(v); return o; }"
    )


def shown(page: Any, item_id: str, arm: str) -> None:
    """Wait until the detail pane shows (item_id, arm)."""
    page.wait_for_function(
        "([id, arm]) => { const h = document.querySelector('.item h2'), c = document.querySelector('.column');"
        " return h && c && h.textContent === id && c.getAttribute('data-arm') === arm; }",
        arg=[item_id, arm],
    )


@pytest.fixture
def triage(tmp_path: Path) -> Path:
    return write_viewer(triage_run(tmp_path / "run"))


def test_wrong_and_canvas_list_exactly_the_wrong_canvas_traces_with_counts(page: Any, triage: Path) -> None:
    visit(page, triage)
    assert page.locator("#shown").get_attribute("data-count") == "15" and len(entries(page)) == 15
    assert page.locator("#main img").count() == 0  # nothing selected, no image in the page
    assert (count(page, "correct", "wrong"), count(page, "correct", "error"), count(page, "arm", "canvas")) == (6, 2, 5)
    assert (count(page, "verdict", "invalid"), count(page, "verdict", "none"), count(page, "status", "budget")) == (
        2,
        10,
        1,
    )
    chip(page, "correct", "wrong").click()
    page.wait_for_function("document.querySelector('#shown').dataset.count === '6'")
    assert (count(page, "arm", "text"), count(page, "arm", "canvas"), count(page, "arm", "tools")) == (2, 3, 1)
    assert count(page, "correct", "right") == 6  # the other choices count what they would add
    chip(page, "arm", "canvas").click()
    page.wait_for_function("document.querySelector('#shown').dataset.count === '3'")
    assert listed(page) == entries(page) == [("m1", "canvas"), ("d1", "canvas"), ("g1", "canvas")]
    assert (count(page, "correct", "wrong"), count(page, "correct", "right"), count(page, "correct", "unjudged")) == (
        3,
        2,
        0,
    )
    assert (count(page, "category", "maze"), count(page, "benchmark", "gepbench")) == (1, 1)
    assert hash_state(page) == {"arm": ["canvas"], "correct": ["wrong"]}
    chip(page, "correct", "right").click()  # two choices of one group: either
    page.wait_for_function("document.querySelector('#shown').dataset.count === '5'")
    chip(page, "verdict", "invalid").click()  # and a third group: all of them
    page.wait_for_function("document.querySelector('#shown').dataset.count === '2'")
    assert listed(page) == [("m1", "canvas"), ("m2", "canvas")]
    page.click("#clear")
    page.wait_for_function("document.querySelector('#shown').dataset.count === '15'")


def test_free_text_matches_ids_and_every_word_of_the_question(page: Any, triage: Path) -> None:
    visit(page, triage)
    page.fill("#q", "exit the")
    assert {item for item, _ in listed(page)} == {"m1", "m2"}
    page.fill("#q", "exit RED")
    assert {item for item, _ in listed(page)} == {"m2"}
    page.fill("#q", "1")
    assert {item for item, _ in listed(page)} == {"m1", "d1", "g1"}  # by id
    page.fill("#q", "larger g")
    assert {item for item, _ in listed(page)} == {"g2"}  # a word of the question and part of the id
    page.fill("#q", "wrong")  # an answer class is a filter, not text
    assert listed(page) == [] and page.locator("#shown").inner_text() == "0 of 15 traces"
    assert hash_state(page) == {"q": ["wrong"]}


def test_a_deep_link_opens_the_same_trace_and_filters_and_back_forward_work(page: Any, triage: Path) -> None:
    visit(page, triage, id="m1", mode="canvas", arm="canvas", correct="wrong", q="exit")
    shown(page, "m1", "canvas")
    assert listed(page) == [("m1", "canvas")] and page.input_value("#q") == "exit"
    assert chip(page, "arm", "canvas").locator("input").is_checked()
    assert chip(page, "correct", "wrong").locator("input").is_checked()
    assert page.locator(".entry.active b.id").inner_text() == "m1"
    link = page.url
    page.click("#clear")
    page.wait_for_function("document.querySelector('#shown').dataset.count === '15'")
    page.locator(".entry", has=page.locator("b.id", has_text="g2")).locator(".b-arm", has_text="tools").click()
    shown(page, "g2", "tools")
    assert hash_state(page) == {"id": ["g2"], "mode": ["tools"]}
    page.go_back()
    page.wait_for_function("document.querySelector('#shown').dataset.count === '15'")
    shown(page, "m1", "canvas")
    page.go_back()
    page.wait_for_function("document.querySelector('#shown').dataset.count === '1'")
    assert page.url == link and page.input_value("#q") == "exit"
    page.go_forward()
    page.go_forward()
    shown(page, "g2", "tools")
    fresh = page.context.new_page()
    fresh.goto(link)
    fresh.wait_for_selector("body[data-ready]")
    shown(fresh, "m1", "canvas")
    assert listed(fresh) == [("m1", "canvas")]
    fresh.close()


def test_j_and_k_walk_the_filtered_list(page: Any, triage: Path) -> None:
    visit(page, triage, correct="wrong")
    order = [("m1", "text"), ("m1", "canvas"), ("d1", "canvas"), ("g1", "text"), ("g1", "canvas"), ("g2", "tools")]
    assert listed(page) == order
    keys = ["j", "j", "j", "j", "k", "k", "j", "j", "j", "j", "j"]
    for key, expected in zip(keys, [0, 1, 2, 3, 2, 1, 2, 3, 4, 5, 5], strict=True):
        page.keyboard.press(key)
        shown(page, *order[expected])
        assert hash_state(page)["id"] == [order[expected][0]] and hash_state(page)["mode"] == [order[expected][1]]
        active = page.locator(".entry.active")
        assert (active.locator("b.id").inner_text(), active.locator(".b-arm").inner_text()) == order[expected]
    page.focus("#q")
    page.keyboard.press("k")  # typing in the search box is not navigation
    assert page.input_value("#q") == "k"


def test_side_by_side_shows_the_same_item_in_two_arms(page: Any, triage: Path) -> None:
    visit(page, triage, id="m1", mode="canvas")
    shown(page, "m1", "canvas")
    page.keyboard.press("s")
    page.wait_for_selector(".columns.two")
    columns = page.locator(".column")
    assert [columns.nth(n).get_attribute("data-arm") for n in range(2)] == ["canvas", "text"]
    assert hash_state(page)["vs"] == ["text"]
    assert "wrong" in columns.nth(1).locator("h3").inner_text()
    page.keyboard.press("v")
    page.wait_for_function("document.querySelectorAll('.column')[1].dataset.arm === 'tools'")
    assert "5 model turns, 4 tool calls (1 failed), 5 canvas images" in columns.nth(0).inner_text()
    assert "3 model turns, 2 tool calls, 3 canvas images" in columns.nth(1).inner_text()
    assert page.locator(".question").count() == 1  # the item once, its arms beside each other
    page.keyboard.press("j")  # the next trace, m1/tools, is the other side: it compares with another arm
    shown(page, "m1", "tools")
    assert hash_state(page)["vs"] == ["text"]
    page.select_option("#vs", "canvas")
    page.wait_for_function("document.querySelectorAll('.column')[1]?.dataset.arm === 'canvas'")
    page.keyboard.press("s")
    page.wait_for_function("document.querySelectorAll('.column').length === 1")
    assert "vs" not in hash_state(page)


def test_only_the_selected_traces_images_are_in_the_page_and_they_load_lazily(page: Any, triage: Path) -> None:
    visit(page, triage, id="m1", mode="canvas")
    shown(page, "m1", "canvas")
    images = page.locator("img")
    assert images.count() == 6  # the item's image and the trace's 5 canvas images
    assert {images.nth(n).get_attribute("loading") for n in range(6)} == {"lazy"}
    page.wait_for_function("() => document.querySelector('.step img').naturalWidth > 0", timeout=10_000)
    assert page.evaluate("document.querySelector('.step img').naturalWidth") == 8  # the blob, from file://
    assert page.evaluate("document.querySelector('.question img').naturalWidth") == 8  # the item's image
    page.keyboard.press("j")
    shown(page, "m1", "tools")
    assert images.count() == 4


def test_step_counts_say_what_they_count(page: Any, triage: Path) -> None:
    visit(page, triage, arm="canvas", category="maze")
    rows = page.locator(".entry .stepcounts")
    assert rows.all_inner_texts() == [
        "5 model turns, 4 tool calls (1 failed), 5 canvas images",
        "2 model turns, 1 tool call, 2 canvas images",
    ]
    visit(page, triage, id="m2", mode="tools")
    shown(page, "m2", "tools")
    assert page.locator(".column .counts").inner_text() == "no trace recorded"
    assert "the model timed out" in page.locator(".column pre.error").inner_text()


def test_generated_images_and_diagram_edits_are_shown(page: Any, tmp_path: Path) -> None:
    viewer = write_viewer(generation_run(tmp_path / "run"))
    visit(page, viewer, id="edit-1", mode="canvas")
    shown(page, "edit-1", "canvas")
    captions = page.locator(".outcome + .figures figcaption").all_inner_texts()
    assert captions == ["input", "reference", "output (final canvas)"]
    page.wait_for_function("() => [...document.querySelectorAll('.figures img')].every((i) => i.naturalWidth > 0)")
    visit(page, viewer, id="light-1", mode="procedural")
    shown(page, "light-1", "procedural")
    assert page.locator(".column .counts").inner_text() == "1 generator call, 1 generated image"
    assert page.locator(".outcome + .figures figcaption").all_inner_texts() == ["generated image"]
    page.wait_for_function("() => document.querySelector('.figures img').naturalWidth === 16")
    assert "shadow_sun" in page.locator("details pre").text_content()


def test_judged_images_are_labelled_by_their_ratings_and_counted_rated_not_unjudged(page: Any, tmp_path: Path) -> None:
    viewer = write_viewer(judged_generation_run(tmp_path / "gen"))  # made by mcot imagine + mcot score --judge
    visit(page, viewer)
    assert (count(page, "correct", "rated"), count(page, "correct", "unjudged")) == (6, 0)
    ratings = "authenticity 4 · aesthetics 4 · fidelity 3"
    assert page.locator(".entry .badge.b-rated").all_inner_texts() == [ratings] * 6
    chip(page, "correct", "rated").click()
    page.wait_for_function("document.querySelector('#shown').dataset.count === '6'")
    visit(page, viewer, id="direct_light_images_1", mode="procedural")
    shown(page, "direct_light_images_1", "procedural")
    assert page.locator(".column h3 .badge").first.inner_text() == ratings
    assert "extracted: authenticity 4; aesthetics 4; fidelity 3" in page.locator(".outcome").inner_text()


def test_only_the_steps_a_tool_drew_say_drawn_by_a_tool(page: Any, tmp_path: Path) -> None:
    viewer = write_viewer(offline_tools_run(tmp_path))  # made by mcot gen games + mcot run --mode tools
    visit(page, viewer, id="dots-0-00000", mode="tools")
    shown(page, "dots-0-00000", "tools")
    titles = page.locator(".step.k-tool h4").all_inner_texts()
    marked = {title.split(" · ")[1]: "drawn by a tool" in title for title in titles}
    assert marked["detect_shapes"] is False and marked["measure"] is False and marked["analyze_polygon"] is True


def test_payloads_in_ids_questions_answers_and_tool_arguments_stay_text(page: Any, tmp_path: Path) -> None:
    viewer = write_viewer(payload_run(tmp_path / "run"))
    visit(page, viewer)
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator(".entry b.id").first.inner_text() == EVIL_ID
    visit(page, viewer, id=EVIL_ID, mode="canvas")
    shown(page, EVIL_ID, "canvas")
    question = f"Question {EVIL_TEXT} [click](javascript:window.pwned='md')"
    assert page.locator(".question-text").inner_text() == question
    assert page.locator(".column pre.prediction").inner_text() == f"Answer: {EVIL_TEXT}"
    arguments = page.locator(".step pre.arguments").inner_text()
    assert PAYLOADS[2] in arguments and PAYLOADS[5] in arguments and "window.pwned='img'" in arguments
    assert page.locator(".step pre.calls").inner_text().startswith(f"→ {PAYLOADS[0]}(")
    assert page.locator(".step h4").nth(2).inner_text() == f"#2 tool · {PAYLOADS[3]}"
    assert page.locator(".step pre.result").inner_text() == f"{PAYLOADS[1]} {PAYLOADS[2]}"
    assert page.locator(".question").inner_text().count(PAYLOADS[0]) == 2  # the question and choice A
    assert 'games<script> · maze"><b>' in page.locator(".armbar").inner_text()
    page.keyboard.press("s")
    page.wait_for_selector(".columns.two")
    assert page.locator(".column").nth(1).locator("pre.prediction").inner_text() == PAYLOADS[2]
    page.evaluate(
        "document.querySelectorAll('*').forEach((e) => { e.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));"
        " e.dispatchEvent(new Event('error')); })"
    )
    page.wait_for_timeout(300)  # let any image error handler run
    assert page.evaluate("typeof window.pwned") == "undefined"
    handlers = page.evaluate(
        "[...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].map((a) => a.name))"
        ".filter((n) => n.startsWith('on'))"
    )
    assert handlers == []
    sources = page.evaluate("[...document.images].map((i) => i.src)")  # as the browser resolved them
    assert len(sources) == 3 and all(src.startswith("file:///") for src in sources)
    links = page.evaluate("[...document.links].map((a) => a.getAttribute('href'))")
    assert links and all(href.startswith("#id=") for href in links)
    scripts = page.evaluate("[...document.scripts].map((s) => s.id || s.getAttribute('src') || 'inline')")
    assert sorted(scripts)[-2:] == ["inline", "mcot-index"]  # the page's two; the others are its trace shards
    assert all(s.startswith("index_files/t-") for s in sorted(scripts)[:-2])


def test_an_offline_run_wrong_canvas_answers(page: Any, tmp_path: Path) -> None:
    def mcot(*args: str | Path) -> None:  # in a process of its own: playwright's event loop runs in this one
        env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
        done = subprocess.run([sys.executable, "-m", "mcot", *map(str, args)], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr

    mcot("gen", "games", "--task", "all", "--n", "2", "--seed", "0", "--out", tmp_path / "items")
    mcot(
        "run",
        "--data",
        tmp_path / "items",
        "--model",
        "offline",
        "--mode",
        "text,canvas,tools",
        "--out",
        tmp_path / "run",
    )
    mcot("score", tmp_path / "run")
    mcot("view", tmp_path / "run")
    scores = [json.loads(line) for line in (tmp_path / "run" / "scores.jsonl").read_text().splitlines()]
    wrong = {s["id"] for s in scores if s["mode"] == "canvas" and s["correct"] is False and s["method"] != "error"}
    canvas = {s["id"] for s in scores if s["mode"] == "canvas"}
    assert wrong and len(wrong) < len(canvas)  # some canvas answers are right
    visit(page, tmp_path / "run" / "index.html", correct="wrong", arm="canvas")
    assert {item for item, _ in listed(page)} == wrong and {arm for _, arm in listed(page)} == {"canvas"}
    assert count(page, "correct", "wrong") == len(wrong) == len(entries(page))
    page.keyboard.press("j")
    shown(page, *listed(page)[0])


# ------------------------------------------------------------------ rating (mcot view RUN --rate)


def name_rater(page: Any, name: str) -> None:
    """Answer the page's one question, the rater's name."""
    page.wait_for_selector("#raterbox:not([hidden])")
    page.fill("#rater-name", name)
    page.click("#rater-ok")
    page.wait_for_selector("#raterbox", state="hidden")


def progress(page: Any) -> tuple[int, int]:
    """Return (traces fully rated, traces left) as the progress count says."""
    found = page.locator("#progress")
    return int(found.get_attribute("data-rated")), int(found.get_attribute("data-left"))


def saved(page: Any, folder: Path) -> dict[str, Any]:
    """Click "save ratings" and return the JSON file the browser downloaded."""
    with page.expect_download() as download:
        page.click("#save")
    path = folder / download.value.suggested_filename
    download.value.save_as(path)
    return json.loads(path.read_text(encoding="utf-8"))


def test_rating_three_traces_survives_a_reload_and_saves_the_issues_json(page: Any, tmp_path: Path) -> None:
    from mcot.eval.ratings import read_ratings

    viewer = write_viewer(triage_run(tmp_path / "run"), rate=True)
    visit(page, viewer, id="m1", mode="text")
    name_rater(page, "ana")
    shown(page, "m1", "text")
    assert progress(page) == (0, 13)  # 15 pairs, less m2/tools (error) and d1/tools (budget): nothing to rate
    page.keyboard.press("1")  # right: overrides the protocol's wrong
    page.keyboard.press("j")
    shown(page, "m1", "canvas")
    page.keyboard.press("0")
    visit(page, viewer, id="d1", mode="text")  # the judge failed: a person decides
    shown(page, "d1", "text")
    page.locator('.rating .dim[data-dim="answer"] button.v', has_text="wrong").click()
    page.wait_for_function("document.querySelector('#progress').dataset.rated === '3'")
    assert progress(page) == (3, 10)
    assert page.locator(".entry .badge.b-mine").count() >= 1
    page.reload()
    page.wait_for_selector("body[data-ready]")
    assert page.locator("#raterbox").is_hidden() and page.locator("#rater").inner_text() == "ana"
    assert progress(page) == (3, 10)
    shown(page, "d1", "text")
    assert page.locator(".rating button.v.on").inner_text().endswith("wrong")
    data = saved(page, tmp_path)
    assert set(data) == {"run", "rater", "ratings"} and (data["run"], data["rater"]) == ("run", "ana")
    got = [(r["id"], r["mode"], r["dimension"], r["value"]) for r in data["ratings"]]
    assert sorted(got) == [
        ("d1", "text", "answer", "wrong"),
        ("m1", "canvas", "answer", "wrong"),
        ("m1", "text", "answer", "right"),
    ]
    assert all(set(r) == {"id", "mode", "dimension", "value", "t"} and r["t"].endswith("Z") for r in data["ratings"])
    path = tmp_path / "ana.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert read_ratings(path).values[("m1", "text", "answer")] == "right"


def test_generated_images_get_the_five_questions_and_two_scales_and_edits_a_grade(page: Any, tmp_path: Path) -> None:
    viewer = write_viewer(generation_run(tmp_path / "run"), rate=True)
    visit(page, viewer, id="light-1", mode="procedural")
    name_rater(page, "bo")
    shown(page, "light-1", "procedural")
    lines = page.locator(".rating .dim").evaluate_all("(ds) => ds.map((d) => d.dataset.dim)")
    assert lines == [*(f"authenticity_{k}" for k in range(1, 6)), "aesthetics", "fidelity"]
    assert page.locator('.rating .dim[data-dim="authenticity_1"] button.v').all_inner_texts() == [
        "1 Yes",
        "0 No",
        "5 Cannot be determined",
    ]
    for key in ["1", "0", "5", "1", "1", "4", "2"]:  # the highlight moves down a line after each
        page.keyboard.press(key)
    page.keyboard.press("Backspace")  # on the last line rated: fidelity cleared
    page.keyboard.press("3")
    visit(page, viewer, id="edit-1", mode="canvas")
    shown(page, "edit-1", "canvas")
    page.keyboard.press("5")  # a half: grade 0.5
    page.wait_for_function("document.querySelector('#progress').dataset.rated === '2'")
    data = saved(page, tmp_path)
    got = {(r["id"], r["dimension"]): r["value"] for r in data["ratings"]}
    assert got == {
        ("light-1", "authenticity_1"): "yes",
        ("light-1", "authenticity_2"): "no",
        ("light-1", "authenticity_3"): "unsure",
        ("light-1", "authenticity_4"): "yes",
        ("light-1", "authenticity_5"): "yes",
        ("light-1", "aesthetics"): 4,
        ("light-1", "fidelity"): 3,
        ("edit-1", "diagram"): 0.5,
    }


def test_without_rate_the_page_has_no_rating_controls(page: Any, triage: Path) -> None:
    visit(page, triage, id="m1", mode="text")
    shown(page, "m1", "text")
    assert page.locator("#ratebar").is_hidden() and page.locator(".rating").count() == 0
    page.keyboard.press("1")
    assert page.evaluate("window.mcot.ratings()") is None
