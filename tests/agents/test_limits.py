"""Rate limits in front of a backend (aiolimiter buckets per event loop) and the retry observer, on a local server."""

from __future__ import annotations

import asyncio
import json
import pickle

import pytest
from mcot.agents import load_model
from mcot.agents.backends.base import ModelRequest, ToolSet
from mcot.agents.backends.scripted import ScriptedBackend
from mcot.agents.limits import IMAGE_TOKENS, RateLimitedBackend, RateLimits, estimate_tokens
from mcot.agents.messages import ImagePart, Message, TextPart, ToolCall, ToolResultPart, user
from mcot.agents.retry import Failure, RetryPolicy, is_overload
from virtual_time import VirtualClock, run_virtual, virtual_loop

from mcot.testing.fake_provider import Fail, FakeProvider, Raw, Reply


def _request(text: str = "hi", max_tokens: int = 16) -> ModelRequest:
    return ModelRequest([user(text)], max_tokens=max_tokens)


async def _admitted(backend: RateLimitedBackend, n: int, request: ModelRequest) -> list[float]:
    """Return when each of n concurrent calls was answered, in seconds of the loop's clock after the first began.

    Run on a virtual clock over an instant backend, these are exactly the moments the buckets let the calls go.
    """
    loop = asyncio.get_running_loop()
    start = loop.time()

    async def one() -> float:
        answer = await backend.generate(request)
        assert answer.text == "ok"
        return loop.time() - start

    return sorted(await asyncio.gather(*(one() for _ in range(n))))


@pytest.fixture
def instant(tmp_path) -> ScriptedBackend:
    """A backend that answers "ok" at once, in process: only the buckets take time."""
    script = tmp_path / "ok.json"
    script.write_text(json.dumps([{"text": "ok"}]))
    return ScriptedBackend(script)


async def _calls_and_most_waiting(backend: RateLimitedBackend, n: int, request: ModelRequest) -> int:
    """Make n concurrent calls; return the most calls seen waiting on a bucket at once."""
    most = 0
    done = False

    async def watch() -> None:
        nonlocal most
        while not done:
            most = max(most, backend.waiting)
            await asyncio.sleep(0.01)

    watcher = asyncio.create_task(watch())
    answers = await asyncio.gather(*(backend.generate(request) for _ in range(n)))
    done = True
    await watcher
    assert [a.text for a in answers] == ["ok"] * n
    return most


def test_the_request_bucket_holds_the_rate_after_its_burst(instant):
    # 120 a minute over a 1 s period: a bucket of 2, then one every 0.5 s, so the 6th call goes at 2 s
    backend = RateLimitedBackend(instant, RateLimits(max_rpm=120, period_s=1.0))
    assert run_virtual(_admitted(backend, 6, _request())) == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.5, 2.0])
    assert backend.waiting == 0


def test_calls_over_http_wait_on_the_bucket_and_all_arrive(keys):
    limits = RateLimits(max_rpm=120, period_s=1.0)
    with FakeProvider(default=Reply("ok")) as server:
        backend = RateLimitedBackend(load_model("openai:gpt-4o", base_url=server.openai_url), limits)
        most_waiting = asyncio.run(_calls_and_most_waiting(backend, 6, _request()))
        assert len(server.requests) == 6
    assert most_waiting >= 3  # 4 waited on the bucket, at least 3 of them at the same time
    assert backend.waiting == 0


def test_the_token_bucket_waits_when_the_estimate_exceeds_the_budget(instant):
    # 400 characters (100 tokens) + max_tokens 100 = 200 tokens a call; 12,000 a minute over 1 s: 200 a second
    backend = RateLimitedBackend(instant, RateLimits(max_tpm=12_000, period_s=1.0))
    request = _request("x" * 400, max_tokens=100)
    assert backend.estimate(request) == 200
    assert run_virtual(_admitted(backend, 3, request)) == pytest.approx([0.0, 1.0, 2.0])
    # a request estimated above the whole bucket is charged the bucket (capped), not refused: it goes at once into
    # a fresh bucket, and the next call waits for the whole bucket to drain
    huge = _request("y", max_tokens=50_000)
    assert run_virtual(_admitted(backend, 2, huge)) == pytest.approx([0.0, 1.0])


def test_each_event_loop_gets_its_own_buckets(instant):
    backend = RateLimitedBackend(instant, RateLimits(max_rpm=120, period_s=1.0))
    clock = VirtualClock()
    first = virtual_loop(clock)  # left open while another loop uses the backend
    try:
        first_times = first.run_until_complete(_admitted(backend, 3, _request()))
        second_times = run_virtual(_admitted(backend, 3, _request()), clock)
    finally:
        first.close()
    third_times = run_virtual(_admitted(backend, 2, _request()), clock)
    # a fresh bucket of 2 each, the third call waits 0.5 s; a shared bucket would hold the second loop's calls back
    assert first_times == pytest.approx([0.0, 0.0, 0.5]) and second_times == pytest.approx([0.0, 0.0, 0.5])
    assert third_times == pytest.approx([0.0, 0.0])
    assert clock.now == pytest.approx(1.0)


