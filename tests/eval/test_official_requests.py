"""Each benchmark's requests, captured at a local server, set beside the strings its public evaluation code builds.

The official strings are fixtures (tests/data/official/requests.json, produced by running the public functions
on the inputs stored there); every test renders mcot's request for the same input through mcot's own client code
and compares byte for byte. These are the rows of docs/scoring.md's conformance table.
"""

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import pytest
from mcot.agents.backends import load_model
from mcot.agents.solver import solve
from mcot.eval.judges import load_templates
from mcot.eval.protocols.gepbench import public_answer
from PIL import Image

from mcot.commands.score import run_score
from mcot.core.item import Item, write_items
from mcot.core.registry import BENCHMARKS
from mcot.core.rundir import read_jsonl
from mcot.runconfig import RunConfig
from mcot.runner import run_items
from mcot.testing import FakeProvider, Reply

OFFICIAL: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "data" / "official" / "requests.json").read_text(encoding="utf-8")
)


def _user_texts(body: dict[str, Any]) -> list[str]:
    user = next(m for m in body["messages"] if m["role"] == "user")
    if isinstance(user["content"], str):
        return [user["content"]]
    return [part["text"] for part in user["content"] if part.get("type") == "text"]


def _roles(body: dict[str, Any]) -> list[str]:
    return [m["role"] for m in body["messages"]]


def _user_types(body: dict[str, Any]) -> list[str]:
    user = next(m for m in body["messages"] if m["role"] == "user")
    return [part["type"] for part in user["content"]] if isinstance(user["content"], list) else ["text"]


def _sent(item: Item, root: Path) -> dict[str, Any]:
    """Return the body of the text arm's request for `item`, as a local OpenAI-compatible server received it."""
    with FakeProvider([], default=Reply("\\boxed{4}")) as server:
        model = load_model("openai-compatible:local-vlm", base_url=server.openai_url)
        prediction, _ = asyncio.run(solve(item, root, model, "text"))
        body = server.requests[0].body
    assert prediction.status == "ok", prediction.error
    return body


def _image(root: Path) -> str:
    Image.new("RGB", (64, 48), "white").save(root / "q.png")
    return "q.png"


def test_rbench_v_with_an_image_is_asked_in_the_forks_words(tmp_path: Path) -> None:
    case = OFFICIAL["rbench_v_image"]
    item = Item(
        id="counting-0",
        benchmark="rbench-v",
        category="Counting",
        question=case["question"],
        images=[_image(tmp_path)],
        choices=["2", "3", "4", "5"],  # the loader reads the options out of the question; they are not sent twice
        answer="D",
        answer_type="choice",
    )
    body = _sent(item, tmp_path)
    assert _roles(body) == ["user"]  # no system prompt, as the fork's build_prompt
    assert _user_texts(body) == [case["text"]]
    assert _user_types(body) == ["image_url", "text"]  # the image, then the one text block
    assert body["max_tokens"] == 2048  # VLMEvalKit's API wrapper default
    assert body["temperature"] == 0


def test_rbench_v_without_an_image_is_not_told_of_a_picture(tmp_path: Path) -> None:
    case = OFFICIAL["rbench_v_text_only"]
    item = Item(
        id="physics-0",
        benchmark="rbench-v",
        category="Physics",
        question=case["question"],
        images=[],
        answer="5",
        answer_type="number",
    )
    body = _sent(item, tmp_path)
    assert _roles(body) == ["user"]
    assert _user_texts(body) == [case["text"]]
    assert _user_types(body) == ["text"]  # no image part at all
    assert "picture" not in case["text"]


def test_gepbench_text_arm_is_geocaps_request(tmp_path: Path) -> None:
    case = OFFICIAL["gepbench"]
    item = Item(
        id="g",
        benchmark="gepbench",
        category="counting",
        question=case["question"],
        images=[_image(tmp_path)],
        choices=case["choices"],
        answer="C",
        answer_type="choice",
    )
    body = _sent(item, tmp_path)
    assert _roles(body) == ["user"]  # geocap sends no system prompt
    assert _user_texts(body) == [case["text"]]
    assert _user_types(body) == ["image_url", "text"]  # the image, then the question
    assert body["max_tokens"] == 10 == BENCHMARKS.get("gepbench").max_new_tokens
    assert body["temperature"] == 0  # greedy, as the local models' generate


