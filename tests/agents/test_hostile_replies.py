"""Hostile or broken replies are answered, not obeyed: through `mcot run` against local servers, on the plain HTTP
client (`openai-compatible:` over http) and on the SDK paths (`openai:`, `anthropic:`)."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest
from hostile_servers import items_dir, mcot
from mcot.agents.backends.plain_http import PlainHTTPClient
from mcot.agents.backends.wire_limits import ResponseTooLarge, WireLimits

from mcot.core.rundir import Result, read_jsonl
from mcot.spending import CostBudget
from mcot.testing import FakeProvider, Raw, Redirect, Reply, Trickle

pytestmark = pytest.mark.long_running

KEYS = {"OPENAI_API_KEY": "sk-FAKE-hostile-tests-0000", "ANTHROPIC_API_KEY": "sk-ant-FAKE-hostile-tests-0000"}
PATHS = {"plain": "openai-compatible:m", "sdk": "openai:gpt-4o"}
DRAW = {"start": [5, 5], "end": [30, 30]}


def _run(tmp_path: Path, model: str, url: str, *extra: str, n: int = 1, mode: str = "text") -> tuple[Any, list[dict]]:
    out = tmp_path / "run"
    done = mcot(
        "run", "--data", items_dir(tmp_path, n), "--model", model, "--mode", mode, "--base-url", url,
        "--out", out, *extra, env=KEYS,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done, list(read_jsonl(out / "results.jsonl")) if (out / "results.jsonl").is_file() else []


def _tool_errors(tmp_path: Path, record: dict) -> list[str]:
    steps = [json.loads(line) for line in (tmp_path / "run" / record["trace"]).read_text().splitlines()]
    return [step["error"] for step in steps if step["kind"] == "tool" and step.get("error")]


@pytest.mark.parametrize("path", sorted(PATHS))
def test_tool_arguments_nested_5000_deep_get_a_tool_error(tmp_path: Path, path: str) -> None:
    deep = '{"start": ' + "[" * 5000 + "]" * 5000 + "}"
    script = [Reply("Drawing.", tool_calls=[("draw_line", deep)]), Reply("\\boxed{1}")]
    with FakeProvider(script) as server:
        done, records = _run(tmp_path, PATHS[path], server.openai_url, mode="canvas")
    assert done.code == 0, done.stderr
    assert records[0]["status"] == "ok" and records[0]["prediction"] == "\\boxed{1}"
    (error,) = _tool_errors(tmp_path, records[0])
    assert "the arguments of draw_line cannot be used: they are nested too deeply (at most 32 levels)" in error


@pytest.mark.parametrize("path", sorted(PATHS))
def test_tool_arguments_sent_as_an_object_get_a_tool_error(tmp_path: Path, path: str) -> None:
    script = [Reply("Drawing.", tool_calls=[("draw_line", DRAW)], arguments_as_objects=True), Reply("\\boxed{1}")]
    with FakeProvider(script) as server:
        done, records = _run(tmp_path, PATHS[path], server.openai_url, mode="canvas")
        follow_up = server.requests[1].body["messages"]
    assert done.code == 0, done.stderr
    assert records[0]["status"] == "ok"
    (error,) = _tool_errors(tmp_path, records[0])
    assert "they came as a JSON object where the wire format wants a string of JSON text" in error
    tool_message = next(m for m in follow_up if m["role"] == "tool")
    assert "cannot be used" in tool_message["content"]  # the model reads why


def test_negative_usage_is_refused_and_the_budget_never_goes_back(tmp_path: Path) -> None:
    with FakeProvider(default=Reply("\\boxed{1}", usage=(-1_000_000, -5))) as server:
        done, records = _run(tmp_path, "openai:gpt-4o", server.openai_url, "--max-cost", "0.001", n=4)
        asked = len(server.requests)
    assert done.code == 3, done.stderr
    assert asked == 4  # refused at once, not retried: the server would say the same again
    assert {r["status"] for r in records} == {"error"}
    assert all("the response's usage is unusable: prompt_tokens=-1000000" in r["error"] for r in records)
    budget = CostBudget(1.0)
    costs = [0.5, -3.0, float("nan"), "0.5", True]  # what an older ledger may hold: only the first is a cost
    budget.add_all(Result.from_line({"id": "q", "mode": "text", "usage": {"cost_usd": cost}}) for cost in costs)
    assert budget.spent_usd == 0.5


@pytest.mark.parametrize("value", [float("inf"), 10**12, "12", True])
def test_non_finite_absurd_or_non_numeric_usage_is_refused(value: Any) -> None:
    from mcot.agents.backends.base import UnusableUsage, checked_usage

    with pytest.raises(UnusableUsage, match="the response's usage is unusable: completion_tokens="):
        checked_usage(prompt_tokens=3, completion_tokens=value)
    assert checked_usage(prompt_tokens=None, completion_tokens=7.0).output_tokens == 7


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """Return about 1 MB of gzip that inflates to 1 GiB of zeros."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    return b"".join(packer.compress(block) for _ in range(1024)) + packer.flush()


