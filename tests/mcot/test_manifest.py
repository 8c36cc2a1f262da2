"""The resume check: which settings change results, and how a refusal names them."""

import json
from pathlib import Path

from mcot.arms import parse_arms
from mcot.manifest import DatasetInfo, build_manifest, resume_conflicts


def _manifest(**config: object) -> dict:
    settings = {"max_steps": 12, "temperature": 0.0, "seed": None, "max_canvas_images": 3, "max_output_tokens": None}
    settings.update(config)
    return build_manifest(
        model={"spec": "openai:gpt-4o", "base_url": None},
        arms=[arm.manifest_entry() for arm in parse_arms("text,canvas")],
        solver={"kind": "chat"},
        config=settings,
        prompts={"task.default.txt": "a" * 64},
        dataset=DatasetInfo(Path("items"), "b" * 64, "c" * 64, 10, None),
        concurrency=4,
    )


def test_the_same_settings_resume() -> None:
    assert resume_conflicts(_manifest(), _manifest()) == []
    other_concurrency = json.loads(json.dumps(_manifest()))
    other_concurrency["sessions"][0]["concurrency"] = 64
    assert resume_conflicts(_manifest(), other_concurrency) == []


def test_each_result_changing_setting_is_named() -> None:
    assert resume_conflicts(_manifest(), _manifest(max_steps=5)) == ["--max-steps: 12 in the run, 5 now"]
    assert resume_conflicts(_manifest(), _manifest(seed=7)) == ["--seed: None in the run, 7 now"]
    assert resume_conflicts(_manifest(), _manifest(temperature=0.7)) == ["--temperature: 0.0 in the run, 0.7 now"]
    changed = _manifest()
    changed["prompts"] = {"task.default.txt": "d" * 64}
    assert resume_conflicts(_manifest(), changed) == ["the prompt templates: changed since the run (task.default.txt)"]
    schema = json.loads(json.dumps(_manifest()))
    schema["arms"][1]["tool_schemas"]["zoom"] = "e" * 64
    assert resume_conflicts(_manifest(), schema) == [
        "--mode/--tools (the arms and their tools): a tool's schema changed since the run (canvas/zoom)"
    ]
    arms = _manifest()
    arms["arms"] = arms["arms"][:1]
    assert resume_conflicts(_manifest(), arms) == [
        "--mode/--tools (the arms and their tools): text (0 tools), canvas (13 tools) in the run, text (0 tools) now"
    ]
