"""Cost and efficiency in the reports: a two-model study (one priced, one without a price) against local servers,
its cost table per benchmark, model and arm, each run's report, and `mcot compare`, checked by hand."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from local_models import Agent, FakeProvider, Reply, RequestInfo
from mcot.eval.cost import STUDY_COST_TITLE
from PIL import Image

from mcot.commands.compare import comparison_markdown
from mcot.commands.study import run_study_command
from mcot.core.item import Item, write_items

TEXT_USAGE = (150, 5)
DRAW_USAGE = (200, 10)
ANSWER_USAGE = (300, 4)
GPT_4O = (2.5, 10.0)
"""USD per million input and output tokens of openai gpt-4o in agents/prices.json."""


class Drawer(Agent):
    """Answers B without tools; with tools draws a line, then answers A. Logs the usage it returned."""

    def __init__(self) -> None:
        self.returned: list[tuple[bool, tuple[int, int]]] = []
        self._lock = threading.Lock()

    def answer(self, request: RequestInfo) -> Reply:
        """Return the turn's reply with its fixed usage."""
        tools = bool(request.body.get("tools"))
        if not tools:
            reply = Reply("\\boxed{B}", usage=TEXT_USAGE)
        elif request.turn == 0:
            reply = Reply("a line", (("draw_line", {"start": [1, 1], "end": [30, 30]}),), usage=DRAW_USAGE)
        else:
            reply = Reply("\\boxed{A}", usage=ANSWER_USAGE)
        with self._lock:
            self.returned.append((tools, reply.usage))
        return reply


def _png() -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (48, 48), "white").save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture()
def servers() -> Iterator[tuple[FakeProvider, FakeProvider]]:
    """Two local servers, each with its own Drawer."""
    with FakeProvider(default=Drawer()) as priced, FakeProvider(default=Drawer()) as unpriced:
        yield priced, unpriced


def _price(usage: tuple[int, int]) -> float:
    return (usage[0] * GPT_4O[0] + usage[1] * GPT_4O[1]) / 1_000_000


def _study(root: Path, priced: str, unpriced: str) -> Path:
    pairs = []
    for n in range(2):
        item = Item(
            id=f"q{n}",
            benchmark="gepbench",
            category="counting",
            question=f"How many circles? ({n})",
            images=[f"images/q{n}.png"],
            choices=["1", "2", "3", "4"],
            answer="AB"[n],
            answer_type="choice",
            meta={"level": "easy"},
        )
        pairs.append((item, {f"images/q{n}.png": _png()}))
    write_items(root / "items", pairs)
    models = [("priced", "openai:gpt-4o", priced), ("local", "openai-compatible:local-vlm", unpriced)]
    text = f'data = ["{root / "items"}"]\narms = ["text", "canvas"]\nseed = 0\nmax_steps = 3\n' + "".join(
        f'\n[[model]]\nname = "{name}"\nspec = "{spec}"\nbase_url = "{url}"\nkey_env = "COST_TEST_KEY"\n'
        for name, spec, url in models
    )
    path = root / "STUDY.toml"
    path.write_text(text)
    return path


def _row(markdown: str, start: str) -> list[str]:
    line = next(line for line in markdown.splitlines() if line.startswith(start))
    return [cell.strip() for cell in line.strip("|").split("|")]


@pytest.mark.timeout(240)
def test_the_study_run_report_and_compare_show_cost_and_efficiency(
    tmp_path: Path, servers: tuple[FakeProvider, FakeProvider], monkeypatch: pytest.MonkeyPatch
) -> None:
    priced, unpriced = servers
    monkeypatch.setenv("COST_TEST_KEY", "sk-local-cost-test")
    out = tmp_path / "study"
    assert run_study_command(_study(tmp_path, priced.openai_url, unpriced.openai_url), out) == 0
    markdown = (out / "study.md").read_text()
    assert f"### {STUDY_COST_TITLE}" in markdown
    agent: Any = priced.default
    text_usage = [usage for tools, usage in agent.returned if not tools]
    canvas_usage = [usage for tools, usage in agent.returned if tools]
    assert text_usage == [TEXT_USAGE] * 2 and sorted(canvas_usage) == sorted([DRAW_USAGE, ANSWER_USAGE] * 2)
    text_cost = sum(_price(u) for u in text_usage)
    canvas_cost = sum(_price(u) for u in canvas_usage)
    # by hand: text answers B (q1 right), canvas answers A (q0 right): one right answer per arm and model
    text = _row(markdown, "| gepbench | priced | text |")
    assert text[3:6] == ["2", "0", "1"]
    assert text[6] == f"{2 * TEXT_USAGE[0]} · {TEXT_USAGE[0]}"
    assert text[7] == f"{2 * TEXT_USAGE[1]} · {TEXT_USAGE[1]}"
    assert text[8:10] == ["2 · 1", "2 · 1"]  # the item's image, once per pair and in its one request
    assert text[13] == f"{text_cost:.6f} · {text_cost / 2:.6f}" == "0.000850 · 0.000425"
    assert text[14] == f"{1 / text_cost:.1f}" == "1176.5"
    assert text[15] == f"{1 / (2 * sum(TEXT_USAGE) / 1000):.3f}"
    canvas = _row(markdown, "| gepbench | priced | canvas |")
    per_pair_in = DRAW_USAGE[0] + ANSWER_USAGE[0]
    assert canvas[6] == f"{2 * per_pair_in:,} · {per_pair_in}"
    assert canvas[8:12] == ["4 · 2", "6 · 3", "2 · 1", "4 · 2"]  # images sent, image inputs, tool calls, turns
    assert canvas[14] == f"{1 / canvas_cost:.1f}" == "359.7"
    local = _row(markdown, "| gepbench | local | canvas |")
    assert local[13] == "—" and local[14] == "—"  # no price for a local model: unknown, never 0
    assert local[15] == f"{1 / (2 * (sum(DRAW_USAGE) + sum(ANSWER_USAGE)) / 1000):.3f}"
    assert STUDY_COST_TITLE in (out / "study.html").read_text()

    run = out / "runs" / "priced"
    report = (run / "report.md").read_text()
    row = _row(report[report.index("## Cost and efficiency per arm — openai:gpt-4o") :], "| canvas |")
    assert row[1:4] == ["2", "0", "1"] and row[12] == f"{1 / canvas_cost:.1f}"
    compared = comparison_markdown(run)
    compared = compared[compared.index("Cost and steps per arm") :]
    assert "| correct / $ | correct / 1k tokens |" in compared
    line = _row(compared, "| canvas |")
    assert line[3] == f"{2 * (sum(DRAW_USAGE) + sum(ANSWER_USAGE)):,}" and line[7] == "359.7"
    assert _row(compared, "| text |")[7] == "1176.5"
    # the command itself, with one run and no RUN_B (its optional runs arrive as None)
    printed = subprocess.run(
        [sys.executable, "-m", "mcot", "compare", str(run)], capture_output=True, text=True, timeout=120
    )
    assert printed.returncode == 0, printed.stderr
    assert _row(printed.stdout[printed.stdout.index("Cost and steps per arm") :], "| canvas |")[7] == "359.7"
