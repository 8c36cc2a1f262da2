"""Scoring whole run directories built by hand: protocols, judges against a local fake OpenAI server, reports,
the compare command."""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcot.eval.compare import compare_runs
from mcot.eval.errors import EvalError, TemplateError
from mcot.eval.judges import load_templates
from mcot.eval.protocols._gobench_understanding import robust_gobench_scores
from mcot.eval.protocols.omniphys import omniphys_kind, omniphys_result_rule
from mcot.eval.scoring import score_run

from mcot.commands.compare import run_compare
from mcot.commands.score import run_score
from mcot.core.errors import UsageError
from mcot.core.item import Item, write_items
from mcot.core.rundir import read_scores

MAZE_META = {
    "grid": ["#####", "S..##", "##.##", "#...A", "#B###"],
    "cell": 20,
    "origin": [10, 10],
    "start": [1, 0],
    "exits": {"A": {"cell": [3, 4], "color": [220, 0, 0]}, "B": {"cell": [4, 1], "color": [0, 0, 220]}},
    "target": "A",
    "path": [[1, 0], [1, 1], [1, 2], [2, 2], [3, 2], [3, 3], [3, 4]],
}
ROUTE = [[20 + 20 * c, 20 + 20 * r] for r, c in MAZE_META["path"]]


def _items() -> list[Item]:
    rb = dict(benchmark="rbench-v", question="Solve it.", answer_type="number")
    return [
        Item(id="math-0", category="math", answer="\\frac{1}{2}", **rb),
        Item(id="physics-0", category="physics", answer="7.2 km/h", **rb),
        Item(id="counting-0", category="counting", answer="7", **rb),
        Item(
            id="game-0",
            category="game",
            answer="left",
            benchmark="rbench-v",
            question="Which exit?",
            answer_type="text",
        ),
        Item(
            id="game-1", category="game", answer="up", benchmark="rbench-v", question="Which way?", answer_type="text"
        ),
        Item(
            id="gep-0",
            benchmark="gepbench",
            category="counting",
            question="How many?",
            choices=["2", "3", "4", "5"],
            answer="B",
            answer_type="choice",
            meta={"level": "easy"},
        ),
        Item(
            id="gep-1",
            benchmark="gepbench",
            category="size",
            question="Size?",
            choices=["0.1", "0.2", "0.3", "0.4"],
            answer="D",
            answer_type="choice",
            meta={"level": "hard"},
        ),
        Item(
            id="maze-0",
            benchmark="games",
            category="maze",
            question="Which exit?",
            choices=["exit A (red)", "exit B (blue)"],
            answer="A",
            answer_type="choice",
            meta=MAZE_META,
        ),
        Item(
            id="gob-0",
            benchmark="gobench",
            category="reflect_light_images",
            question="Rate it.",
            answer_type="rating",
            answer="Reality Assessment Score: 4.0; Aesthetics Rating: 3.5; Instruction Consistency Rating: 4.0",
        ),
        Item(
            id="omni-0",
            benchmark="omniphys",
            category="mechanics",
            question="Which?",
            choices=["a", "b", "c", "d"],
            answer="ACD",
            answer_type="choice",
            meta={"task_type": "multi_select"},
        ),
    ]


TEXT = {
    "math-0": "So x = \\boxed{0.5}",
    "physics-0": "v = \\boxed{2\\text{ m/s}}",
    "counting-0": "I count seven triangles in all.",
    "game-0": "\\boxed{the left exit}",
    "game-1": "\\boxed{garbage please}",
    "gep-0": "B",
    "gep-1": "The answer is A.",
    "maze-0": "Answer: B",
    "gob-0": "1. Yes\n2. Yes\n3. No\n4. Yes\n5. Yes\nTotal Score: 4\nAesthetics Rating: 4\nInstruction Consistency Rating: 4",
    "omni-0": "The answer is \\boxed{AC}",
}
CANVAS = {
    **TEXT,
    "counting-0": "\\boxed{7}",
    "gep-1": "D",
    "maze-0": "The route reaches A.\nAnswer: A",
    "math-0": "\\boxed{3}",
}


