"""API keys never reach a file or an output: run, score with a judge, export, view and imagine, against the local
fake provider, with keys of several shapes, while the provider echoes the key in its error messages (as real
APIs do: "Incorrect API key provided: ...").

The keys: an OpenAI `sk-proj-…` key, an Anthropic `sk-ant-…` key, an arbitrary 40-character token in
OPENAI_API_KEY (no prefix: only exact-secret redaction can catch it) and a password in the `--base-url` userinfo
(`http://user:KEY@127.0.0.1:PORT/v1`). Every file under the working folder (run directories, response cache,
judge cache, exports, viewer pages) and every command's stdout and stderr is searched for each key.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from mcot.core.item import Item, write_items
from mcot.core.rundir.schedule import shuffled_pairs
from mcot.testing.fake_provider import Fail, FakeProvider, ImageReply, Reply

pytestmark = pytest.mark.long_running

OPENAI_KEY = "sk-proj-FAKE-test-key-for-mcot-security-tests-0000"  # obviously fake, shaped like a key
ANTHROPIC_KEY = "sk-ant-api03-FAKE-test-key-for-mcot-security-tests-0000"
TOKEN_KEY = "FAKEtokenFORmcotSECURITYtestsNOTaREALkey"  # 40 characters, shaped like no known key
USERINFO_KEY = "FAKEuserinfoPASSWORDforTESTS00"
SECRETS = {"openai": OPENAI_KEY, "anthropic": ANTHROPIC_KEY, "token40": TOKEN_KEY, "userinfo": USERINFO_KEY}


def leaks(root: Path, outputs: dict[str, str], secrets: dict[str, str] = SECRETS) -> list[str]:
    """Return "<secret name> in <file or output>" for every secret found in a file under `root` or an output."""
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found += [f"{name} in {path.relative_to(root)}" for name, key in secrets.items() if key.encode() in data]
    for label, text in outputs.items():
        found += [f"{name} in the output of {label}" for name, key in secrets.items() if key in text]
    return found


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def _items(root: Path) -> tuple[Path, Path]:
    """Write three RBench-V items with an image (answers a judge must settle) and one GOBench generation prompt."""
    png = _png()
    questions = [
        Item(
            id=f"q{i}",
            benchmark="rbench-v",
            category="physics",
            question=f"Question q{i}?",
            images=["images/q.png"],
            answer="50 cm",
            answer_type="text",
        )
        for i in range(3)
    ]
    write_items(root / "items", [(item, {"images/q.png": png}) for item in questions])
    prompt = Item(
        id="g0",
        benchmark="gobench",
        category="reflect_light_images",
        question="A cat before a mirror.",
        answer="",
        answer_type="image",
        meta={"task": "generation", "questions_reality": ["Is the reflection right?"]},
    )
    write_items(root / "prompts", [(prompt, {})])
    return root / "items", root / "prompts"


@dataclass
class Echoing:
    """A provider script that echoes `key` in its errors: q0's first try a 500, q1 always a 401."""

    key: str
    echoed: int = 0
    calls: int = 0

    def __call__(self, body: dict[str, Any]) -> Reply | Fail | ImageReply:
        self.calls += 1
        text = json.dumps(body)
        if "messages" not in body:  # the Images API
            if self.calls % 2:
                self.echoed += 1
                return Fail(500, message=f"image server error for key {self.key}")
            return ImageReply()
        if "Question q1" in text:
            self.echoed += 1
            return Fail(401, message=f"Incorrect API key provided: {self.key}. You can find your API key at https://x")
        if "Question q0" in text and self.calls % 2:
            self.echoed += 1
            return Fail(500, message=f"server error for key {self.key}")
        return Reply("\\boxed{0.5 m}" if self.calls % 3 else "It moves; I cannot say.")


