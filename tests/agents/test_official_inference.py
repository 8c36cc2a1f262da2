"""The official inference prompts on the wire: GePBench's text arm asks as geocap's evaluation does and is capped at
10 new tokens (its declaration's `max_new_tokens`); the arms with tools are not capped; RBench-V asks in the
public fork's words, at most 2048 tokens."""

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcot.agents.backends import load_model
from mcot.agents.solver import solve
from mcot.benchmarks.item import Item
from PIL import Image

from mcot.declare import declare_benchmark
from mcot.registry import BENCHMARKS, RegistryError
from mcot.testing import FakeProvider, Reply

GEP_INSTRUCTION = "Please directly answer A, B, C or D and nothing else."


def _item(root: Path, benchmark: str, choices: list[str] | None) -> Item:
    Image.new("RGB", (64, 48), "white").save(root / "q.png")
    return Item(
        id="q",
        benchmark=benchmark,
        category="counting",
        question="How many circles are there?",
        images=["q.png"],
        choices=choices,
        answer="C" if choices else "3",
        answer_type="choice" if choices else "number",
    )


def _user_text(body: dict[str, Any]) -> str:
    user = next(m for m in body["messages"] if m["role"] == "user")
    return "\n".join(part["text"] for part in user["content"] if part.get("type") == "text")


def _first_request(item: Item, root: Path, mode: str) -> dict[str, Any]:
    with FakeProvider([], default=Reply("C")) as server:
        model = load_model("openai-compatible:local-vlm", base_url=server.openai_url)
        prediction, _ = asyncio.run(solve(item, root, model, mode))
        body = server.requests[0].body
    assert prediction.status == "ok", prediction.error
    return body


def test_gepbench_text_arm_asks_as_geocap_does_and_stops_at_ten_tokens(tmp_path: Path) -> None:
    item = _item(tmp_path, "gepbench", ["1", "2", "3", "4"])
    body = _first_request(item, tmp_path, "text")
    assert _user_text(body) == f"How many circles are there?\nA. 1\nB. 2\nC. 3\nD. 4\n{GEP_INSTRUCTION}"
    assert body["max_tokens"] == 10
    assert BENCHMARKS.get("gepbench").max_new_tokens == 10


def test_the_arms_with_tools_are_not_capped_by_the_benchmarks_limit(tmp_path: Path) -> None:
    item = _item(tmp_path, "gepbench", ["1", "2", "3", "4"])
    body = _first_request(item, tmp_path, "canvas")
    assert body["max_tokens"] > 10
    assert _user_text(body).endswith(GEP_INSTRUCTION)  # the same question, now with a canvas and tools


def test_rbench_v_asks_in_the_public_forks_words_capped_as_vlmevalkit(tmp_path: Path) -> None:
    # byte for byte against the fork's string: tests/eval/test_official_requests.py
    body = _first_request(_item(tmp_path, "rbench-v", None), tmp_path, "text")
    text = _user_text(body)
    assert text.startswith(
        "You are an expert assistant. Solve the following question according to the given picture step-by-step."
    )
    assert text.endswith("Question: How many circles are there?\nAnswer:") and "\\boxed{}" in text
    assert body["max_tokens"] == 2048


def test_a_benchmark_limit_below_one_token_is_refused() -> None:
    with pytest.raises(RegistryError, match="max_new_tokens must be at least 1"):
        declare_benchmark("never-registered", description="x", max_new_tokens=0)
    assert BENCHMARKS.find("never-registered") is None


def test_every_declared_benchmark_says_how_its_inference_is_asked() -> None:
    for name in ("gepbench", "gobench", "rbench-v", "omniphys", "games"):
        assert "text arm" in BENCHMARKS.get(name).inference or "no official inference" in BENCHMARKS.get(name).inference
        assert "tools" in BENCHMARKS.get(name).inference