ARM_TOOLS = {
    "text": [],
    "canvas": ["draw_line", "trace_path", "undo"],
    "tools": ["draw_line", "trace_path", "solve_maze"],
}


def freeze_items(root: Path, items_dir: Path) -> dict[str, Any]:
    """Copy the items into RUN/items.jsonl as `mcot run` does; return the manifest's `dataset` entry."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(items_dir / "items.jsonl", root / "items.jsonl")
    source = hashlib.sha256((items_dir / "items.jsonl").read_bytes()).hexdigest()
    frozen = hashlib.sha256((root / "items.jsonl").read_bytes()).hexdigest()
    n_items = len((root / "items.jsonl").read_text().splitlines())
    return {"path": str(items_dir), "sha256": frozen, "source_sha256": source, "n_items": n_items, "limit": None}


def write_manifest(root: Path, items_dir: Path, modes: Sequence[str], model: str = "offline") -> None:
    """Write a manifest of the plan's shape (arms with their tools, frozen dataset) for a run made by hand."""
    manifest = {
        "mcot_version": "0.1.0",
        "model": {"spec": model, "base_url": None},
        "arms": [{"name": mode, "tools": ARM_TOOLS[mode], "tool_schemas": {}} for mode in modes],
        "modes": list(modes),
        "dataset": freeze_items(root, items_dir),
        "judge": None,
    }
    (root / "manifest.json").write_text(json.dumps(manifest))


