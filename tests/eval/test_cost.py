"""Cost and efficiency per arm (mcot.eval.cost) against the local model server's own log.

One run of four arms (text, canvas, canvas-blind, look) against mcot's FakeProvider speaking OpenAI's wire, with
a priced model (`openai:gpt-4o`), two canvas images kept per request, an item with two images and a pair that
fails on its third turn. Every figure the cost module reads from the run is checked against what the server
received and answered: the requests, the image blocks in them, the usage it returned, the price of that usage.
"""

import json
import re
import statistics
import threading
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from handmade import MakeRun, ok
from mcot.eval.cost import (
    PairCost,
    cost_table,
    images_of,
    money,
    run_pair_costs,
    study_cost_tables,
    summarize,
)
from mcot.eval.efficiency import correct_per_1k_tokens, correct_per_usd
from mcot.eval.scoring import score_run
from PIL import Image

from mcot.core.item import Item, write_items
from mcot.core.rundir import Score, open_run, read_scores, write_scores
from mcot.runconfig import RunConfig
from mcot.runner import run_items
from mcot.testing import Agent, Fail, FakeProvider, Reply, RequestInfo

GPT_4O = (2.5, 10.0)
"""USD per million input and output tokens of openai gpt-4o in agents/prices.json."""
ARMS = ("text", "canvas", "canvas-blind", "look")
KEEP = 2
_TAG = re.compile(r"Item (q\d)")


def _png(color: tuple[int, int, int]) -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (64, 48), color).save(buffer, format="PNG")
    return buffer.getvalue()


def _images(value: Any) -> int:
    """Return the image blocks anywhere in a request body (OpenAI's `image_url` content parts)."""
    if isinstance(value, dict):
        return int(value.get("type") == "image_url") + sum(_images(v) for v in value.values())
    if isinstance(value, list):
        return sum(_images(v) for v in value)
    return 0


def _tag(body: dict[str, Any]) -> str:
    first = next(m for m in body["messages"] if m["role"] == "user")
    found = _TAG.search(json.dumps(first))
    assert found is not None
    return found.group(1)


class Drawer(Agent):
    """Draws a line, zooms, then answers; its usage is a function of the request (its images and turn), and it
    keeps a log of every answer it gave. Item q2 in an arm that offers draw_line fails with a 400 on its third
    turn (the look arm is offered no draw_line: its call is refused as not offered, and counts as a call)."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def answer(self, request: RequestInfo) -> Reply | Fail:
        body, turn = request.body, request.turn
        tools = sorted(t["function"]["name"] for t in body.get("tools") or [])
        item = _tag(body)
        images = _images(body)
        entry = {"item": item, "tools": tools, "system": _system(body), "turn": turn, "images": images}
        if tools and "draw_line" in tools and item == "q2" and turn == 2:
            with self._lock:
                self.log.append({**entry, "paid": False})
            return Fail(400, message="scripted refusal")
        usage = (120 + 90 * images + 10 * turn, 7 + 3 * turn)
        if not tools:
            reply = Reply("\\boxed{B}", usage=usage)
        elif turn == 0:
            reply = Reply("a line", (("draw_line", {"start": [2, 2], "end": [40, 30]}),), usage=usage)
        elif turn == 1:
            reply = Reply("a closer look", (("zoom", {"region": [0, 0, 32, 24]}),), usage=usage)
        else:
            reply = Reply("\\boxed{A}", usage=usage)
        with self._lock:
            self.log.append({**entry, "paid": True, "usage": usage, "calls": len(reply.tool_calls)})
        return reply


def _system(body: dict[str, Any]) -> str | None:
    return next((m["content"] for m in body["messages"] if m["role"] == "system"), None)


@pytest.fixture(scope="module")
def priced_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Drawer, list[dict[str, Any]]]:
    """Return the run, the agent (its log) and the server's recorded request bodies."""
    root = tmp_path_factory.mktemp("cost")
    pairs = []
    for n in range(3):
        images = [f"images/q{n}.png"] + ([f"images/q{n}b.png"] if n == 1 else [])
        item = Item(
            id=f"q{n}",
            benchmark="gepbench",
            category="counting",
            question=f"Item q{n}: how many circles are there?",
            images=images,
            choices=["1", "2", "3", "4"],
            answer="ABC"[n],
            answer_type="choice",
            meta={"level": "easy"},
        )
        files = {path: _png((60 * n + 20 * i, 10, 200 - 50 * i)) for i, path in enumerate(images)}
        pairs.append((item, files))
    write_items(root / "items", pairs)
    agent = Drawer()
    with pytest.MonkeyPatch.context() as patch, FakeProvider([], default=agent) as server:
        patch.setenv("OPENAI_API_KEY", "sk-test-cost-not-real")
        config = RunConfig(
            data=root / "items",
            model="openai:gpt-4o",
            out=root / "run",
            mode=",".join(ARMS),
            base_url=[server.openai_url],
            max_canvas_images=KEEP,
        )
        run_items(config, quiet=True)
        bodies = [request.body for request in server.requests]
    score_run(root / "run", report=False)
    return root / "run", agent, bodies