def test_the_wrapper_forwards_the_backend_attributes(keys):
    with FakeProvider(default=Reply("ok")) as server:
        inner = load_model("openai-compatible:qwen", base_url=[server.openai_url, server.openai_url + "/"])
        backend = RateLimitedBackend(inner, RateLimits(max_rpm=600))
        assert (backend.spec, backend.model) == ("openai-compatible:qwen", "qwen")
        assert backend.provider == "openai-compatible"
        assert backend._key == "sk-test-SECRETKEY123456"
        assert backend.sampling_support() == inner.sampling_support()
        assert backend.inner is inner
        assert asyncio.run(backend.generate(_request())).text == "ok"
        assert sum(c["ok"] for c in backend.endpoint_counts().values()) == 1
    offline = RateLimitedBackend(load_model("offline"), RateLimits())
    assert offline.spec == "offline"
    with pytest.raises(AttributeError):
        offline.no_such_attribute  # noqa: B018


def test_limits_split_among_workers_and_travel_to_them():
    limits = RateLimits(max_rpm=600, max_tpm=90_000)
    assert limits.split(4) == RateLimits(max_rpm=150, max_tpm=22_500)
    assert RateLimits(max_tpm=1000).split(2) == RateLimits(max_tpm=500)
    assert pickle.loads(pickle.dumps(limits)) == limits
    assert limits.active and not RateLimits().active
    with pytest.raises(ValueError, match="max_rpm must be a positive number"):
        RateLimits(max_rpm=0)
    with pytest.raises(ValueError, match="at least 1 worker"):
        limits.split(0)


def test_a_share_below_one_request_per_bucket_still_passes(instant):
    # 3 a minute split among 4 workers is 0.75 a minute: a bucket of one request every 80 s
    share = RateLimits(max_rpm=3).split(4)
    backend = RateLimitedBackend(instant, share)
    assert run_virtual(_admitted(backend, 2, _request())) == pytest.approx([0.0, 80.0])


def test_token_estimate_counts_text_images_tool_calls_and_tool_schemas():
    image = ImagePart(b"\x89PNG fake")
    messages = [
        Message("system", [TextPart("s" * 40)]),
        user("u" * 80, image),
        Message("assistant", [TextPart("a" * 20)], tool_calls=(ToolCall("c1", "zoom", "z" * 16),)),
        Message("user", [ToolResultPart("c1", "zoom", "r" * 40, images=(image,))]),
    ]
    # (40 + 80 + 20 + 4 + 16 + 40) / 4 = 50 tokens of text, 2 images
    assert estimate_tokens(ModelRequest(messages)) == 50 + 2 * IMAGE_TOKENS

    schemas = [{"type": "function", "function": {"name": "zoom", "parameters": {"type": "object"}}}]
    tools = ToolSet(("zoom",), lambda flavor, names: schemas)
    with_tools = estimate_tokens(ModelRequest([user("q" * 8)], tools=tools))
    assert with_tools == (8 + len(json.dumps(schemas))) // 4


def test_the_observer_hears_every_attempt_and_429_is_overload(keys, fake_sleep):
    heard: list[Failure | None] = []
    policy = RetryPolicy(max_tries=3, sleep=fake_sleep, observer=heard.append)
    with FakeProvider([Fail(429, headers={"Retry-After": "0"}), Reply("ok"), Fail(400)]) as server:
        backend = load_model("openai:gpt-4o", base_url=server.openai_url, retry=policy)
        assert asyncio.run(backend.generate(_request())).text == "ok"
        with pytest.raises(Exception, match="HTTP 400"):
            asyncio.run(backend.generate(_request()))
    assert [None if h is None else h.status for h in heard] == [429, None, 400]
    assert is_overload(heard[0]) and not is_overload(heard[2])
    assert not heard[2].retryable  # a non-retryable failure is heard too


def test_an_observer_that_raises_breaks_nothing(keys, fake_sleep):
    def broken(outcome: Failure | None) -> None:
        raise RuntimeError("a bug in the pacing code")

    policy = RetryPolicy(max_tries=3, sleep=fake_sleep, observer=broken)
    with FakeProvider([Fail(503), Reply("ok")]) as server:
        backend = load_model("openai:gpt-4o", base_url=server.openai_url, retry=policy)
        response = asyncio.run(backend.generate(_request()))
    assert response.text == "ok" and [note["status"] for note in response.retries] == [503]


def test_anthropic_overloaded_error_is_overload(keys, fake_sleep):
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    heard: list[Failure | None] = []
    policy = RetryPolicy(max_tries=2, sleep=fake_sleep, observer=heard.append)
    with FakeProvider([Raw(json.dumps(body).encode(), status=529), Reply("ok")]) as server:
        backend = load_model("anthropic:claude-haiku-4-5", base_url=server.anthropic_url, retry=policy)
        assert asyncio.run(backend.generate(_request())).text == "ok"
    assert heard[0] is not None and heard[0].status == 529 and heard[0].overloaded
    assert is_overload(heard[0]) and heard[1] is None
    # the flag alone counts (an overloaded_error whatever the status), and so do 503 and 529; 500 does not
    assert is_overload(Failure(True, "overloaded", 500, overloaded=True))
    assert is_overload(Failure(True, "x", 503)) and is_overload(Failure(True, "x", 529))
    assert not is_overload(Failure(True, "x", 500)) and not is_overload(Failure(True, "timed out"))
