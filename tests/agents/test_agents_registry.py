"""The declared backends and their did-you-mean, the Solver protocol and ChatSolver, and the cached tool schemas."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from mcot.agents import Budget, ChatSolver, ModelSpecError, Solver, backend_names, load_model, solve
from mcot.agents.backends.base import DETERMINISTIC
from mcot.agents.toolbox import RegistryToolbox

from mcot import declare_backend, tools
from mcot.core.registry import BACKENDS, TOOLS, RegistryError

BUILTIN = ("offline", "scripted", "openai", "openai-compatible", "anthropic", "replay")


def test_the_builtin_backends_are_declared_once_each():
    assert backend_names() == BUILTIN
    assert BACKENDS.help().startswith("offline (the deterministic offline policy, no network); scripted:FILE.json (")
    with pytest.raises(RegistryError, match="already registered"):
        declare_backend("openai", lambda argument, options: None, usage="openai:MODEL", description="again")


@pytest.mark.parametrize(
    ("spec", "suggestion"),
    [
        ("openai/gpt-4o", "openai:gpt-4o"),
        ("opneai:gpt-4o", "openai:gpt-4o"),
        ("anthropic/claude-haiku-4-5", "anthropic:claude-haiku-4-5"),
        ("openai-compatible/qwen2.5-vl", "openai-compatible:qwen2.5-vl"),
        ("openai-compat:qwen2.5-vl", "openai-compatible:qwen2.5-vl"),
        ("scripted=turns.json", "scripted:turns.json"),
        ("ofline", "offline"),
    ],
)
def test_unknown_specs_get_a_did_you_mean_and_the_known_providers(spec, suggestion):
    with pytest.raises(ModelSpecError) as caught:
        load_model(spec)
    message = str(caught.value)
    assert f"did you mean {suggestion!r}?" in message
    assert all(name in message for name in BUILTIN)


@pytest.mark.parametrize(
    ("spec", "advice"),
    [
        ("", "offline, scripted:FILE.json, openai:MODEL, openai-compatible:MODEL, anthropic:MODEL or replay:RUN"),
        ("gemini:pro", "unknown model provider 'gemini' in 'gemini:pro'. Use one of: offline, scripted:FILE.json"),
        ("openai", "needs something after the colon: use openai:MODEL"),
        ("scripted:", "needs something after the colon: use scripted:FILE.json"),
        ("anthropic: ", "use anthropic:MODEL"),
    ],
)
def test_specs_without_a_suggestion_still_say_what_works(spec, advice):
    with pytest.raises(ModelSpecError) as caught:
        load_model(spec)
    assert advice in str(caught.value)


def test_a_registered_backend_is_loaded_by_its_provider_name():
    seen = []

    def factory(argument, options):
        seen.append((argument, options.base_url))
        return load_model("offline")

    declare_backend("toy", factory, usage="toy:MODEL", description="a test backend")
    try:
        assert "toy" in backend_names()
        load_model("toy:small", base_url="http://127.0.0.1:9")
        assert seen == [("small", "http://127.0.0.1:9")]
        with pytest.raises(ModelSpecError, match="did you mean 'toy:small'"):
            load_model("tooy:small")
    finally:
        BACKENDS.unregister("toy")
    assert "toy" not in backend_names()


def test_chat_solver_is_a_solver_and_describes_itself_without_a_key(item_dir, keys, scripted):
    openai = ChatSolver(load_model("openai:gpt-4o"), "canvas", tools.canvas_tools(), Budget(seed=7, max_steps=5))
    assert isinstance(openai, Solver)
    described = openai.describe()
    assert described == {
        "kind": "chat",
        "model": "openai:gpt-4o",
        "provider": "openai",
        "arm": "canvas",
        "tools": list(tools.canvas_tools()),
        "sampling": load_model("openai:gpt-4o").sampling_support(),
        "temperature": 0.0,
        "seed": 7,
        "max_steps": 5,
    }
    assert "SECRETKEY" not in json.dumps(described)

    item, root = item_dir
    spec = scripted([{"text": "", "tool_calls": [{"name": "mark_point", "arguments": {"at": [5, 5]}}]}, {"text": "1"}])
    solver = ChatSolver(load_model(spec), "custom", ("mark_point",), Budget())
    assert solver.describe()["sampling"] == DETERMINISTIC
    prediction, trace = asyncio.run(solver.solve(item, root, blobs=None))  # type: ignore[arg-type]
    direct, direct_trace = asyncio.run(solve(item, root, spec, "custom", tools=("mark_point",)))
    assert (prediction.status, prediction.text, prediction.steps) == (direct.status, direct.text, direct.steps)
    assert [s.kind for s in trace] == [s.kind for s in direct_trace]


def test_a_backend_that_does_not_say_is_described_as_unknown():
    class Quiet:
        spec = provider = model = "quiet"

        async def generate(self, request):  # pragma: no cover - never called
            raise AssertionError

    described = ChatSolver(Quiet(), "text", ()).describe()  # type: ignore[arg-type]
    assert described["tools"] == [] and set(described["sampling"]) == {"temperature", "seed"}
    assert all(value.startswith("unknown") for value in described["sampling"].values())


def test_registry_schemas_are_built_once_and_follow_a_re_registered_tool():
    box = RegistryToolbox()
    names = ("draw_line", "solve_maze")
    first = box.schemas("openai", names)
    assert first == tools.openai_tools(list(names))
    again = box.schemas("openai", names)
    assert again is not first and all(a is b for a, b in zip(again, first, strict=True))  # cached entries
    again.clear()
    assert box.schemas("openai", names) == first  # a caller cannot empty the cache
    assert box.schemas("anthropic", names) == tools.anthropic_tools(list(names))

    spec = tools.registry()["solve_maze"]
    TOOLS.register("solve_maze", dataclasses.replace(spec, description="changed"), replace=True)
    try:
        assert box.schemas("openai", names)[1]["function"]["description"] == "changed"
    finally:
        TOOLS.register("solve_maze", spec, replace=True)
    assert box.schemas("openai", names)[1]["function"]["description"] == spec.description
