"""The typed manifest: every earlier shape reads and writes back unchanged; the resume check names what changed."""

import json
from pathlib import Path

import pytest

from mcot.arms import parse_arms
from mcot.core.rundir import (
    DatasetEntry,
    Manifest,
    RunDirError,
    build_manifest,
    read_manifest,
    resume_conflicts,
    write_manifest,
)

FIRST_RUNNER = {  # what `mcot run` wrote when the run directory was first made (commit d56d961)
    "mcot_version": "0.1.0",
    "created": "2026-11-30T05:10:40+00:00",
    "finished": "2026-11-30T05:11:02+00:00",
    "command": "mcot run",
    "model": {"spec": "offline", "base_url": None},
    "modes": ["text", "canvas"],
    "config": {"max_steps": 12, "concurrency": 4, "limit": None, "seed": None, "max_canvas_images": 3},
    "prompts": {"system.canvas.txt": "a" * 64},
    "dataset": {"path": "/data/items", "sha256": "b" * 64, "format": "items", "n_items": 2},
    "judge": {"spec": "openai:gpt-4o-mini", "template_sha256": "c" * 64, "templates": {"judge.txt": "d" * 64}},
}
HAND_MADE = {
    "model": {"spec": "offline"},
    "modes": ["text", "canvas"],
    "dataset": {"path": "items", "sha256": "e" * 64},
}
GENERATION = {
    "mcot_version": "0.1.0",
    "created": "2026-12-01T10:00:00+00:00",
    "command": "mcot imagine",
    "model": None,
    "arms": [{"name": "procedural", "generator": "procedural", "options": {"seed": 0, "size": None}}],
    "modes": ["procedural"],
    "solver": {"kind": "image"},
    "config": {"seed": 0, "n_per_prompt": 1, "limit": None},
    "prompts": {},
    "dataset": {
        "path": "/g",
        "sha256": "f" * 64,
        "source_sha256": "f" * 64,
        "format": "items",
        "n_items": 1,
        "limit": None,
    },
    "sessions": [{"started": "t0", "finished": None, "concurrency": 2, "mcot_version": "0.1.0", "note": "kept"}],
    "judge": None,
    "generator": {"spec": "procedural", "base_url": None},
    "schedule": {"seed": 0, "order": "items shuffled", "file": "schedule.jsonl", "pairs": 1},
    "scoring": {"protocol": "both", "files": {"official": "scores.jsonl", "robust": "scores.robust.jsonl"}},
    "a_key_of_a_later_version": {"anything": [1, 2]},
}


def _manifest(**config: object) -> Manifest:
    settings = {"max_steps": 12, "temperature": 0.0, "seed": None, "max_canvas_images": 3, "max_output_tokens": None}
    settings.update(config)
    return build_manifest(
        model={"spec": "openai:gpt-4o", "base_url": None},
        arms=[arm.manifest_entry() for arm in parse_arms("text,canvas")],
        solver={"kind": "chat"},
        config=settings,
        prompts={"task.default.txt": "a" * 64},
        dataset=DatasetEntry(path="items", sha256="b" * 64, source_sha256="c" * 64, format="items", n_items=10),
        concurrency=4,
    )


def _copy(manifest: Manifest) -> Manifest:
    return Manifest.model_validate(json.loads(json.dumps(manifest.to_json())))


@pytest.mark.parametrize("shape", [FIRST_RUNNER, HAND_MADE, GENERATION], ids=["first-runner", "hand-made", "imagine"])
def test_every_earlier_manifest_reads_and_writes_back_with_the_keys_it_had(tmp_path: Path, shape: dict) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps(shape))
    manifest = read_manifest(tmp_path)
    assert manifest.arm_names() == shape.get("modes")
    assert manifest.dataset.sha256 == shape["dataset"]["sha256"]
    write_manifest(tmp_path, manifest)
    assert json.loads((tmp_path / "manifest.json").read_text()) == shape