def _arm_of_system(run_dir: Path) -> dict[tuple[str | None, tuple[str, ...]], str]:
    """Return {(system prompt, tool names): arm}, from what each arm's traces say they sent."""
    run = open_run(run_dir)
    found: dict[tuple[str | None, tuple[str, ...]], str] = {}
    for item_id, mode in run.results:
        for step in run.trace(item_id, mode) or []:
            sent = step.get("sent")
            if sent:
                names = tuple(sorted(t["function"]["name"] for t in sent["tools"] or []))
                found[(sent["system"], names)] = mode
    return found


def _server_pairs(run_dir: Path, agent: Drawer) -> dict[tuple[str, str], dict[str, Any]]:
    """Return, per (item, arm), what the server's log says it received and answered."""
    arms = _arm_of_system(run_dir)
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in agent.log:
        arm = arms[(entry["system"], tuple(entry["tools"]))]
        pair = out.setdefault(
            (entry["item"], arm), {"requests": 0, "paid": 0, "images": 0, "in": 0, "out": 0, "calls": 0}
        )
        pair["requests"] += 1
        if entry["paid"]:
            pair["paid"] += 1
            pair["images"] += entry["images"]
            pair["in"] += entry["usage"][0]
            pair["out"] += entry["usage"][1]
            pair["calls"] += entry["calls"]
    return out


def _price(tokens_in: int, tokens_out: int) -> float:
    return (tokens_in * GPT_4O[0] + tokens_out * GPT_4O[1]) / 1_000_000


def test_every_pair_matches_the_servers_log(priced_run: tuple[Path, Drawer, list[dict[str, Any]]]) -> None:
    run_dir, agent, bodies = priced_run
    assert len(bodies) == len(agent.log) == 3 + 3 * 3 * 3  # text: one turn; three turns else
    server = _server_pairs(run_dir, agent)
    costs = {(pair.id, pair.arm): pair for pair in run_pair_costs(open_run(run_dir), read_scores(run_dir))}
    assert set(costs) == set(server) and len(costs) == 12
    for key, seen in server.items():
        pair = costs[key]
        assert pair.input_tokens == seen["in"] and pair.output_tokens == seen["out"], key
        assert pair.cost_usd == pytest.approx(_price(seen["in"], seen["out"]), abs=1e-12), key
        assert pair.image_inputs == seen["images"], key  # image blocks of the answered requests
        assert pair.model_turns == seen["paid"], key
        assert pair.tool_calls == seen["calls"], key  # the tool calls the server's answers asked for
    # the failed pairs (q2 in the arms that offer drawing) were paid for two turns and count as failed and wrong
    for arm in ("canvas", "canvas-blind"):
        failed = costs[("q2", arm)]
        assert not failed.ok and not failed.correct and failed.model_turns == 2
        assert server[("q2", arm)]["requests"] == 3