def test_a_gzip_bomb_takes_no_more_memory_than_the_body_limit(gzip_bomb: bytes) -> None:
    assert len(gzip_bomb) < 1_100_000
    headers = {"Content-Encoding": "gzip"}
    with FakeProvider([Raw(gzip_bomb, headers=headers)]) as server:

        async def post() -> None:
            await PlainHTTPClient(server.openai_url, timeout_s=60).post_json("/chat/completions", {})

        tracemalloc.start()
        try:
            with pytest.raises(ResponseTooLarge, match="larger than the limit of 64 MiB after decompression"):
                asyncio.run(post())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 3 * WireLimits().max_body_bytes  # 1 GiB inflated would be 16 times the limit


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_gzip_bomb_fails_the_pair_at_the_body_limit(tmp_path: Path, path: str, gzip_bomb: bytes) -> None:
    with FakeProvider(default=Raw(gzip_bomb, headers={"Content-Encoding": "gzip"})) as server:
        done, records = _run(tmp_path, PATHS[path], server.openai_url)
        asked = len(server.requests)
    assert done.code == 3 and asked == 1
    assert "the response body is larger than the limit of 64 MiB after decompression" in records[0]["error"]


def test_the_body_limit_is_configurable_and_holds_on_the_wire(tmp_path: Path) -> None:
    body = json.dumps({"choices": [{"message": {"content": "x" * 3_000_000}, "finish_reason": "stop"}]}).encode()
    with FakeProvider(default=Raw(body)) as server:
        out = tmp_path / "run"
        done = mcot(
            "run", "--data", items_dir(tmp_path, 1), "--model", "openai-compatible:m", "--mode", "text",
            "--base-url", server.openai_url, "--out", out, env={"MCOT_MAX_BODY_MB": "1"},
        )  # fmt: skip
    (record,) = read_jsonl(out / "results.jsonl")
    assert done.code == 3
    assert "the response body is larger than the limit of 1 MiB (at least 3,000,0" in record["error"]


@pytest.mark.parametrize("model", ["openai:gpt-4o", "anthropic:claude-sonnet-4-5", "openai-compatible:m"])
def test_the_request_timeout_holds_against_a_trickling_server(tmp_path: Path, model: str) -> None:
    with FakeProvider(default=Trickle(every_s=0.5)) as server:
        url = server.url if model.startswith("anthropic") else server.openai_url
        done, records = _run(tmp_path, model, url, "--request-timeout", "1", "--max-tries", "2")
        asked = len(server.requests)
    assert done.code == 3, done.stderr
    assert asked == 2
    assert "model call failed after 2 tries: request timed out after 1 s (POST" in records[0]["error"]