def _make_run(root: Path, items_dir: Path, modes: Sequence[str], *, model: str = "offline", cost: float = 0.01) -> Path:
    write_manifest(root, items_dir, modes, model)
    (root / "traces").mkdir(exist_ok=True)
    lines = []
    for mode in modes:
        answers = TEXT if mode == "text" else CANVAS
        for item_id, prediction in answers.items():
            steps = 1 if mode == "text" else 3
            lines.append(
                {
                    "id": item_id,
                    "mode": mode,
                    "status": "ok",
                    "prediction": prediction,
                    "steps": steps,
                    "usage": {"input_tokens": 10, "output_tokens": 5, "cost_usd": cost * steps},
                    "latency_s": 0.1,
                    "error": None,
                    "trace": f"traces/{item_id}.{mode}.jsonl",
                }
            )
    lines.append({"id": "math-0", "mode": modes[0], "status": "error", "prediction": None, "error": "boom"})
    lines.append({**lines[0]})  # a retried line: the last one wins
    (root / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    if "canvas" in modes:
        ops = [{"op": "trace_path", "args": {"points": ROUTE}, "id": "e1"}]
        trace = [
            {"step": 0, "kind": "observation"},
            {"step": 1, "kind": "tool", "tool": "trace_path", "ops": ops, "data": {}},
        ]
        (root / "traces" / "maze-0.canvas.jsonl").write_text("".join(json.dumps(s) + "\n" for s in trace))
    return root


@pytest.fixture()
def items_dir(tmp_path: Path) -> Path:
    out = tmp_path / "items"
    write_items(out, [(item, {}) for item in _items()])
    return out


# ------------------------------------------------------------------------------ a fake OpenAI server


class FakeOpenAI:
    """A local Chat Completions server answering judge prompts by a script; counts requests."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                prompt = body["messages"][-1]["content"]
                reply = fake.reply(prompt if isinstance(prompt, str) else json.dumps(prompt))
                data = json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def reply(prompt: str) -> str:
        if "Final answer:" in prompt and "I count seven" in prompt:
            return "7"
        if "Candidate answer: garbage" in prompt:
            return "Well, it depends on how you look at it."
        if "Candidate answer: the left exit" in prompt:
            return "1"
        return "0"


class WireJudge:
    """A judge speaking the OpenAI wire format with httpx (the agents adapter is tested elsewhere)."""

    def __init__(self, url: str) -> None:
        self.spec = "openai-compatible:fake-judge"
        self.url = url

    async def ask(self, prompt: str, images: Sequence[bytes] = ()) -> str:
        async with httpx.AsyncClient() as client:
            response = await client.post(
                f"{self.url}/chat/completions",
                json={"model": "fake-judge", "temperature": 0, "messages": [{"role": "user", "content": prompt}]},
            )
        return response.json()["choices"][0]["message"]["content"]


@pytest.fixture()
def fake_server() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    yield server
    server.server.shutdown()


# -------------------------------------------------------------------------------------------- tests


def _by_id(run: Path, mode: str = "text") -> dict[str, Any]:
    return {s.id: s for s in read_scores(run) if s.mode == mode}


def test_rules_only_scoring(tmp_path: Path, items_dir: Path) -> None:
    run = _make_run(tmp_path / "run", items_dir, ["text", "canvas"])
    summary = score_run(run, protocol="robust")
    text = _by_id(run)
    assert (text["math-0"].correct, text["math-0"].method, text["math-0"].details["match"]) == (True, "rule", "numeric")
    assert (text["physics-0"].correct, text["physics-0"].details["match"]) == (True, "unit")
    assert text["counting-0"].method == "none" and text["counting-0"].correct is None
    assert text["game-0"].method == "none"
    assert (text["gep-0"].correct, text["gep-1"].correct, text["gep-1"].extracted) == (True, False, "A")
    assert text["maze-0"].correct is False and "trace" not in text["maze-0"].details
    canvas = _by_id(run, "canvas")
    assert canvas["maze-0"].correct is True
    assert canvas["maze-0"].details["trace"]["verdict"] == "valid"
    assert canvas["gep-1"].correct is True
    # GOBench: authenticity 4 vs 4.0 -> 1, aesthetics 4 vs 3.5 -> 0, fidelity 4 vs 4 -> 1
    assert text["gob-0"].details["sps"] == {"authenticity": 1.0, "aesthetics": 0.0, "fidelity": 1.0}
    # OmniPhys multi-select: A and C of ACD, no wrong option -> 2/3
    assert text["omni-0"].details["s1"] == pytest.approx(2 / 3)
    assert summary.methods["none"] >= 2
    report = (run / "report.md").read_text()
    assert "### RBench-V" in report and "w/o Math" in report and "unjudged" in report
    assert "Trace verifiers" in report and "canvas vs text" in report
    assert (run / "report.html").read_text().startswith("<!doctype html>")
    assert (run / "figures" / "accuracy-rbench-v.png").stat().st_size > 1000
    assert json.loads((run / "manifest.json").read_text())["judge"] is None


def test_judge_scoring_records_caches_and_reports_garbage(
    tmp_path: Path, items_dir: Path, fake_server: FakeOpenAI
) -> None:
    run = _make_run(tmp_path / "run", items_dir, ["text"])
    judge = WireJudge(fake_server.url)
    cache = tmp_path / "cache"
    score_run(run, judge=judge, cache_dir=cache, figures=False, protocol="robust")
    text = _by_id(run)
    counting = text["counting-0"]
    assert (counting.correct, counting.method, counting.extracted) == (True, "judge", "7")
    game = text["game-0"]
    assert (game.correct, game.method, game.judge["raw"]) == (True, "judge", "1")
    assert game.judge["spec"] == "openai-compatible:fake-judge" and len(game.judge["prompt_sha256"]) == 64
    garbage = text["game-1"]
    assert (garbage.method, garbage.correct, garbage.score) == ("judge_error", None, None)
    assert garbage.judge["raw"] == "Well, it depends on how you look at it."
    assert "exactly 0 or 1" in garbage.details["judge_error"]
    assert all(r["temperature"] == 0 for r in fake_server.requests)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["judge"]["spec"] == judge.spec and len(manifest["judge"]["template_sha256"]) == 64
    assert "judge error" in (run / "report.md").read_text()
    asked = len(fake_server.requests)
    # re-judging: parsable replies come from the cache, the garbage one is asked again
    summary = score_run(run, judge=judge, cache_dir=cache, report=False, protocol="robust")
    assert len(fake_server.requests) == asked + 1
    assert summary.cache_hits == 2
    assert _by_id(run)["game-0"].judge["cached"] is True


def test_user_template_override_changes_the_cache_key(tmp_path: Path, items_dir: Path, fake_server: FakeOpenAI) -> None:
    run = _make_run(tmp_path / "run", items_dir, ["text"])
    judge = WireJudge(fake_server.url)
    score_run(run, judge=judge, cache_dir=tmp_path / "cache", report=False, protocol="robust")
    asked = len(fake_server.requests)
    own = tmp_path / "rbench_verdict.txt"
    own.write_text("Official prompt. Q: {{question}} Gold: {{answer}} Candidate answer: {{extracted}}\nReply 0 or 1.")
    score_run(run, judge=judge, template=own, cache_dir=tmp_path / "cache", report=False, protocol="robust")
    assert len(fake_server.requests) == asked + 2  # the two verdict prompts changed
    assert _by_id(run)["game-0"].judge["template_sha256"] == load_templates(own)["rbench_verdict"].sha256


def test_bad_templates_are_refused(tmp_path: Path) -> None:
    wrong_name = tmp_path / "my_prompt.txt"
    wrong_name.write_text("{{question}}")
    with pytest.raises(TemplateError, match=r"rbench_verdict\.txt"):
        load_templates(wrong_name)
    wrong_field = tmp_path / "rbench_verdict.txt"
    wrong_field.write_text("{{question}} {{gold}}")
    with pytest.raises(TemplateError, match="gold"):
        load_templates(wrong_field)


def test_compare_one_run_with_both_modes(tmp_path: Path, items_dir: Path) -> None:
    run = _make_run(tmp_path / "run", items_dir, ["text", "canvas"])
    score_run(run, report=False, protocol="robust")
    [comparison] = compare_runs(run, n_boot=2000)
    overall = comparison.groups[-1]
    assert overall.group == "Overall"
    assert "gepbench/size" in {g.group for g in comparison.groups}
    # every item counts: counting-0 is unjudged in text (counted wrong) and right in canvas
    assert overall.n == 10
    assert set(overall.wrong_to_right) == {"counting-0", "gep-1", "maze-0"}
    assert overall.right_to_wrong == ["math-0"]
    assert overall.p_value == pytest.approx(0.625)
    assert "text: 3 unjudged among the paired items (counted wrong)" in comparison.markdown()
    assert comparison.usage["canvas"]["mean_steps"] == 3.0
    assert comparison.usage["text"]["total_cost"] == pytest.approx(0.01 * overall.n)
    assert "wrong→right" in comparison.markdown()


def test_compare_two_runs_refuses_different_models(tmp_path: Path, items_dir: Path) -> None:
    run_a = _make_run(tmp_path / "a", items_dir, ["text"])
    run_b = _make_run(tmp_path / "b", items_dir, ["canvas"], model="openai:gpt-x")
    score_run(run_a, report=False)
    score_run(run_b, report=False)
    with pytest.raises(EvalError, match="model"):
        compare_runs(run_a, run_b)
    [comparison] = compare_runs(run_a, run_b, force=True, n_boot=500)
    assert (comparison.a, comparison.b) == ("text", "canvas")
    assert any("forced" in warning for warning in comparison.warnings)


def test_commands(tmp_path: Path, items_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _make_run(tmp_path / "run", items_dir, ["text", "canvas"])
    assert run_score(run) == 0
    assert "RBench-V" in capsys.readouterr().out
    out = tmp_path / "cmp.md"
    assert run_compare(run, None, out, False) == 0
    assert "McNemar" in out.read_text()
    with pytest.raises(UsageError, match="not a run directory"):
        run_score(tmp_path / "nowhere")
    single = _make_run(tmp_path / "single", items_dir, ["text"])
    score_run(single, report=False)
    with pytest.raises(UsageError, match="only the arm"):
        run_compare(single, None, None, False)
    with pytest.raises(UsageError, match="mcot score"):
        run_compare(_make_run(tmp_path / "unscored", items_dir, ["text", "canvas"]), None, None, False)


GOBENCH_REPLIES = [
    (
        "Reality: 1. Yes 2. No 3. Cannot be determined 4. Yes 5. Yes\nAesthetics Rating: 4\n"
        "Instruction Consistency Rating: 3",
        {"authenticity": 3.5, "aesthetics": 4.0, "fidelity": 3.0},
    ),
    (
        "Reality: 1. <Yes|No|Cannot be determined> 2. ... 5. ...\nAesthetics Rating: <1-5>\n"
        "Instruction Consistency Rating: <1-5>",
        {"authenticity": None, "aesthetics": None, "fidelity": None},
    ),
    (
        "**Reality:** 1. Yes 2. No 3. Yes 4. Yes 5. No\n**Aesthetics Rating:** 3/5\n"
        "**Instruction Consistency Rating:** 5 out of 5",
        {"authenticity": 3.0, "aesthetics": 3.0, "fidelity": 5.0},
    ),
]


@pytest.mark.parametrize(("reply", "expected"), GOBENCH_REPLIES)
def test_gobench_critic_replies(reply: str, expected: dict[str, float | None]) -> None:
    assert robust_gobench_scores(reply) == expected


def _omni(task: str, answer: str, answer_type: str = "text", choices: list[str] | None = None) -> Item:
    return Item(
        id="o",
        benchmark="omniphys",
        category="optics",
        question="?",
        answer=answer,
        answer_type=answer_type,  # type: ignore[arg-type]
        choices=choices,
        meta={"task_type": task},
    )


def test_omniphys_result_rules() -> None:
    single = _omni("single_choice", "B", "choice", ["a", "b", "c", "d"])
    assert omniphys_result_rule(omniphys_kind(single), "推理……\nAnswer: B", single) == (1.0, "B")
    tf = _omni("true_false", "no", "yesno")
    assert omniphys_kind(tf) == "tf"
    assert omniphys_result_rule("tf", "Answer: 错误", tf)[0] == 1.0
    assert omniphys_result_rule("tf", "Answer: 正确", tf)[0] == 0.0
    fill = _omni("fill_in", "2 m/s; 4 J")
    assert omniphys_result_rule("fill", "Answer: 2 m/s; 4 J", fill)[0] == 1.0
    assert omniphys_result_rule("fill", "\\boxed{2 m/s} and \\boxed{5 J}", fill)[0] == 0.0
    assert omniphys_result_rule("fill", "Answer: 2 m/s", fill)[0] is None
    multi = _omni("multi_select", "ACD", "choice", ["a", "b", "c", "d"])
    assert omniphys_result_rule("multi", "Answer: A, B", multi)[0] == 0.0
    assert omniphys_result_rule("multi", "Answer: ACD", multi)[0] == 1.0
    assert omniphys_kind(_omni("diagram_editing", "images/x.png", "image")) == "diagram"
    assert omniphys_kind(_omni("open_ended", "")) == "open"


class ScriptJudge:
    """An in-process judge answering each template by a marker in its prompt; records the images it saw."""

    spec = "scripted:judge"

    def __init__(self) -> None:
        self.images: list[int] = []

    async def ask(self, prompt: str, images: Sequence[bytes] = ()) -> str:
        self.images.append(len(images))
        if "Optical authenticity" in prompt:
            return '```json\n{"authenticity": ["Yes", "Yes", "No", "Cannot be determined", "Yes"], "aesthetics": 4, "fidelity": 5}\n```'
        if "key steps" in prompt:
            return '{"steps_total": 4, "steps_present": 3}'
        if "edited physics diagram" in prompt:
            return '{"grade": 0.5}'
        return "0"


def test_generation_process_and_diagram_judging(tmp_path: Path) -> None:
    items = [
        Item(
            id="gen-1",
            benchmark="gobench",
            category="reflect_light_images",
            question="A mirror.",
            answer="",
            answer_type="image",
            meta={"Questions_reality": "1. Q?\n2. Q?\n3. Q?\n4. Q?\n5. Q?"},
        ),
        Item(
            id="open-1",
            benchmark="omniphys",
            category="mechanics",
            question="Explain.",
            answer="",
            answer_type="text",
            meta={"task_type": "open_ended", "solution": "F = ma; a = 2; v = at; v = 4"},
        ),
        Item(
            id="single-1",
            benchmark="omniphys",
            category="optics",
            question="Pick.",
            choices=["a", "b", "c", "d"],
            answer="C",
            answer_type="choice",
            meta={"task_type": "single_choice", "solution": "Snell."},
        ),
        Item(
            id="diag-1",
            benchmark="omniphys",
            category="optics",
            question="Draw the ray.",
            images=["images/in.png"],
            answer="images/ref.png",
            answer_type="image",
            meta={"task_type": "diagram_editing", "reference_image": "images/ref.png"},
        ),
    ]
    write_items(
        tmp_path / "items",
        [
            (items[0], {}),
            (items[1], {}),
            (items[2], {}),
            (items[3], {"images/in.png": b"in", "images/ref.png": b"ref"}),
        ],
    )
    run = tmp_path / "run"
    (run / "out").mkdir(parents=True)
    (run / "out" / "gen-1.png").write_bytes(b"png")
    (run / "out" / "diag-1.png").write_bytes(b"png")
    dataset = freeze_items(run, tmp_path / "items")
    (run / "manifest.json").write_text(json.dumps({"model": {"spec": "diffusers:tiny"}, "dataset": dataset}))
    rows = [
        {"id": "gen-1", "mode": "text", "status": "ok", "prediction": "out/gen-1.png"},
        {"id": "open-1", "mode": "text", "status": "ok", "prediction": "F = ma so a = 2 m/s², v = 4 m/s"},
        {"id": "single-1", "mode": "text", "status": "ok", "prediction": "Answer: C"},
        {"id": "diag-1", "mode": "text", "status": "ok", "prediction": "out/diag-1.png"},
    ]
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    judge = ScriptJudge()
    score_run(run, judge=judge, cache_dir=tmp_path / "cache", figures=False)
    scores = _by_id(run)
    generated = scores["gen-1"]
    assert generated.method == "judge"
    assert generated.details["judge_scores"] == {"authenticity": 3.5, "aesthetics": 4.0, "fidelity": 5.0}
    assert generated.details["generator"] == "diffusers:tiny"
    assert (scores["open-1"].score, scores["open-1"].details["s3"], scores["open-1"].correct) == (0.75, 0.75, False)
    single = scores["single-1"]
    assert (single.method, single.details["s1"], single.details["s2"]) == ("rule", 1.0, 0.75)
    assert (scores["diag-1"].score, scores["diag-1"].method) == (0.5, "judge")
    assert sorted(judge.images) == [0, 0, 1, 3]  # the generated image; input, reference and edited diagram
    report = (run / "report.md").read_text()
    assert "GOBench generation" in report and "| diffusers:tiny | 1 | 3.50 | 4.00 | 5.00 |" in report
    assert "| text | 100.0 | 75.0 | 75.0 | 0.0 | 0 | 0.0 | 0 | 0.50 |" in report