def test_gobench_understanding_sends_sys_and_the_tsvs_question(tmp_path: Path) -> None:
    case = OFFICIAL["gobench_understanding"]
    item = Item(
        id="u",
        benchmark="gobench",
        category="refraction",
        question=case["question"],
        images=[_image(tmp_path)],
        answer="",
        answer_type="rating",
    )
    body = _sent(item, tmp_path)
    assert _roles(body) == ["user"]  # VLMEvalKit's build_prompt: no system prompt
    assert _user_texts(body) == [case["text"]]
    assert _user_types(body) == ["image_url", "text"]  # the image, then SYS + question
    assert body["max_tokens"] == 2048 and body["temperature"] == 0  # VLMEvalKit's API wrapper defaults


@pytest.mark.parametrize("response", sorted(OFFICIAL["gepbench_find_answer"]["answers"]))
def test_gepbench_official_letter_is_the_public_find_answer(response: str) -> None:
    choices = OFFICIAL["gepbench_find_answer"]["choices"]
    public = OFFICIAL["gepbench_find_answer"]["answers"][response]
    letter, rule = public_answer(response, choices)
    assert (letter or "-") == public, rule


def test_rbench_v_judge_requests_are_mathverses_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extract, score = OFFICIAL["mathverse_extract"], OFFICIAL["mathverse_score"]
    item = Item(
        id="counting-0",
        benchmark="rbench-v",
        category="Counting",
        question=score["question"],
        images=[],
        choices=["2", "3", "4", "5"],
        answer="D",
        answer_type="choice",
        meta={"answer_raw": score["answer"]},
    )
    write_items(tmp_path / "items", [(item, {})])
    run = tmp_path / "run"
    with FakeProvider([], default=Reply(extract["response"])) as server:
        config = RunConfig(data=tmp_path / "items", model="openai-compatible:m", out=run, mode="text",
                           base_url=server.openai_url)  # fmt: skip
        assert run_items(config, quiet=True).by_status == {"ok": 1}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-key-not-real")
    monkeypatch.setenv("MCOT_JUDGE_CACHE", str(tmp_path / "judge-cache"))

    def judge(body: dict[str, Any]) -> Reply:
        return Reply("0" if _user_texts(body)[0].endswith("Judgement:") else score["extracted"])

    with FakeProvider(default=judge) as server:
        assert run_score(run, judge="openai:gpt-4o", base_url=server.openai_url) == 0
        prompts = [_user_texts(r.body)[0] for r in server.requests]
    assert prompts == [extract["text"], score["text"]]  # stage 1 on the response, stage 2 on the raw answer
    (line,) = read_jsonl(run / "scores.jsonl")
    assert line["method"] == "judge" and line["correct"] is False and line["extracted"] == "4"
    templates = {stage["template"] for stage in line["judge"]["stages"]}
    assert templates == {"mathverse_extract", "mathverse_score"}
    judge_entry = json.loads((run / "manifest.json").read_text(encoding="utf-8"))["judge"]
    assert judge_entry["spec"] == "openai:gpt-4o"
    hashes = {name: load_templates()[name].sha256 for name in ("mathverse_extract", "mathverse_score")}
    assert {name: judge_entry["templates"][name] for name in hashes} == hashes  # the manifest hashes both prompts