def test_typed_fields_of_old_and_new_manifests() -> None:
    first = Manifest.model_validate(FIRST_RUNNER)
    assert (first.model_spec, first.judge_spec, first.generator_spec) == ("offline", "openai:gpt-4o-mini", None)
    assert first.arm_tools("text") == () and first.arm_tools("canvas") is None and not first.is_generation()
    generation = Manifest.model_validate(GENERATION)
    assert generation.is_generation() and generation.generator_spec == "procedural" and generation.model_spec is None
    assert generation.sessions[0].model_extra == {"note": "kept"}
    fresh = _manifest()
    assert list(fresh.to_json()) == [
        "mcot_version", "created", "command", "model", "arms", "modes", "solver", "config", "prompts", "dataset",
        "sessions", "judge",
    ]  # fmt: skip
    assert fresh.arm_tools("canvas") is not None and len(fresh.arm_tools("canvas") or ()) == 13


def test_a_resume_session_and_the_schedule_are_recorded_in_the_manifest(tmp_path: Path) -> None:
    manifest = Manifest.model_validate(HAND_MADE)
    session = manifest.start_session(8)
    session.finished = "later"
    session.record({"pairs_started": 3, "endpoints": {"http://h/v1": {"requests": 3}}})
    manifest.record_schedule(7, 6)
    write_manifest(tmp_path, manifest)
    written = json.loads((tmp_path / "manifest.json").read_text())
    assert written["sessions"][0]["concurrency"] == 8 and written["sessions"][0]["pairs_started"] == 3
    assert written["schedule"]["pairs"] == 6 and written["schedule"]["file"] == "schedule.jsonl"
    assert {k: v for k, v in written.items() if k not in ("sessions", "schedule")} == HAND_MADE


def test_a_manifest_that_is_not_one_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match=r"is not a run directory: manifest\.json is missing"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("[1, 2]")
    with pytest.raises(RunDirError, match="is not a run manifest"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text('{"sessions": "yesterday"}')
    with pytest.raises(RunDirError, match=r"not a run manifest mcot can read \(sessions: "):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_bytes(b"{\xff}")
    with pytest.raises(RunDirError, match="not valid JSON"):
        read_manifest(tmp_path)


def test_the_same_settings_resume() -> None:
    assert resume_conflicts(_manifest(), _manifest()) == []
    other_concurrency = _copy(_manifest())
    other_concurrency.sessions[0].concurrency = 64
    assert resume_conflicts(_manifest(), other_concurrency) == []


def test_each_result_changing_setting_is_named() -> None:
    assert resume_conflicts(_manifest(), _manifest(max_steps=5)) == ["--max-steps: 12 in the run, 5 now"]
    assert resume_conflicts(_manifest(), _manifest(seed=7)) == ["--seed: None in the run, 7 now"]
    assert resume_conflicts(_manifest(), _manifest(temperature=0.7)) == ["--temperature: 0.0 in the run, 0.7 now"]
    changed = _manifest()
    changed.prompts = {"task.default.txt": "d" * 64}
    assert resume_conflicts(_manifest(), changed) == ["the prompt templates: changed since the run (task.default.txt)"]
    schema = _copy(_manifest())
    (schema.arms[1].tool_schemas or {})["zoom"] = "e" * 64
    assert resume_conflicts(_manifest(), schema) == [
        "--mode/--tools (the arms and their tools): a tool's schema changed since the run (canvas/zoom)"
    ]
    arms = _manifest()
    arms.arms = arms.arms[:1]
    assert resume_conflicts(_manifest(), arms) == [
        "--mode/--tools (the arms and their tools): text (0 tools), canvas (13 tools) in the run, text (0 tools) now"
    ]
    old = Manifest.model_validate(HAND_MADE)
    assert "--max-steps: '<not recorded>' in the run, 12 now" in resume_conflicts(old, _manifest())
