"""`mcot imagine` end to end: GOBench prompts through the procedural and OpenAI Images generators, resume, scoring
with a judge (GOBench tables and the judge calibration), and diagram edits through an edit endpoint (route 1)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcot.core.item import Item, write_items
from mcot.core.rundir import read_jsonl
from mcot.testing.fake_provider import Fail, FakeProvider, ImageReply, solid_png

pytestmark = pytest.mark.long_running

CATEGORIES = ("direct_light_images", "reflect_light_images", "refracted_light_images")
PROMPTS = (
    "A lonely oak tree in a sunny meadow casts a long, sharp shadow across the grass.",
    "A girl looks into a flat bathroom mirror; her reflection faces her.",
    "A straw stands in a clear glass of water and seems to bend at the surface.",
)


KEY = "test-key-for-the-local-server"  # the local server accepts any key; a real one never appears in tests


def _mcot(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    return subprocess.run(
        [sys.executable, "-m", "mcot", *map(str, args)], capture_output=True, text=True, timeout=300, env=env
    )


def _gobench_file(root: Path) -> Path:
    """A GOBench-format data_total.json: three scenarios (one per category), three records each, as the public file."""
    records = []
    for n, (category, prompt) in enumerate(zip(CATEGORIES, PROMPTS, strict=True), start=1):
        for suffix in (1, 2, 3):
            records.append(
                {
                    "index": f"{category}_{n}.{suffix}",
                    "category": category,
                    "image": f"{category}/{n}.{suffix}.png",
                    "title": f"scenario {n}",
                    "prompt": prompt,
                    "Questions_reality": "\n".join(f"{q}. Is optical law {q} obeyed?" for q in range(1, 6)),
                    "Question_aesthetics": "Please rate the aesthetics of the image on a scale of 1-5.",
                    "Question_Instruction_consistency": "Please rate the instruction consistency on a scale of 1-5.",
                }
            )
    path = root / "gobench" / "data_total.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(records, indent=1))
    return path


def test_procedural_run_resumes_and_scores_with_the_judge_calibration(tmp_path: Path) -> None:
    data, run = _gobench_file(tmp_path), tmp_path / "run"
    made = _mcot(
        "imagine",
        "--data",
        data,
        "--generator",
        "procedural",
        "--out",
        run,
        "--n-per-prompt",
        "2",
        "--seed",
        "1",
        "--size",
        "256x256",
    )
    assert made.returncode == 0, made.stderr
    assert "12 ok" in made.stdout and "procedural-broken: generator procedural:broken" in made.stdout
    items = read_jsonl(run / "items.jsonl")
    assert [i["id"] for i in items][:2] == ["direct_light_images_1~0", "direct_light_images_1~1"]
    results = read_jsonl(run / "results.jsonl")
    assert {(r["mode"], r["status"]) for r in results} == {("procedural", "ok"), ("procedural-broken", "ok")}
    by_key = {(r["id"], r["mode"]): r for r in results}
    first, second = by_key[("direct_light_images_1~0", "procedural")], by_key[("direct_light_images_1~1", "procedural")]
    assert first["image"] != second["image"] and (run / first["image"]).is_file()
    assert first["image_meta"][0]["seed"] == 1 and second["image_meta"][0]["seed"] == 2
    assert first["generator"] == "procedural" and not first["image_meta"][0]["broken"]
    twin = by_key[("direct_light_images_1~0", "procedural-broken")]
    assert twin["generator"] == "procedural:broken" and twin["image_meta"][0]["broken"]
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["command"] == "mcot imagine" and manifest["generator"]["spec"] == "procedural"
    assert [a["name"] for a in manifest["arms"]] == ["procedural", "procedural-broken"]

    again = _mcot(
        "imagine",
        "--data",
        data,
        "--generator",
        "procedural",
        "--out",
        run,
        "--n-per-prompt",
        "2",
        "--seed",
        "1",
        "--size",
        "256x256",
    )
    assert again.returncode == 0 and "12 already done" in again.stdout
    refused = _mcot(
        "imagine",
        "--data",
        data,
        "--generator",
        "procedural",
        "--out",
        run,
        "--n-per-prompt",
        "2",
        "--seed",
        "2",
        "--size",
        "256x256",
    )
    assert refused.returncode == 2 and "--mode/--tools" in refused.stderr

    # a judge that says Yes to everything: it agrees with every known Yes and is fooled by every broken law
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps([{"text": json.dumps({"authenticity": ["Yes"] * 5, "aesthetics": 4, "fidelity": 3})}]))
    scored = _mcot("score", run, "--judge", f"scripted:{judge}")
    assert scored.returncode == 0, scored.stderr
    report = (run / "report.md").read_text()
    assert "Judge calibration" in report and "GOBench generation" in report
    assert "Judge calibration" in scored.stdout and "| procedural-broken | procedural:broken |" in scored.stdout
    scores = read_jsonl(run / "scores.jsonl")
    assert len(scores) == 12 and all(s["details"]["judge_scores"]["authenticity"] == 5 for s in scores)
    known = {(r["id"], r["mode"]): r["image_meta"][0]["known_answers"] for r in results}
    broken_no = sum(answers.count("No") for (_, arm), answers in known.items() if arm == "procedural-broken")
    assert broken_no > 0
    correct_yes = sum(answers.count("Yes") for (_, arm), answers in known.items() if arm == "procedural")
    assert correct_yes == 30  # a correct scene's five questions are all answered Yes by construction


def test_openai_images_generation_with_a_retry(tmp_path: Path) -> None:
    data, run = _gobench_file(tmp_path), tmp_path / "run"
    script = [Fail(429, headers={"Retry-After": "0"}), *[ImageReply(images=[solid_png(n)]) for n in range(3)]]
    with FakeProvider(script) as server:
        made = _mcot(
            "imagine",
            "--data",
            data,
            "--generator",
            "openai-image:gpt-image-1",
            "--base-url",
            server.openai_url,
            "--out",
            run,
            "--concurrency",
            "1",
        )
        requests = list(server.requests)
    assert made.returncode == 0, made.stderr
    assert len(requests) == 4 and all(r.path.endswith("/images/generations") for r in requests)
    assert {r.body["prompt"] for r in requests} == set(PROMPTS)
    results = read_jsonl(run / "results.jsonl")
    assert len(results) == 3 and all(r["status"] == "ok" and r["mode"] == "openai-image" for r in results)
    assert all((run / r["image"]).read_bytes().startswith(b"\x89PNG") for r in results)
    assert all(KEY.encode() not in path.read_bytes() for path in run.rglob("*") if path.is_file())


def test_diagram_edits_go_to_the_edit_endpoint_and_are_graded(tmp_path: Path) -> None:
    from diagram_fixture import items_dir, reference_diagram

    items, run = items_dir(tmp_path), tmp_path / "run"
    ids = [json.loads(line)["id"] for line in (items / "items.jsonl").read_text().splitlines()]
    edited = {item_id: reference_diagram(item_id) for item_id in ids}
    with FakeProvider([ImageReply(images=[edited[i]]) for i in ids]) as server:
        made = _mcot(
            "imagine",
            "--data",
            items,
            "--generator",
            "openai-image:gpt-image-1",
            "--base-url",
            server.openai_url,
            "--out",
            run,
            "--concurrency",
            "1",
        )
        requests = list(server.requests)
    assert made.returncode == 0, made.stderr
    assert all(r.path.endswith("/images/edits") for r in requests) and len(requests) == len(ids)
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps([{"text": '{"grade": 1}'}]))
    scored = _mcot("score", run, "--judge", f"scripted:{judge}")
    assert scored.returncode == 0, scored.stderr
    scores = read_jsonl(run / "scores.jsonl")
    assert len(scores) == len(ids) and all(s["details"]["grade"] == 1.0 for s in scores)


SHARED = Path(os.environ.get("MCOT_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")
"""The benchmarks' real files, read in place (they belong to their authors: never copied into the project)."""


