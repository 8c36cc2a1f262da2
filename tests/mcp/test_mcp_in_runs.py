"""MCP tools in mcot's arms: `mcot run --mcp NAME=COMMAND --tools NAME:*` with a small MCP server (tests/mcp/
image_server.py, on the `mcp` SDK) whose tool returns an image, through both wire formats, asserted at a local
model server: OpenAI chat gets the image in a user message after the tool message, Anthropic inside the
tool_result. The manifest records the server; a resume with changed tools is refused; a hung or dead server fails
its calls in one line and the run goes on."""

from __future__ import annotations

import base64
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from extras import needs
from PIL import Image

from mcot.commands.run import run_items as run_command
from mcot.core.errors import UsageError
from mcot.core.item import Item, write_items
from mcot.core.rundir import read_jsonl
from mcot.testing import FakeProvider, Reply

pytestmark = needs("mcp")

SERVER = Path(__file__).with_name("image_server.py")
COMMAND = f"{sys.executable} {SERVER}"


def _png(color: str = "white") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), color).save(buffer, format="PNG")
    return buffer.getvalue()


def _is_red_stamp(data: bytes) -> bool:
    with Image.open(io.BytesIO(data)) as image:
        return image.size == (32, 24) and image.convert("RGB").getpixel((5, 5)) == (255, 0, 0)


@pytest.fixture(scope="module")
def items_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    item = Item(id="q0", benchmark="gepbench", category="counting", question="How many circles?",
                images=["images/q0.png"], choices=["1", "2", "3", "4"], answer="C", answer_type="choice")  # fmt: skip
    out = tmp_path_factory.mktemp("mcp-items") / "items"
    write_items(out, [(item, {"images/q0.png": _png()})])
    return out


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def _run(
    items_dir: Path, out: Path, model: str, script: list[Any], variant: str = "", tools: str = "img:*", **extra: Any
) -> tuple[int, list[Any]]:
    with FakeProvider(script, default=Reply("\\boxed{C}")) as server:
        url = server.anthropic_url if model.startswith("anthropic") else server.openai_url
        code = run_command(data=items_dir, model=model, out=out, mode="custom", tools=tools, base_url=[url],
                           concurrency=1, mcp=[f"img={COMMAND} {variant}".strip()], **extra)  # fmt: skip
        return code, list(server.requests)


def test_openai_chat_gets_the_mcp_image_in_a_user_message_after_the_tool_message(
    items_dir: Path, tmp_path: Path, keys: None
) -> None:
    script = [Reply("stamping", tool_calls=[("stamp", {"text": "hi"})]), Reply("\\boxed{C}")]
    code, requests = _run(items_dir, tmp_path / "run", "openai-compatible:local-vlm", script)
    assert code == 0
    offered = [tool["function"] for tool in requests[0].body["tools"]]
    assert [tool["name"] for tool in offered] == ["stamp", "stall", "quit"]
    assert offered[0]["parameters"]["properties"]["text"]["type"] == "string"
    messages = requests[1].body["messages"]
    roles = [message["role"] for message in messages]
    tool_at = roles.index("tool")
    assert messages[tool_at]["content"] == "stamped hi" or "stamped hi" in json.dumps(messages[tool_at]["content"])
    assert "image_url" not in json.dumps(messages[tool_at])  # a tool message carries text only
    follow = messages[tool_at + 1]
    assert follow["role"] == "user"
    urls = [part["image_url"]["url"] for part in follow["content"] if part.get("type") == "image_url"]
    assert any(_is_red_stamp(base64.b64decode(url.split(",", 1)[1])) for url in urls)

    run = tmp_path / "run"
    manifest = json.loads((run / "manifest.json").read_text())
    (server,) = manifest["mcp"]
    assert server["name"] == "img" and server["command"] == COMMAND and server["version"] == "1.2.3"
    assert set(server["tools"]) == {"stamp", "stall", "quit"}
    arm = next(arm for arm in manifest["arms"] if arm["name"] == "custom")
    assert arm["tools"] == ["stamp", "stall", "quit"] and set(arm["tool_schemas"]) == set(arm["tools"])
    (result,) = read_jsonl(run / "results.jsonl")
    steps = [json.loads(line) for line in (run / result["trace"]).read_text().splitlines()]
    stamp = next(step for step in steps if step["kind"] == "tool")
    assert stamp["tool"] == "stamp" and stamp["result"] == "stamped hi"
    assert _is_red_stamp((run / stamp["image"]).read_bytes())  # the trace holds the call's image

    # the same run again with a server whose tool changed: refused like any changed setting, nothing written
    before = (run / "results.jsonl").read_text()
    with pytest.raises(UsageError, match=r"custom/stamp"):
        _run(items_dir, run, "openai-compatible:local-vlm", [], variant="blue")
    assert (run / "results.jsonl").read_text() == before