def test_images_sent_count_each_image_once(priced_run: tuple[Path, Drawer, list[dict[str, Any]]]) -> None:
    run_dir, _, bodies = priced_run
    arms = _arm_of_system(run_dir)
    distinct: dict[tuple[str, str], set[str]] = {}
    for body in bodies:
        tools = tuple(sorted(t["function"]["name"] for t in body.get("tools") or []))
        key = (_tag(body), arms[(_system(body), tools)])
        urls = distinct.setdefault(key, set())
        for message in body["messages"]:
            content = message.get("content")
            if isinstance(content, list):
                urls.update(p["image_url"]["url"] for p in content if p.get("type") == "image_url")
    costs = {(pair.id, pair.arm): pair for pair in run_pair_costs(open_run(run_dir), read_scores(run_dir))}
    for key, urls in distinct.items():
        assert costs[key].images_sent == len(urls), key
    # by hand: the text arm sends the item's images; canvas shows the first observation, the drawing, the zoom;
    # the blind arm only the first observation; look's draw_line is refused (not offered), so no new observation
    assert [costs[(f"q{n}", "text")].images_sent for n in range(3)] == [1, 2, 1]
    assert [costs[(f"q{n}", "canvas")].images_sent for n in range(2)] == [3, 4]
    assert [costs[(f"q{n}", "canvas-blind")].images_sent for n in range(2)] == [1, 2]
    assert [costs[(f"q{n}", "look")].images_sent for n in range(2)] == [2, 3]
    # image inputs of canvas q0 by hand: turn 0 one image, turn 1 two, turn 2 the latest two of three
    assert costs[("q0", "canvas")].image_inputs == 1 + 2 + 2
    assert costs[("q1", "canvas")].image_inputs == (1 + 1) + (1 + 2) + (1 + 2)  # q1's second image always kept
    assert [costs[(f"q{n}", "canvas")].tool_calls for n in range(3)] == [2, 2, 2]
    assert costs[("q0", "text")].tool_calls == 0


def test_arm_totals_medians_and_efficiency_by_hand(priced_run: tuple[Path, Drawer, list[dict[str, Any]]]) -> None:
    run_dir, agent, _ = priced_run
    server = _server_pairs(run_dir, agent)
    pairs = run_pair_costs(open_run(run_dir), read_scores(run_dir))
    right = {"text": 1, "canvas": 1, "canvas-blind": 1, "look": 1}  # text answers B (q1), the others A (q0)
    for arm in ARMS:
        mine = [pair for pair in pairs if pair.arm == arm]
        summary = summarize(mine)
        seen = [server[(f"q{n}", arm)] for n in range(3)]
        tokens_in = sorted(s["in"] for s in seen)
        total_in, total_out = sum(tokens_in), sum(s["out"] for s in seen)
        total_cost = sum(_price(s["in"], s["out"]) for s in seen)
        assert summary.pairs == 3 and summary.correct == right[arm]
        assert summary.failed == (1 if arm in ("canvas", "canvas-blind") else 0)
        assert summary.figures["input_tokens"].total == total_in
        assert summary.figures["input_tokens"].median == tokens_in[1]
        assert summary.figures["image_inputs"].total == sum(s["images"] for s in seen)
        assert summary.figures["cost_usd"].total == pytest.approx(total_cost, abs=1e-12)
        assert summary.correct_per_usd == pytest.approx(right[arm] / total_cost)
        assert summary.correct_per_1k_tokens == pytest.approx(right[arm] / ((total_in + total_out) / 1000))
    table = cost_table(open_run(run_dir), read_scores(run_dir), ARMS)
    assert table is not None and [row[0] for row in table.rows] == list(ARMS)
    canvas = table.rows[1]
    q = [server[(f"q{n}", "canvas")] for n in range(3)]
    assert canvas[4] == f"{sum(s['in'] for s in q):,} · {sorted(s['in'] for s in q)[1]:,}"
    assert canvas[2] == "1" and canvas[3] == "1"