@dataclass
class EchoingJudge:
    """A judge's provider script: its first call a 500 that echoes `key`, every later call an answer.

    The judge's own script, so that which judge requests fail does not hang on the order concurrent requests reach
    the server (a 401 is a permanent answer: it would stop every judgment at once).
    """

    key: str
    echoed: int = 0
    calls: int = 0

    def __call__(self, body: dict[str, Any]) -> Reply | Fail:
        self.calls += 1
        if self.calls == 1:
            self.echoed += 1
            return Fail(500, message=f"judge server error for key {self.key}")
        return Reply("\\boxed{0.5 m}")


@dataclass
class World:
    """The working folder after every command ran, their outputs, and the provider scripts."""

    root: Path
    outputs: dict[str, str] = field(default_factory=dict)
    codes: dict[str, int] = field(default_factory=dict)
    scripts: list[Echoing | EchoingJudge] = field(default_factory=list)


def _mcot(world: World, label: str, *args: str, keys: dict[str, str]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update(keys)
    env["MCOT_JUDGE_CACHE"] = str(world.root / "judge-cache")
    done = subprocess.run(
        [sys.executable, "-m", "mcot", *args], capture_output=True, text=True, env=env, cwd=world.root, timeout=240
    )
    world.outputs[label] = done.stdout + done.stderr
    world.codes[label] = done.returncode


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("secrets")
    items, prompts = _items(root)
    w = World(root)
    token, openai, anthropic = Echoing(TOKEN_KEY), Echoing(OPENAI_KEY), Echoing(ANTHROPIC_KEY)
    w.scripts = [token, openai, anthropic]
    with FakeProvider(default=token) as server:
        url = server.openai_url.replace("http://", f"http://user:{USERINFO_KEY}@")
        keys = {"OPENAI_API_KEY": TOKEN_KEY}
        common = ["--max-tries", "2", "--base-url", url]
        # q1's 401 is a permanent answer that opens the breaker at once, so that the judge below has answers to
        # judge whatever the order: one pair at a time, in an order (the seed's) that puts q1 last
        seed = next(s for s in range(100) if shuffled_pairs(["q0", "q1", "q2"], ["text", "canvas"], s)[-2][0] == "q1")
        _mcot(w, "run (40-char token, userinfo)", "run", "--data", str(items), "--model", "openai:gpt-4o",
              "--mode", "text,canvas", "--out", "run-token", "--cache", "cache", "--concurrency", "1",
              "--seed", str(seed), *common, keys=keys)  # fmt: skip
    judge = EchoingJudge(TOKEN_KEY)
    w.scripts.append(judge)
    with FakeProvider(default=judge) as server:
        url = server.openai_url.replace("http://", f"http://user:{USERINFO_KEY}@")
        _mcot(w, "score with a judge (token)", "score", "run-token", "--judge", "openai:gpt-4o", "--base-url", url,
              "--protocol", "both", keys=keys)  # fmt: skip
    with FakeProvider(default=openai) as server:
        keys = {"OPENAI_API_KEY": OPENAI_KEY}
        common = ["--max-tries", "2", "--base-url", server.openai_url]
        _mcot(w, "run (sk-)", "run", "--data", str(items), "--model", "openai:gpt-4o", "--mode", "text",
              "--out", "run-openai", "--log-every", "0.1", *common, keys=keys)  # fmt: skip
        _mcot(w, "imagine (sk-)", "imagine", "--data", str(prompts), "--generator", "openai-image:gpt-image-1",
              "--out", "imagine-openai", *common, keys=keys)  # fmt: skip
    with FakeProvider(default=anthropic) as server:
        keys = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY}
        _mcot(w, "run (sk-ant-)", "run", "--data", str(items), "--model", "anthropic:claude-sonnet-4-5",
              "--mode", "text,canvas", "--out", "run-anthropic", "--max-tries", "2", "--base-url", server.url,
              keys=keys)  # fmt: skip
        _mcot(w, "score with a judge (sk-ant-)", "score", "run-anthropic", "--judge", "anthropic:claude-sonnet-4-5",
              "--base-url", server.url, keys=keys)  # fmt: skip
    for run in ("run-token", "run-anthropic", "run-openai"):
        _mcot(w, f"export {run}", "export", run, "--format", "jsonl", "--out", f"export-{run}", keys={})
        _mcot(w, f"export {run} messages", "export", run, "--format", "jsonl", "--as", "messages",
              "--out", f"messages-{run}", keys={})  # fmt: skip
        _mcot(w, f"view {run}", "view", run, "--out", f"view-{run}.html", keys={})
    yield w