def test_anthropic_gets_the_mcp_image_inside_the_tool_result(items_dir: Path, tmp_path: Path, keys: None) -> None:
    script = [Reply("stamping", tool_calls=[("stamp", {"text": "hi"})]), Reply("\\boxed{C}")]
    code, requests = _run(items_dir, tmp_path / "run", "anthropic:claude-test", script)
    assert code == 0
    assert [tool["name"] for tool in requests[0].body["tools"]] == ["stamp", "stall", "quit"]
    reply = requests[1].body["messages"][-1]
    assert reply["role"] == "user" and reply["content"][0]["type"] == "tool_result"
    inside = [block for block in reply["content"][0]["content"] if block["type"] == "image"]
    assert inside and _is_red_stamp(base64.b64decode(inside[0]["source"]["data"]))


def test_an_arm_offers_single_mcp_tools_by_name_beside_mcots_own(items_dir: Path, tmp_path: Path, keys: None) -> None:
    script = [Reply("stamp, then zoom", tool_calls=[("stamp", {"text": "one"}), ("zoom", {"region": [0, 0, 32, 24]})]),
              Reply("\\boxed{C}")]  # fmt: skip
    code, requests = _run(items_dir, tmp_path / "run", "openai-compatible:local-vlm", script, tools="stamp,zoom")
    assert code == 0
    assert [tool["function"]["name"] for tool in requests[0].body["tools"]] == ["stamp", "zoom"]
    (result,) = read_jsonl(tmp_path / "run" / "results.jsonl")
    steps = [json.loads(line) for line in (tmp_path / "run" / result["trace"]).read_text().splitlines()]
    called = {step["tool"]: step for step in steps if step["kind"] == "tool"}
    assert called["stamp"]["result"] == "stamped one"
    assert _is_red_stamp((tmp_path / "run" / called["stamp"]["image"]).read_bytes())
    assert called["zoom"]["error"] is None and called["zoom"]["image"]


def test_a_hung_or_dead_server_fails_its_calls_in_one_line_and_the_run_goes_on(
    items_dir: Path, tmp_path: Path, keys: None
) -> None:
    script = [
        Reply("wait", tool_calls=[("stall", {})]),
        Reply("end it", tool_calls=[("quit", {})]),
        Reply("again", tool_calls=[("stamp", {"text": "hi"})]),
        Reply("\\boxed{C}"),
    ]
    code, _ = _run(items_dir, tmp_path / "run", "openai-compatible:local-vlm", script, mcp_timeout=2.0)
    assert code == 0
    (result,) = read_jsonl(tmp_path / "run" / "results.jsonl")
    assert result["status"] == "ok" and result["prediction"] == "\\boxed{C}"
    steps = [json.loads(line) for line in (tmp_path / "run" / result["trace"]).read_text().splitlines()]
    errors = {step["tool"]: step["error"] for step in steps if step["kind"] == "tool"}
    assert errors["stall"] == "stall: the MCP server 'img' did not answer stall within 2 s"
    assert errors["stamp"].startswith("stamp: the MCP server 'img' ")
    assert all("\n" not in error for error in errors.values())


def test_mcp_options_are_checked_before_anything_starts(items_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--mcp takes NAME=COMMAND"):
        run_command(data=items_dir, model="offline", out=tmp_path / "r", mode="text", mcp=["no command"])
    with pytest.raises(UsageError, match="--workers 1"):
        run_command(data=items_dir, model="offline", out=tmp_path / "r", mode="text", mcp=["a=b"], workers=2)
    with pytest.raises(UsageError, match="none is started"):
        run_command(data=items_dir, model="offline", out=tmp_path / "r", mode="custom", tools="img:*")
    assert not (tmp_path / "r").exists()


def test_a_study_starts_its_mcp_servers_for_every_models_run(items_dir: Path, tmp_path: Path) -> None:
    from mcot.study.config import read_study
    from mcot.study.run import run_study

    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "stamp", "tool_calls": [{"name": "stamp", "arguments": {"text": "s"}}]},
                                  {"text": "\\boxed{C}"}]))  # fmt: skip
    study = tmp_path / "STUDY.toml"
    study.write_text(
        f'data = ["{items_dir}"]\narms = ["text"]\ntools = ["img:*"]\n\n'
        f"[[mcp]]\nname = \"img\"\ncommand = '{COMMAND}'\n\n"
        f'[[model]]\nspec = "scripted:{script}"\nname = "scripted"\n'
    )
    config = read_study(study)
    assert config.arms == ("text", "custom") and config.mcp == (f"img={COMMAND}",)
    outcome = run_study(config, tmp_path / "out")
    run = outcome.runs["scripted"]
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["mcp"][0]["name"] == "img" and manifest["mcp"][0]["version"] == "1.2.3"
    results = {r["mode"]: r for r in read_jsonl(run / "results.jsonl")}
    steps = [json.loads(line) for line in (run / results["custom"]["trace"]).read_text().splitlines()]
    assert any(step.get("tool") == "stamp" and step.get("image") for step in steps)
    bad = tmp_path / "BAD.toml"
    bad.write_text(study.read_text().replace('name = "img"', 'name = "i m g"'))
    with pytest.raises(UsageError, match="--mcp takes NAME=COMMAND"):
        read_study(bad)