def test_rbench_v_exact_match_reads_the_raw_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    item = Item(id="counting-0", benchmark="rbench-v", category="Counting", question="How many? A. 4 B. 5",
                images=[], choices=["4", "5"], answer="B", answer_type="choice", meta={"answer_raw": "5"})  # fmt: skip
    write_items(tmp_path / "items", [(item, {})])
    run = tmp_path / "run"
    with FakeProvider([], default=Reply("\\boxed{5}")) as server:
        config = RunConfig(data=tmp_path / "items", model="openai-compatible:m", out=run, mode="text",
                           base_url=server.openai_url)  # fmt: skip
        run_items(config, quiet=True)
    monkeypatch.setenv("MCOT_JUDGE_CACHE", str(tmp_path / "judge-cache"))
    with FakeProvider(default=Reply("5")) as server:  # stage 1 copies out 5: the prefetch settles it
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-key-not-real")
        run_score(run, judge="openai:gpt-4o", base_url=server.openai_url)
        asked = len(server.requests)
    (line,) = read_jsonl(run / "scores.jsonl")
    assert line["correct"] is True and line["details"]["match"] == "exact-after-extraction" and asked == 1


GOBENCH_REPLY = (
    "1. Yes\n2. Yes\n3. No\n4. Yes\n5. Yes\nTotal Score: 4\nAesthetics Rating: 3\nInstruction Consistency Rating: 4"
)
NO_JUDGE_CASES = {
    "gepbench": (
        Item(id="g", benchmark="gepbench", category="counting", question="How many circles?", images=[],
             choices=["1", "2", "3", "4"], answer="C", answer_type="choice", meta={"level": "easy"}),
        "C",
    ),
    "gobench": (
        Item(id="u", benchmark="gobench", category="reflect_light_images", question="Rate it.", images=[],
             answer="Reality Assessment Score: 4.0; Aesthetics Rating: 3.0; Instruction Consistency Rating: 4.0",
             answer_type="rating", meta={"task": "understanding"}),
        GOBENCH_REPLY,
    ),
}  # fmt: skip


@pytest.mark.parametrize("benchmark", sorted(NO_JUDGE_CASES))
def test_gepbench_and_gobench_official_scoring_sends_no_judge_prompt(
    benchmark: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the rows "judge prompts: none": geocap's find_answer and VLMEvalKit's parse_prediction ask no model
    item, reply = NO_JUDGE_CASES[benchmark]
    write_items(tmp_path / "items", [(item, {})])
    run = tmp_path / "run"
    with FakeProvider([], default=Reply(reply)) as server:
        config = RunConfig(data=tmp_path / "items", model="openai-compatible:m", out=run, mode="text",
                           base_url=server.openai_url)  # fmt: skip
        assert run_items(config, quiet=True).by_status == {"ok": 1}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-key-not-real")
    monkeypatch.setenv("MCOT_JUDGE_CACHE", str(tmp_path / "judge-cache"))
    with FakeProvider(default=Reply("1")) as judge:
        assert run_score(run, judge="openai:gpt-4o", base_url=judge.openai_url) == 0
        asked = len(judge.requests)
    (line,) = read_jsonl(run / "scores.jsonl")
    assert asked == 0 and line["method"] == "rule"


IMAGE_CASES = {
    "rbench-v": {"category": "Counting", "answer": "3", "answer_type": "number"},
    "gobench": {"category": "refraction", "answer": "", "answer_type": "rating"},
    "gepbench": {"category": "counting", "answer": "C", "answer_type": "choice", "choices": ["1", "2", "3", "4"]},
}


@pytest.mark.parametrize("benchmark", sorted(IMAGE_CASES))
def test_the_image_is_sent_as_stored_without_a_detail_level(benchmark: str, tmp_path: Path) -> None:
    # the conformance rows "image encoding": VLMEvalKit's GPT wrapper sends a low-detail JPEG; mcot the file itself
    name = _image(tmp_path)
    item = Item(id="i", benchmark=benchmark, question="How many?", images=[name], **IMAGE_CASES[benchmark])
    body = _sent(item, tmp_path)
    user = next(m for m in body["messages"] if m["role"] == "user")
    (image,) = [part["image_url"] for part in user["content"] if part["type"] == "image_url"]
    stored = base64.b64encode((tmp_path / name).read_bytes()).decode()
    assert image == {"url": f"data:image/png;base64,{stored}"}  # the PNG's own bytes, no "detail" key