def test_no_key_in_any_file_or_output(world: World) -> None:
    assert leaks(world.root, world.outputs) == []


def test_the_commands_ran_and_the_provider_did_echo_every_key(world: World) -> None:
    # the search above means something only if the keys went through mcot's hands
    runs = {label: code for label, code in world.codes.items() if label.startswith("run")}
    assert set(runs.values()) == {3}, world.outputs  # some pairs failed (the 401s): finished, with failures
    others = {label: code for label, code in world.codes.items() if not label.startswith("run")}
    # the scripts answer by call count, so which requests fail depends on the order concurrent pairs reach the
    # server: a judge asked with a key its server refuses (the 401s) leaves judgments missing (`score`: exit 3)
    # unless every pair was settled by rule; a prompt may run out of its 2 tries on the Images API (imagine: exit 3)
    allowed = {"score": {0, 3}, "imagine": {0, 3}}
    wrong = {label: code for label, code in others.items() if code not in allowed.get(label.split()[0], {0})}
    assert not wrong, (wrong, {label: world.outputs[label][-600:] for label in wrong})
    assert all(script.echoed > 0 for script in world.scripts), [
        (type(s).__name__, s.echoed, s.calls) for s in world.scripts
    ]
    for run in ("run-token", "run-openai", "run-anthropic"):
        errors = [json.loads(line).get("error") or "" for line in (world.root / run / "results.jsonl").open()]
        assert any("Incorrect API key provided: ***" in error for error in errors), (run, errors)
    scores = (world.root / "run-token" / "scores.jsonl").read_text()
    assert '"method": "judge' in scores  # the judge was asked (with the token and the userinfo URL)
    assert list((world.root / "imagine-openai" / "blobs").glob("*.png"))  # the Images API answered in the end