@pytest.mark.parametrize("path", sorted(PATHS))
def test_a_redirect_to_another_origin_is_not_followed(tmp_path: Path, path: str) -> None:
    with FakeProvider(default=Reply("\\boxed{1}")) as elsewhere:
        target = elsewhere.openai_url + "/chat/completions"
        with FakeProvider(default=Redirect(target)) as server:
            done, records = _run(tmp_path, PATHS[path], server.openai_url)
            asked = len(server.requests)
        reached = len(elsewhere.requests)
    assert done.code == 3
    assert (asked, reached) == (1, 0)  # not retried, and nothing went to the other server
    assert (
        f"HTTP 307: the server redirects to another server ({target}); mcot follows no redirect"
        in (records[0]["error"])
    )


@pytest.mark.parametrize("path", sorted(PATHS))
def test_an_empty_answer_with_finish_reason_length_is_the_answer(tmp_path: Path, path: str) -> None:
    with FakeProvider(default=Reply("", stop_reason="length")) as server:
        done, records = _run(tmp_path, PATHS[path], server.openai_url, n=2)
        first = len(server.requests)
        again = mcot(
            "run", "--data", tmp_path / "items", "--model", PATHS[path], "--mode", "text",
            "--base-url", server.openai_url, "--out", tmp_path / "run", env=KEYS,
        )  # fmt: skip
        second = len(server.requests) - first
    assert done.code == 0, done.stderr
    assert [(r["status"], r["prediction"], r.get("empty")) for r in records] == [("ok", "", True)] * 2
    assert first == 4  # each pair asked once more, then the empty answer kept
    assert again.code == 0 and second == 0  # a resume pays nothing again


def test_a_malformed_answer_is_still_a_run_error(tmp_path: Path) -> None:
    body = json.dumps({"choices": [{"message": {"content": None}, "finish_reason": None}]}).encode()
    with FakeProvider(default=Raw(body)) as server:
        done, records = _run(tmp_path, "openai-compatible:m", server.openai_url, "--max-tries", "2")
    assert done.code == 3
    assert (
        "unparsable response: the response has neither text nor tool calls nor a finish reason" in records[0]["error"]
    )


def test_a_huge_answer_is_stored_within_the_answer_limit(tmp_path: Path) -> None:
    text = "y" * 3_000_000 + " so the answer is \\boxed{1}"
    with FakeProvider(default=Reply(text)) as server:
        done, records = _run(tmp_path, "openai-compatible:m", server.openai_url)
    (record,) = records
    assert done.code == 0 and record["status"] == "ok"
    assert len(record["prediction"]) < 1_000_200 and record["prediction"].endswith("so the answer is \\boxed{1}")
    assert record["cut_chars"] == len(text) - 1_000_000
    trace = (tmp_path / "run" / record["trace"]).stat().st_size
    assert trace < 1_100_000  # the trace keeps the same text, not the whole answer


def test_the_images_api_holds_its_time_out_and_follows_no_redirect() -> None:
    from mcot.agents.generators.base import GeneratorError, ImageRequest
    from mcot.agents.generators.openai_images import OpenAIImagesGenerator
    from mcot.agents.retry import RetryPolicy

    def generator(url: str) -> OpenAIImagesGenerator:
        return OpenAIImagesGenerator("gpt-image-1", base_url=url, api_key=KEYS["OPENAI_API_KEY"], timeout_s=1,
                                     retry=RetryPolicy(max_tries=1))  # fmt: skip

    with FakeProvider(default=Trickle(every_s=0.5)) as server:
        with pytest.raises(GeneratorError, match=r"request timed out after 1 s"):
            asyncio.run(generator(server.openai_url).generate(ImageRequest(prompt="a mirror")))
    with FakeProvider() as elsewhere, FakeProvider(default=Redirect(elsewhere.openai_url + "/images")) as server:
        with pytest.raises(GeneratorError, match="HTTP 307: the server redirects to another server"):
            asyncio.run(generator(server.openai_url).generate(ImageRequest(prompt="a mirror")))
        assert not elsewhere.requests