@pytest.mark.timeout(1200)
def test_the_readme_procedural_line_places_every_gobench_scenario(tmp_path: Path) -> None:
    data = SHARED / "gobench" / "data_total.json"
    if not data.is_file():
        pytest.skip(f"{data} is absent (set MCOT_SHARED_DATA to the folder holding gobench/)")
    made = subprocess.run(  # the README's line, as it is written there
        [sys.executable, "-m", "mcot", "imagine", "--data", str(data), "--generator", "procedural", "--out",
         "runs/procedural", "--seed", "0"],
        capture_output=True, text=True, timeout=1100, cwd=tmp_path,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    results = read_jsonl(tmp_path / "runs" / "procedural" / "results.jsonl")
    items = read_jsonl(tmp_path / "runs" / "procedural" / "items.jsonl")
    assert len(results) == 2 * len(items) and {r["status"] for r in results} == {"ok"}
    assert f"{2 * len(items)} ok" in made.stdout and "re-run" not in made.stdout + made.stderr


def _generation_items(root: Path) -> Path:
    """Three GOBench generation prompts as an items directory; the third sets a scene no draw can place."""
    pairs = []
    for n, (category, prompt) in enumerate(zip(CATEGORIES, PROMPTS, strict=True), start=1):
        meta: dict = {
            "task": "generation",
            "prompt": prompt,
            "questions_reality": [f"Is law {q} obeyed?" for q in "12345"],
        }
        if n == 3:
            category = "reflect_light_images"
            meta["scene"] = {"template": "plane_mirror", "object_distance": 30.0, "object_height": 12.0,
                             "eye_distance": 30.0, "eye_height": 12.0}  # fmt: skip
        item = Item(id=f"scene-{n}", benchmark="gobench", category=category, question=prompt, answer="",
                    answer_type="image", meta=meta)  # fmt: skip
        pairs.append((item, {}))
    write_items(root, pairs)
    return root


def test_a_generation_run_has_no_accuracy_chart_and_its_advice_names_mcot_imagine(tmp_path: Path) -> None:
    items, run = _generation_items(tmp_path / "items"), tmp_path / "run"
    made = _mcot("imagine", "--data", items, "--generator", "procedural", "--out", run, "--size", "128x128")
    assert made.returncode == 3 and "the eye and the object's top coincide" in made.stdout + made.stderr
    scored = _mcot("score", run)
    assert scored.returncode == 0, scored.stderr
    assert not (run / "figures").exists() or not list((run / "figures").glob("accuracy-*.png"))
    report = (run / "report.md").read_text()
    assert "no accuracy chart of the 6 generated image(s): they are rated by a judge, not right or wrong" in report
    todo = [line for line in scored.stdout.splitlines() if line.startswith("to do:")]
    assert len(todo) == 2, todo
    assert todo[0].startswith("to do: 2 image(s) were not generated and are unrated (2 × GeneratorError")
    assert "re-run the same `mcot imagine` command" in todo[0]
    assert todo[1].startswith("to do: 4 generated image(s) not rated") and "not counted as wrong" in todo[1]
    assert not [line for line in todo if "mcot run" in line or "count as wrong" in line]