def test_the_search_finds_a_key_when_exact_redaction_is_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the same run in this process, with every module's `redactor` replaced by one that knows no secrets
    from mcot.agents.backends import base

    from mcot.runconfig import RunConfig
    from mcot.runner import run_items

    original = base.redactor
    for name, module in list(sys.modules.items()):
        # mcot's modules only: getattr on a lazy third-party module (transformers') may import its extras
        if name.startswith("mcot") and getattr(module, "redactor", None) is original:
            monkeypatch.setattr(module, "redactor", lambda *secrets: original())
    items, _ = _items(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", TOKEN_KEY)
    with FakeProvider(default=Echoing(TOKEN_KEY)) as server:
        config = RunConfig(
            data=items, model="openai:gpt-4o", out=tmp_path / "run", mode="text", base_url=server.openai_url
        )
        run_items(config, quiet=True)
    found = leaks(tmp_path / "run", {})
    assert "token40 in results.jsonl" in found, found


# --- keys of hostile shapes: refused before any request, redacted at any length, out of URL query strings ---


@pytest.mark.parametrize(("model", "variable"), [("openai-compatible:m", "OPENAI_API_KEY"), ("openai:gpt-4o", "OPENAI_API_KEY"),
                                                 ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY")])  # fmt: skip
@pytest.mark.parametrize("key", ["FAKEkey\r\nX-Injected: 1", "FAKEkey\twith-a-tab", "FAKEkey\n"])
def test_a_key_with_a_control_character_is_refused_before_any_request(
    tmp_path: Path, model: str, variable: str, key: str
) -> None:
    items, _ = _items(tmp_path)
    with FakeProvider(default=Reply("\\boxed{1}")) as server:
        url = server.url if model.startswith("anthropic") else server.openai_url
        w = World(tmp_path)
        _mcot(w, "run", "run", "--data", str(items), "--model", model, "--mode", "text", "--base-url", url,
              "--out", "run", keys={variable: key})  # fmt: skip
        asked = len(server.requests)
    assert w.codes["run"] == 2, w.outputs["run"]
    assert f"{variable} holds a control character" in w.outputs["run"]
    assert asked == 0 and not (tmp_path / "run").exists()
    assert "FAKEkey" not in w.outputs["run"]


SHORT_KEY = "FkQ"  # three characters: only exact-secret redaction of any length catches it


def test_a_short_key_echoed_in_an_error_is_redacted_everywhere(tmp_path: Path) -> None:
    from mcot.testing import Agent, RequestInfo

    class Echo(Agent):
        def answer(self, request: RequestInfo) -> Fail:
            auth = next((v for k, v in request.headers.items() if k.lower() == "authorization"), "")
            return Fail(401, message=f"Incorrect API key provided: {auth} (key {auth.split()[-1]})")

    items, _ = _items(tmp_path)
    w = World(tmp_path)
    with FakeProvider(default=Echo()) as server:
        for model in ("openai-compatible:m", "openai:gpt-4o"):
            out = f"run-{model.split(':')[0]}"
            _mcot(w, out, "run", "--data", str(items), "--model", model, "--mode", "text",
                  "--base-url", server.openai_url, "--out", out, keys={"OPENAI_API_KEY": SHORT_KEY})  # fmt: skip
            _mcot(w, f"view {out}", "view", out, "--out", f"view-{out}.html", keys={})
            _mcot(w, f"export {out}", "export", out, "--format", "jsonl", "--out", f"export-{out}", keys={})
    assert set(w.codes.values()) <= {0, 3}, w.outputs
    texts = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json", ".html", ".md")]
    assert not [str(p) for p in texts if SHORT_KEY in p.read_text(errors="replace")]
    assert not [label for label, text in w.outputs.items() if SHORT_KEY in text]
    errors = [json.loads(line)["error"] for line in (tmp_path / "run-openai-compatible" / "results.jsonl").open()]
    assert all("Incorrect API key provided: Bearer *** (key ***)" in error for error in errors), errors


def test_redaction_survives_whitespace_changes_and_comes_before_shortening() -> None:
    from mcot.agents.backends.base import redactor
    from mcot.agents.retry import shorten

    redact = redactor("FAKE two\twords")
    assert redact("key FAKE two words echoed") == "key *** echoed"
    assert redact("key FAKE two\n   words echoed") == "key *** echoed"
    assert redactor("ab")("grab a cab") == "gr*** a c***"  # any length
    assert shorten(redact("x " * 400 + "FAKE two\twords")).endswith("…")


QUERY_KEY = "FAKEqueryKEYinTHEbaseURL0000"


def test_a_key_in_the_base_url_query_string_stays_out_of_the_manifest_and_errors(tmp_path: Path) -> None:
    from mcot.testing import Agent, RequestInfo

    class EchoPath(Agent):
        def answer(self, request: RequestInfo) -> Fail:
            return Fail(403, message=f"forbidden: {request.path}")

    items, _ = _items(tmp_path)
    w = World(tmp_path)
    with FakeProvider(default=EchoPath()) as server:
        url = f"{server.openai_url}?api_key={QUERY_KEY}&region=eu"
        _mcot(w, "run", "run", "--data", str(items), "--model", "openai:gpt-4o", "--mode", "text", "--base-url", url,
              "--out", "run", keys={"OPENAI_API_KEY": TOKEN_KEY})  # fmt: skip
    assert w.codes["run"] == 3, w.outputs["run"]
    assert leaks(tmp_path, w.outputs, {"query": QUERY_KEY}) == []
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["model"]["base_url"] == f"{server.openai_url}?api_key=***&region=eu"
