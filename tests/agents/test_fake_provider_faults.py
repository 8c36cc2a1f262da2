"""Fault injection of the local test server, as the real OpenAI and Anthropic SDKs (and the Images API) meet it."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections import Counter

import httpx
import pytest
from mcot.agents.backends import ModelRequest, ModelResponse, load_model
from mcot.agents.errors import ModelError
from mcot.agents.messages import Message, TextPart
from mcot.agents.retry import RetryPolicy

from mcot.testing.fake_provider import (
    BAD_ARGUMENTS,
    FAULT_KINDS,
    UNKNOWN_TOOL,
    FakeProvider,
    Faults,
    JudgeAgent,
    Reply,
    RequestInfo,
    SoakAgent,
    conversation_of,
)

WIRES = ("openai-compatible", "anthropic")
ONE_TRY = RetryPolicy(max_tries=1)
DRAW = ("draw_line", {"start": [0, 0], "end": [5, 5]})

# what one try meets, by fault kind: a ModelError whose message holds the text, or an answer (None)
EXPECTED_ERROR = {
    "429": "HTTP 429",
    "429_retry_after": "HTTP 429",
    "500": "HTTP 500",
    "502": "HTTP 502",
    "503": "HTTP 503",
    "529": "HTTP 529",
    "hang": "connection error",  # held, then closed without a word (the client's time-out is longer)
    "reset": "connection error",
    "cut_body": "connection error",
    "truncated_json": "unparsable response",
    "invalid_json": "unparsable response",
    "unknown_tool": None,
    "bad_arguments": None,
}


def _url(server: FakeProvider, wire: str) -> str:
    return server.openai_url if wire == "openai-compatible" else server.anthropic_url


def _ask(server: FakeProvider, wire: str, *, timeout_s: float = 10.0) -> ModelResponse:
    backend = load_model(f"{wire}:m", base_url=_url(server, wire), retry=ONE_TRY, timeout_s=timeout_s)
    request = ModelRequest(messages=[Message("user", [TextPart("What is 2 + 2?")])], max_tokens=50)
    return asyncio.run(backend.generate(request))


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def test_the_fault_list_is_the_one_the_expectations_cover() -> None:
    assert set(FAULT_KINDS) == set(EXPECTED_ERROR) | {"empty"}


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("kind", sorted(EXPECTED_ERROR))
def test_each_fault_reaches_the_sdk_as_a_provider_would_send_it(wire: str, kind: str) -> None:
    faults = Faults(rate=1.0, kinds=[kind], hang_s=0.5)
    with FakeProvider(default=Reply("four", tool_calls=[DRAW]), faults=faults) as server:
        expected = EXPECTED_ERROR[kind]
        if expected is None:
            response = _ask(server, wire)
        else:
            with pytest.raises(ModelError, match=expected):
                _ask(server, wire)
        counts = server.counts
    assert counts.injected == Counter({kind: 1})
    assert counts.requests == 1
    if expected is not None:  # no valid answer was given: nothing was paid
        assert sum(counts.valid.values()) == 0
        return
    assert sum(counts.valid.values()) == 1
    assert response.text == "four"
    names = [call.name for call in response.tool_calls]
    assert names[0] == "draw_line" and response.tool_calls[0].parsed_arguments() == {"start": [0, 0], "end": [5, 5]}
    if kind == "unknown_tool":
        assert names[1:] == [UNKNOWN_TOOL]
    else:
        assert names[1:] == ["draw_line"]
        assert response.tool_calls[1].parsed_arguments() is None  # not a JSON object: the session says so


def test_an_empty_answer_openai_has_no_choices_anthropic_no_content() -> None:
    faults = Faults(rate=1.0, kinds=["empty"])
    with FakeProvider(default=Reply("four"), faults=faults) as server:
        with pytest.raises(ModelError, match="no choices"):
            _ask(server, "openai-compatible")
        # the Anthropic SDK takes an empty content list as an answer; the backend refuses it (and retries)
        with pytest.raises(ModelError, match="neither text nor tool calls"):
            _ask(server, "anthropic")


def test_a_hang_longer_than_the_client_time_out_is_a_time_out() -> None:
    # the hang holds the answer far longer than any test runs: the client's own time-out ends the wait (a hang that
    # ended first would close the connection without a word, a different error), the server still holds the answer
    # then, and stopping the server lets it go
    earlier = set(threading.enumerate())  # other tests' servers may still hold answers of their own
    with FakeProvider(default=Reply("four"), faults=Faults(rate=1.0, kinds=["hang"], hang_s=3600.0)) as server:
        with pytest.raises(ModelError, match="timed out"):
            _ask(server, "openai-compatible", timeout_s=0.3)
        assert server.counts.injected["hang"] == 1
        held = [t for t in set(threading.enumerate()) - earlier if t.name.endswith("(process_request_thread)")]
        assert len(held) == 1 and held[0].is_alive()
    held[0].join(timeout=60)  # a bound on liveness, not on speed: unreleased, the answer is held for an hour
    assert not held[0].is_alive()


def test_429_retry_after_asks_for_whole_seconds_up_to_the_limit() -> None:
    faults = Faults(rate=1.0, kinds=["429_retry_after"], retry_after_max_s=1)
    seen = set()
    with FakeProvider(default=Reply("four"), faults=faults) as server:
        for i in range(40):
            response = httpx.post(server.openai_url + "/chat/completions", json={"messages": [], "n": i})
            assert response.status_code == 429
            assert response.json()["error"]["type"] == "rate_limit_exceeded"
            seen.add(response.headers["retry-after"])
        plain = FakeProvider(default=Reply("four"), faults=Faults(rate=1.0, kinds=["429"]))
    with plain:
        assert "retry-after" not in httpx.post(plain.url + "/v1/messages", json={"messages": []}).headers
    assert seen == {"0", "1"}


def test_anthropic_errors_carry_the_anthropic_error_types() -> None:
    expected = {"429": "rate_limit_error", "529": "overloaded_error", "503": "api_error"}
    for kind, error_type in expected.items():
        with FakeProvider(faults=Faults(rate=1.0, kinds=[kind])) as server:
            body = httpx.post(server.anthropic_url + "/v1/messages", json={"messages": []}).json()
        assert body == {"type": "error", "error": {"type": error_type, "message": f"injected fault: HTTP {kind}"}}


def test_draws_are_seeded_by_the_request_bytes_and_how_often_they_came() -> None:
    faults = Faults(rate=0.3, seed=4, kinds={"500": 3.0, "503": 1.0})
    kinds = frozenset({"500", "503"})
    draws = [faults.draw(f"key-{i}", 0, kinds)[0] for i in range(4000)]
    again = [
        Faults(rate=0.3, seed=4, kinds={"500": 3.0, "503": 1.0}).draw(f"key-{i}", 0, kinds)[0] for i in range(4000)
    ]
    assert draws == again
    faulted = Counter(kind for kind in draws if kind is not None)
    assert 0.27 < sum(faulted.values()) / 4000 < 0.33
    assert 2.4 < faulted["500"] / faulted["503"] < 3.8
    # the next arrival of the same bytes draws afresh; another seed draws otherwise
    assert [faults.draw("key-1", n, kinds)[0] for n in range(200)].count(None) < 200
    assert draws != [Faults(rate=0.3, seed=5).draw(f"key-{i}", 0, kinds)[0] for i in range(4000)]
    # a kind that cannot apply to a request is left out of its draw
    assert {Faults(rate=1.0, kinds=["unknown_tool"]).draw(f"k{i}", 0, frozenset({"500"}))[0] for i in range(50)} == {
        None
    }


def test_faults_refuse_unknown_kinds_and_rates() -> None:
    with pytest.raises(ValueError, match="unknown fault kinds"):
        Faults(kinds=["teapot"])
    with pytest.raises(ValueError, match="between 0 and 1"):
        Faults(rate=1.5)


def test_counts_find_a_request_answered_twice() -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": "2 + 2?"}]}
    with FakeProvider(default=Reply("four"), stable_ids=True) as server:
        first = httpx.post(server.openai_url + "/chat/completions", json=request)
        second = httpx.post(server.openai_url + "/chat/completions", json=request)
        other = dict(request, messages=[*request["messages"], {"role": "assistant", "content": "4"}])
        httpx.post(server.openai_url + "/chat/completions", json=other)
        counts = server.counts
    key = hashlib.sha256(first.request.content).hexdigest()
    assert first.content == second.content  # stable ids: the same request, the same bytes
    assert counts.paid_twice() == {key: 2}
    assert counts.repaid() == 1
    conversation, arm, _ = conversation_of(request, "openai")
    assert counts.by_turn == Counter({(conversation, arm, 0): 2, (conversation, arm, 1): 1})
    assert [p.turn for p in counts.paid] == [0, 0, 1]
    assert counts.summary()["max_requests_per_turn"] == 2


def test_images_requests_get_transport_faults_and_empty_data_only() -> None:
    body = {"model": "gpt-image-1", "prompt": "a red square", "n": 1}
    with FakeProvider(faults=Faults(rate=1.0, kinds=["empty", "unknown_tool", "bad_arguments"])) as server:
        answer = httpx.post(server.openai_url + "/images/generations", json=body).json()
        counts = server.counts
    assert answer["data"] == []
    assert counts.injected == Counter({"empty": 1})
    assert sum(counts.valid.values()) == 0


def _info(body: dict, wire: str = "openai", paid_before: int = 0) -> RequestInfo:
    conversation, arm, turn = conversation_of(body, wire)
    return RequestInfo("/v1/chat/completions", body, "k" * 64, conversation, arm, turn, paid_before, wire)


def test_soak_agent_draws_then_answers_by_the_conversation() -> None:
    task = "Which is it?\n\nA. red\nB. green\nC. blue"
    tools = [{"type": "function", "function": {"name": "draw_line"}}]
    first = {"messages": [{"role": "user", "content": task}], "tools": tools}
    agent = SoakAgent()
    turn0 = agent.answer(_info(first))
    assert turn0.tool_calls[0][0] == "draw_line"
    rounds = [{"role": "assistant", "content": "drawn"}, {"role": "user", "content": "the canvas"}] * 2
    later = dict(first, messages=[*first["messages"], *rounds])  # turn 2: past the one or two tool rounds
    final = agent.answer(_info(later))
    info = _info(later)
    assert not final.tool_calls
    assert final.text.startswith(f"Reference {info.conversation}. The answer is \\boxed{{")
    letter = final.text[-3]
    assert letter in "ABC"
    text_arm = {"messages": [{"role": "user", "content": task}]}
    assert not agent.answer(_info(text_arm)).tool_calls
    # asked again after a valid answer, a drifting agent may say something else; never without drift
    drifting = SoakAgent(drift=1.0)
    assert drifting.answer(_info(later)).text == final.text
    assert drifting.answer(_info(later, paid_before=1)).text != final.text
    assert agent.answer(_info(later, paid_before=1)).text == final.text


def test_judge_agent_is_deterministic() -> None:
    body = {"messages": [{"role": "user", "content": "Is 'eleven' the same as 11? Answer 1 or 0."}]}
    verdicts = {JudgeAgent().answer(_info(body)).text for _ in range(3)}
    assert len(verdicts) == 1 and verdicts <= {"0", "1"}


def test_bad_arguments_are_cut_json() -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(BAD_ARGUMENTS)


def test_an_answer_the_client_holds_is_already_counted_as_paid() -> None:
    # the count was made after the write, and a client that read its answer at once could find it uncounted
    with FakeProvider(default=Reply("four")) as server:
        seen = []
        for _ in range(40):
            _ask(server, "openai-compatible")
            seen.append(sum(server.counts.valid.values()))
    assert seen == list(range(1, 41))
    assert len(server.counts.paid) == 40
