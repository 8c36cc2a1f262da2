"""Several base URLs behind one backend: spreading, resting dead endpoints, counts, and no credentials reported."""

from __future__ import annotations

import asyncio
import socket

import pytest
from mcot.agents import ModelError, load_model
from mcot.agents.backends import BackendOptions
from mcot.agents.backends.base import ModelRequest
from mcot.agents.endpoints import (
    FIRST_REST_S,
    LONGEST_REST_S,
    EndpointPool,
    endpoint_urls,
    public_url,
    scrub_userinfo,
    url_secrets,
)
from mcot.agents.messages import user
from mcot.agents.retry import Failure, RetryPolicy

from mcot.testing.fake_provider import Fail, FakeProvider, Reply


def _dead_url(path: str = "/v1", userinfo: str = "") -> str:
    """Return a URL on a port nothing listens on (bound, read, closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://{userinfo}127.0.0.1:{port}{path}"


def _request() -> ModelRequest:
    return ModelRequest([user("hi")], max_tokens=16)


async def _calls(backend, n: int) -> list[str]:
    return [(await backend.generate(_request())).text for _ in range(n)]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


FAULT = Failure(True, "connection error", unreachable=True)


def test_a_dead_endpoint_is_rested_and_every_call_succeeds_on_the_live_one(keys, quick_retry):
    dead = _dead_url()
    with FakeProvider(default=Reply("ok")) as server:
        backend = load_model("openai-compatible:qwen", base_url=[dead, server.openai_url], retry=quick_retry)
        assert asyncio.run(_calls(backend, 8)) == ["ok"] * 8
        assert len(server.requests) == 8
    counts = backend.endpoint_counts()
    # the dead one is tried first (the pool's order), then least recently picked: 3 connection errors rest it
    assert counts[dead] == {"requests": 3, "ok": 0, "failed": 3, "rested": 1}
    assert counts[server.openai_url] == {"requests": 8, "ok": 8, "failed": 0, "rested": 0}


def test_two_live_endpoints_share_the_load(keys):
    with FakeProvider(default=Reply("ok")) as first, FakeProvider(default=Reply("ok")) as second:
        backend = load_model("openai:gpt-4o", base_url=(first.openai_url, second.openai_url))
        assert asyncio.run(_calls(backend, 10)) == ["ok"] * 10
        assert (len(first.requests), len(second.requests)) == (5, 5)

        async def together() -> list[str]:
            return [r.text for r in await asyncio.gather(*(backend.generate(_request()) for _ in range(12)))]

        assert asyncio.run(together()) == ["ok"] * 12
        assert len(first.requests) > 5 and len(second.requests) > 5
        assert len(first.requests) + len(second.requests) == 22
    counts = backend.endpoint_counts()
    assert sum(c["ok"] for c in counts.values()) == 22


def test_a_retry_goes_to_the_other_endpoint_and_429_rests_nothing(keys, quick_retry):
    with FakeProvider([Fail(500)]) as failing, FakeProvider([Fail(429)] * 3, default=Reply("ok")) as limited:
        failing.default = Reply("ok")
        backend = load_model("openai:gpt-4o", base_url=[failing.openai_url, limited.openai_url], retry=quick_retry)
        response = asyncio.run(backend.generate(_request()))
        assert response.text == "ok" and [n["status"] for n in response.retries] == [500, 429]
        assert [len(failing.requests), len(limited.requests)] == [2, 1]
        asyncio.run(_calls(backend, 4))
    counts = backend.endpoint_counts()
    assert counts[limited.openai_url]["failed"] == 3 and counts[limited.openai_url]["rested"] == 0
    assert counts[failing.openai_url]["rested"] == 0


def test_the_anthropic_backend_spreads_over_endpoints_too(keys, quick_retry):
    dead = _dead_url(path="")
    with FakeProvider(default=Reply("ok")) as server:
        backend = load_model("anthropic:claude-haiku-4-5", base_url=[server.anthropic_url, dead], retry=quick_retry)
        assert asyncio.run(_calls(backend, 6)) == ["ok"] * 6
    counts = backend.endpoint_counts()
    assert counts[server.anthropic_url]["ok"] == 6
    assert counts[dead]["failed"] == 3 and counts[dead]["rested"] == 1


def test_credentials_in_base_urls_never_reach_counts_or_errors(keys, fake_sleep):
    policy = RetryPolicy(max_tries=3, sleep=fake_sleep)
    dead_one = _dead_url(userinfo="user:hunter2pass@")
    dead_two = _dead_url(userinfo="admin:p%40ss-word-77@")
    with FakeProvider(default=Reply("ok")) as server:
        live = server.openai_url.replace("http://", "http://user:sk-secret-abcdef@")
        backend = load_model("openai-compatible:qwen", base_url=[live, dead_one], retry=policy)
        assert asyncio.run(_calls(backend, 4)) == ["ok"] * 4
        assert set(backend.endpoint_counts()) == {server.openai_url, public_url(dead_one)}
    reported = repr(backend.endpoint_counts())
    assert "hunter2pass" not in reported and "sk-secret" not in reported and "user" not in reported

    for base_url in ([dead_one, dead_two], dead_one):  # several endpoints, and a single one
        failing = load_model("openai-compatible:qwen", base_url=base_url, retry=policy)
        with pytest.raises(ModelError) as caught:
            asyncio.run(failing.generate(_request()))
        text = str(caught.value) + repr(caught.value.retries)
        assert "connection error" in text
        for secret in ("hunter2pass", "p%40ss-word-77", "p@ss-word-77", "user:", "admin:"):
            assert secret not in text, (secret, text)


def test_one_base_url_takes_no_pool(keys):
    with FakeProvider(default=Reply("ok")) as server:
        for base_url in (server.openai_url, [server.openai_url], (server.openai_url, server.openai_url)):
            backend = load_model("openai:gpt-4o", base_url=base_url)
            assert backend._pool is None and backend.endpoint_counts() == {}
            assert backend.base_url == server.openai_url and backend.base_urls == (server.openai_url,)
            assert asyncio.run(backend.generate(_request())).text == "ok"
    assert BackendOptions(base_urls=("a", "b")).base_url == "a" and BackendOptions().base_url is None


def test_the_pool_rests_an_endpoint_after_three_faults_doubling_up_to_the_longest():
    clock = Clock()
    pool = EndpointPool(["http://a/v1", "http://b/v1"], clock=clock)
    a, b = pool.endpoints
    for _ in range(2):
        assert pool.pick(avoid=b) is a
        pool.done(a, FAULT)
    assert pool.pick(avoid=b) is a
    pool.done(a, Failure(True, "HTTP 502: bad gateway", 502))  # a 5xx is a fault too: the third in a row
    assert a.rested == 1 and a.rest_until == clock.now + FIRST_REST_S
    assert [pool.pick() for _ in range(3)] == [b, b, b]  # a rests
    for endpoint in (b, b, b):
        pool.done(endpoint, None)

    clock.now += FIRST_REST_S
    assert pool.pick() is a  # back from rest: tried again (least recently picked)
    pool.done(a, FAULT)  # one more fault rests it again, twice as long
    assert a.rested == 2 and a.rest_until == clock.now + 2 * FIRST_REST_S
    for _ in range(5):
        clock.now = a.rest_until
        pool.done(pool.pick(avoid=b), FAULT)
    assert a.rest_until - clock.now == LONGEST_REST_S

    clock.now = a.rest_until
    pool.done(pool.pick(avoid=b), None)  # an answer ends the streak and the doubling
    assert (a.faults_in_row, a.next_rest_s, a.rest_until) == (0, FIRST_REST_S, 0.0)
    assert pool.counts()["http://a/v1"] == {"requests": 10, "ok": 1, "failed": 9, "rested": 7}


def test_the_pool_ignores_429_and_late_faults_and_falls_back_to_the_earliest_rest():
    clock = Clock()
    pool = EndpointPool(["http://a", "http://b", "http://c"], clock=clock)
    a, b, c = pool.endpoints
    for _ in range(5):
        pool.done(_take(pool, a), Failure(True, "HTTP 429", 429))
    assert a.rested == 0 and a.failed == 5 and a.faults_in_row == 0

    in_flight = [_take(pool, b) for _ in range(5)]  # five attempts on b fail after it is rested
    for endpoint in in_flight:
        pool.done(endpoint, FAULT)
    assert b.rested == 1 and b.in_flight == 0  # the 4th and 5th neither lengthen nor repeat the rest

    clock.now += 10
    for _ in range(3):
        pool.done(_take(pool, c), FAULT)
    for _ in range(3):
        pool.done(_take(pool, a), FAULT)
    # all rest: b's rest ends first
    assert pool.pick() is b
    pool.abandon(b)  # a cancelled attempt: neither ok nor failed
    assert b.in_flight == 0 and (b.ok, b.failed) == (0, 5)


def _take(pool: EndpointPool, endpoint) -> object:
    """Count an attempt on a given endpoint as `pick` would (for scripting the pool)."""
    with pool._lock:
        endpoint.in_flight += 1
        endpoint.requests += 1
    return endpoint


def test_the_pool_picks_the_endpoint_with_fewest_in_flight():
    pool = EndpointPool(["http://a", "http://b", "http://a"])
    assert len(pool.endpoints) == 2  # a URL given twice is one endpoint
    a, b = pool.endpoints
    first, second, third = pool.pick(), pool.pick(), pool.pick()
    assert (first, second, third) == (a, b, a)
    pool.done(first, None)
    pool.done(third, None)
    assert pool.pick() is a  # b still has one in flight
    with pytest.raises(ValueError, match="at least one base URL"):
        EndpointPool([])


def test_urls_lose_their_userinfo():
    assert public_url("http://user:sk-123@host:8000/v1") == "http://host:8000/v1"
    assert public_url("https://token@host/v1?x=1") == "https://host/v1?x=1"
    assert public_url("http://host/v1") == "http://host/v1"
    assert scrub_userinfo("POST http://u:p@h:1/v1 and https://t@k/x, mail a@b") == (
        "POST http://h:1/v1 and https://k/x, mail a@b"
    )
    assert url_secrets(["http://u:p%40w@h", "http://tok@h", "http://h"]) in (
        ("p%40w", "p@w", "tok"),
        ("p@w", "p%40w", "tok"),
    )
    assert endpoint_urls(None) == () and endpoint_urls("") == () and endpoint_urls(" http://a ") == ("http://a",)
    assert endpoint_urls(["http://a", "", "http://b", "http://a"]) == ("http://a", "http://b")