def _pair(arm: str, **fields: Any) -> PairCost:
    base: dict[str, Any] = {
        "id": "x",
        "arm": arm,
        "benchmark": "b",
        "ok": True,
        "correct": False,
        "input_tokens": 100,
        "output_tokens": 10,
        "cost_usd": 0.5,
        "images_sent": 1,
        "image_inputs": 1,
        "tool_calls": 0,
        "model_turns": 1,
        "wall_s": 1.0,
    }
    return PairCost(**{**base, **fields})


def test_an_unknown_cost_is_unknown_never_zero() -> None:
    priced = [_pair("a", correct=True), _pair("a", cost_usd=None)]
    summary = summarize(priced)
    assert summary.figures["cost_usd"].total == 0.5 and summary.figures["cost_usd"].known == 1
    assert summary.correct_per_usd is None  # one pair's price is unknown: no ratio over the others
    assert summary.correct_per_1k_tokens == pytest.approx(1 / 0.22)
    free = summarize([_pair("a", cost_usd=0.0, correct=True)])
    assert free.correct_per_usd is None  # the offline policy costs 0: per dollar is undefined
    assert correct_per_usd(3, [0.25, 0.5]) == pytest.approx(4.0)
    assert [money(v) for v in (1234.5, 0.25, 0.00085, 0.0)] == ["1,234.50", "0.2500", "0.000850", "0.0000"]
    assert correct_per_1k_tokens(2, [500, None]) is None
    assert (
        statistics.median([1.0, 2.0])
        == summarize([_pair("a", wall_s=1.0), _pair("a", wall_s=2.0)]).figures["wall_s"].median
    )


def test_images_of_a_trace() -> None:
    steps = [
        {"kind": "observation", "image": "blobs/a.png"},
        {"kind": "model"},
        {"kind": "tool", "image": "blobs/z.png", "images": ["blobs/z.png", "blobs/y.png"]},
        {"kind": "observation", "image": "blobs/b.png"},
        {"kind": "model"},
    ]
    assert images_of(steps, 1, tools=True, sees_canvas=True, keep=3) == (4, 1 + 3)
    assert images_of(steps, 1, tools=True, sees_canvas=False, keep=3) == (1, 1 + 1)
    assert images_of(steps, 3, tools=True, sees_canvas=True, keep=1) == (6, 3 + 3)
    assert images_of([{"kind": "model"}], 2, tools=False, sees_canvas=True, keep=3) == (2, 2)


def test_the_study_table_pools_a_models_arms_over_benchmarks(make_run: MakeRun) -> None:
    items = [
        Item(id=f"{bench}-{n}", benchmark=bench, category="c", question="?", answer="A", answer_type="choice")
        for bench in ("gepbench", "rbench-v")
        for n in range(2)
    ]
    results, scores = [], []
    for k, item in enumerate(items):
        row = ok(item.id, "text", "A")
        row["usage"] = {"input_tokens": 100 * (k + 1), "output_tokens": 10, "cost_usd": 0.01 * (k + 1)}
        results.append(row)
        scores.append(Score(id=item.id, mode="text", benchmark=item.benchmark, category="c", correct=k % 2 == 0,
                            score=float(k % 2 == 0), method="rule"))  # fmt: skip
    run = make_run("pooled", items, ["text"], results)
    write_scores(run, scores)
    [table] = study_cost_tables({"m": run})
    assert [row[:3] for row in table.rows] == [
        ["gepbench", "m", "text"],
        ["rbench-v", "m", "text"],
        ["all", "m", "text"],
    ]
    pooled = table.rows[-1]
    # by hand: 4 pairs, 2 right (the 1st and 3rd), 100+200+300+400 input tokens (median 250), $0.10 in all
    assert pooled[3:7] == ["4", "0", "2", "1,000 · 250"]
    assert pooled[13] == "0.1000 · 0.0250" and pooled[14] == f"{2 / 0.1:.1f}"
    assert pooled[15] == f"{2 / (1040 / 1000):.3f}"
    assert table.rows[0][14] == f"{1 / 0.03:.1f}"  # gepbench: 1 right for $0.01 + $0.02
