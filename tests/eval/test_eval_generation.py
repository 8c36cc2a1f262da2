"""Scoring generation runs: the judge's answers and ratings per image, the GOBench-style tables, judge calibration.

The runs are made by hand in the shape `mcot imagine` writes (manifest with generator arms, results with
`image`, `images`, `image_meta`, `generator`; PNG files under RUN/blobs/); the judge is a scripted object whose
replies are chosen per image, so every figure below is computed by hand from those replies.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mcot.benchmarks.item import Item, write_items
from mcot.eval.calibration import (
    Calibration,
    answer_word,
    calibrate,
    calibration_pairs,
    judge_calibration_table,
    known_answer,
    known_answers,
)
from mcot.eval.protocols._gobench_generation import generation_questions
from mcot.eval.protocols.gobench import tables as gobench_tables
from mcot.eval.scoring import ROBUST_SCORES, score_run
from mcot.eval.tables import Table
from PIL import Image
from scipy import stats

from mcot.rundir import Score, read_scores

CATEGORIES = {"d": "direct_light_images", "r": "reflect_light_images", "f": "refracted_light_images"}
GOBENCH_QUESTIONS = [f"Is GOBench property {k} of the scene right?" for k in range(1, 6)]
SCENE_QUESTIONS = {
    "d": [
        "Does the shadow fall away from the lamp?",
        "Is the shadow's length the post's height over tan(elevation)?",
        "Do all shadows point the same way?",
        "Is the ground plane lit?",
        "Is there one light source?",
    ],
    "r": [
        "Is the mirror image upright?",
        "Is the image as far behind the mirror as the object is in front?",
        "Is the image the object's size?",
        "Is the mirror flat?",
        "Is the object in front of the mirror?",
    ],
    "f": [
        "Does the straw bend towards the surface?",
        "Is the apparent depth the real depth times n2/n1?",
        "Is the water surface flat?",
        "Is the straw straight above the water?",
        "Is there total internal reflection?",
    ],
}
Y, N, C = "Yes", "No", "Cannot be determined"
KNOWN = {
    ("procedural", "d"): [Y, Y, Y, Y, Y],
    ("procedural", "r"): [Y, Y, Y, Y, Y],
    ("procedural", "f"): [Y, Y, Y, Y, N],
    ("procedural-broken", "d"): [N, Y, Y, Y, Y],
    ("procedural-broken", "r"): [Y, N, Y, Y, Y],
    ("procedural-broken", "f"): [N, N, Y, Y, Y],
}
JUDGED = {  # the scripted judge's answers, aesthetics, fidelity per image
    ("procedural", "d"): ([Y, Y, Y, Y, Y], 4, 5),
    ("procedural", "r"): ([Y, Y, N, Y, C], 3, 4),
    ("procedural", "f"): ([Y, Y, Y, C, Y], 5, 4),
    ("procedural-broken", "d"): ([Y, Y, Y, Y, N], 4, 4),
    ("procedural-broken", "r"): ([Y, N, Y, N, Y], 2, 3),
    ("procedural-broken", "f"): ([N, Y, C, Y, Y], 3, 2),
}
PROCEDURAL_ARMS = {"procedural": "procedural", "procedural-broken": "procedural:broken"}


def _png(seed: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (40 * seed % 256, 90 + seed, 200 - 7 * seed)).save(buffer, format="PNG")
    return buffer.getvalue()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _item(key: str, **meta: Any) -> Item:
    return Item(
        id=f"scene-{key}",
        benchmark="gobench",
        category=CATEGORIES[key],
        question=f"A {CATEGORIES[key].split('_')[0]} scene.",
        answer="",
        answer_type="image",
        meta={"task": "generation", "questions_reality": GOBENCH_QUESTIONS, **meta},
    )


def _generation_run(root: Path, items: Sequence[Item], arms: dict[str, str], results: Sequence[dict[str, Any]]) -> Path:
    """A run directory as `mcot imagine` writes it: frozen items, manifest with generator arms, results, blobs."""
    source = root.parent / f"{root.name}-items"
    write_items(source, [(item, {}) for item in items])
    root.mkdir(parents=True, exist_ok=True)  # the results' images may be in RUN/blobs/ already
    shutil.copyfile(source / "items.jsonl", root / "items.jsonl")
    first = next(iter(arms.values()))
    manifest = {
        "mcot_version": "0.1.0",
        "command": "mcot imagine",
        "generator": {"spec": first, "provider": first.split(":")[0]},
        "arms": [{"name": name, "generator": spec, "options": {}} for name, spec in arms.items()],
        "modes": list(arms),
        "dataset": {
            "path": str(source),
            "sha256": _sha((root / "items.jsonl").read_bytes()),
            "source_sha256": _sha((source / "items.jsonl").read_bytes()),
            "n_items": len(items),
            "limit": None,
        },
        "sessions": [{"started": "2025-01-01T00:00:00+00:00", "finished": None, "concurrency": 1}],
        "judge": None,
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    (root / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in results))
    return root


def _image_result(
    root: Path, item_id: str, arm: str, generator: str, data: bytes, meta: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A finished generation result line (the image stored under RUN/blobs/)."""
    relative = f"blobs/{_sha(data)}.png"
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    (root / relative).write_bytes(data)
    return {
        "id": item_id,
        "mode": arm,
        "status": "ok",
        "prediction": relative,
        "image": relative,
        "images": [relative],
        "image_meta": [meta or {"seed": 0}],
        "generator": generator,
        "steps": 1,
        "usage": {"input_tokens": 0, "output_tokens": 0, "cost_usd": None},
        "latency_s": 0.1,
        "error": None,
        "trace": None,
    }


class ScriptJudge:
    """A judge whose reply is chosen per image (by its sha256); it counts its calls and keeps the prompts."""

    spec = "script:judge"

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.calls = 0
        self.prompts: dict[str, str] = {}

    async def ask(self, prompt: str, images: Sequence[bytes] = (), temperature: float = 0.0) -> str:
        self.calls += 1
        key = _sha(images[0])
        self.prompts[key] = prompt
        return self.replies[key]


def _reply(answers: list[str], aesthetics: int, fidelity: int) -> str:
    return json.dumps({"authenticity": answers, "aesthetics": aesthetics, "fidelity": fidelity})


def _procedural_run(tmp_path: Path) -> tuple[Path, dict[tuple[str, str], str], dict[str, str]]:
    """The calibration run: arms procedural and procedural-broken, three scenes each, answers known."""
    root = tmp_path / "run"
    items = [_item(key) for key in CATEGORIES]
    rows, shas, replies = [], {}, {}
    for seed, (arm, key) in enumerate(KNOWN):
        data = _png(seed)
        meta = {
            "template": f"{CATEGORIES[key]}-basic",
            "scene": {"kind": key},
            "questions": SCENE_QUESTIONS[key],
            "known_answers": KNOWN[(arm, key)],
            "broken": arm.endswith("broken"),
        }
        rows.append(_image_result(root, f"scene-{key}", arm, PROCEDURAL_ARMS[arm], data, meta))
        shas[(arm, key)] = _sha(data)
        replies[_sha(data)] = _reply(*JUDGED[(arm, key)])
    return _generation_run(root, items, PROCEDURAL_ARMS, rows), shas, replies


def _rows(table: Table) -> list[dict[str, str]]:
    return [dict(zip(table.columns, row, strict=True)) for row in table.rows]


def _table(report: str, title: str) -> list[str]:
    """The markdown lines of the report's table whose heading starts with `title`."""
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"### {title}"))
    body = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        body.append(line)
    return body


def _by_key(scores: Sequence[Score]) -> dict[tuple[str, str], Score]:
    return {(s.mode, s.id.removeprefix("scene-")): s for s in scores}


# ----------------------------------------------------------------------------------------- the calibration run


def test_procedural_run_per_image_details_and_stored_replies(tmp_path: Path) -> None:
    run, shas, replies = _procedural_run(tmp_path)
    judge = ScriptJudge(replies)
    summary = score_run(run, judge=judge, cache_dir=tmp_path / "cache", figures=False)
    assert judge.calls == 6 and summary.methods == {"judge": 6}
    scores = _by_key(read_scores(run))
    broken_f = scores[("procedural-broken", "f")]
    assert broken_f.method == "judge" and broken_f.details["task"] == "generation"
    assert broken_f.details["generator"] == "procedural:broken"
    assert broken_f.details["judge_scores"] == {"authenticity": 3.5, "aesthetics": 3.0, "fidelity": 2.0}
    assert broken_f.details["answers"] == [N, Y, C, Y, Y]
    assert broken_f.details["questions"] == SCENE_QUESTIONS["f"]
    assert broken_f.details["calibration"] == [
        {"judge": N, "known": N},
        {"judge": Y, "known": N},
        {"judge": C, "known": Y},
        {"judge": Y, "known": Y},
        {"judge": Y, "known": Y},
    ]
    assert broken_f.extracted == "authenticity 3.5; aesthetics 3; fidelity 2"
    assert broken_f.judge is not None
    assert broken_f.judge["raw"] == replies[shas[("procedural-broken", "f")]]
    assert broken_f.judge["spec"] == "script:judge" and broken_f.judge["cached"] is False
    # a procedural image is asked its own questions, numbered, under the item's prompt
    prompt = judge.prompts[shas[("procedural", "r")]]
    assert "1. Is the mirror image upright?" in prompt and "5. Is the object in front of the mirror?" in prompt
    assert "GOBench property" not in prompt and "A reflect scene." in prompt


def test_rescoring_reads_the_judge_cache(tmp_path: Path) -> None:
    run, _, replies = _procedural_run(tmp_path)
    score_run(run, judge=ScriptJudge(replies), cache_dir=tmp_path / "cache", figures=False)
    first = {(s.id, s.mode): s for s in read_scores(run)}
    again = ScriptJudge(replies)
    summary = score_run(run, judge=again, cache_dir=tmp_path / "cache", figures=False)
    assert again.calls == 0 and (summary.cache_hits, summary.cache_misses) == (6, 0)
    for score in read_scores(run):
        assert score.judge is not None and score.judge["cached"] is True
        assert score.details == first[(score.id, score.mode)].details


def test_calibration_table_by_hand(tmp_path: Path) -> None:
    run, _, replies = _procedural_run(tmp_path)
    score_run(run, judge=ScriptJudge(replies), cache_dir=tmp_path / "cache", figures=False)
    table = judge_calibration_table(read_scores(run))
    assert table is not None
    rows = {row["Arm"]: row for row in _rows(table)}
    # procedural: 15 questions, 11 agree (d 5, r 3, f 3); known No: f5 only, judged Yes; false No: r3 of 14
    # known Yes; Cannot be determined: r5, f4
    assert rows["procedural"] == {
        "Arm": "procedural",
        "n images": "3",
        "n questions": "15",
        "agreement": "73.3",
        "false-Yes": "100.0",
        "false-No": "7.1",
        "Cannot be determined": "13.3",
        "known Yes": "14",
        "known No": "1",
        "unrated": "0",
    }
    # broken twins: agree d 3, r 4, f 3 = 10 of 15; known No d1, r2, f1, f2 (4), judged Yes d1, f2 (2);
    # judged No where known Yes: d5, r4 (2 of 11); Cannot be determined: f3
    broken = rows["procedural-broken"]
    assert (broken["n questions"], broken["agreement"], broken["false-Yes"], broken["false-No"]) == (
        "15",
        "66.7",
        "50.0",
        "18.2",
    )
    assert (broken["Cannot be determined"], broken["known Yes"], broken["known No"]) == ("6.7", "11", "4")
    pooled = rows["all arms"]
    assert (pooled["n images"], pooled["n questions"], pooled["agreement"]) == ("6", "30", "70.0")
    assert (pooled["false-Yes"], pooled["false-No"], pooled["Cannot be determined"]) == ("60.0", "12.0", "10.0")


def test_per_generator_and_per_category_means(tmp_path: Path) -> None:
    run, _, replies = _procedural_run(tmp_path)
    score_run(run, judge=ScriptJudge(replies), cache_dir=tmp_path / "cache", figures=False)
    tables = {table.title: table for table in gobench_tables(read_scores(run))}
    per_generator = {row["Arm"]: row for row in _rows(tables["GOBench generation — per generator"])}
    # procedural: authenticity (5 + 3.5 + 4.5) / 3, aesthetics (4 + 3 + 5) / 3, fidelity (5 + 4 + 4) / 3
    assert per_generator["procedural"] == {
        "Arm": "procedural",
        "Generator": "procedural",
        "n": "3",
        "Authenticity (0–5)": "4.33",
        "Aesthetics (1–5)": "4.00",
        "Fidelity (1–5)": "4.33",
        "unrated": "0",
        "run errors": "0",
        "unjudged": "0",
        "judge errors": "0",
    }
    # broken: authenticity (4 + 3 + 3.5) / 3, aesthetics (4 + 2 + 3) / 3, fidelity (4 + 3 + 2) / 3
    broken = per_generator["procedural-broken"]
    assert (broken["Generator"], broken["Authenticity (0–5)"], broken["Aesthetics (1–5)"]) == (
        "procedural:broken",
        "3.50",
        "3.00",
    )
    assert broken["Fidelity (1–5)"] == "3.00"
    categories = [
        [
            row["Arm"],
            row["Category"],
            row["n"],
            row["Authenticity (0–5)"],
            row["Aesthetics (1–5)"],
            row["Fidelity (1–5)"],
        ]
        for row in _rows(tables["GOBench generation — per category"])
    ]
    assert categories == [
        ["procedural", "direct light", "1", "5.00", "4.00", "5.00"],
        ["procedural", "reflection", "1", "3.50", "3.00", "4.00"],
        ["procedural", "refraction", "1", "4.50", "5.00", "4.00"],
        ["procedural-broken", "direct light", "1", "4.00", "4.00", "4.00"],
        ["procedural-broken", "reflection", "1", "3.00", "2.00", "3.00"],
        ["procedural-broken", "refraction", "1", "3.50", "3.00", "2.00"],
    ]
    assert list(tables) == [
        "GOBench generation — per generator",
        "GOBench generation — per category",
        "GOBench generation — between dimensions (PLCC / SRCC)",
        "Judge calibration",
    ]


def _corr(xs: list[float], ys: list[float]) -> str:
    return f"{stats.pearsonr(xs, ys).statistic:.2f} / {stats.spearmanr(xs, ys).statistic:.2f}"


def test_correlations_between_dimensions_against_scipy(tmp_path: Path) -> None:
    run, _, replies = _procedural_run(tmp_path)
    score_run(run, judge=ScriptJudge(replies), cache_dir=tmp_path / "cache", figures=False)
    tables = {table.title: table for table in gobench_tables(read_scores(run))}
    rows = {row["Arm"]: row for row in _rows(tables["GOBench generation — between dimensions (PLCC / SRCC)"])}
    for arm, keys in (
        ("procedural", [("procedural", k) for k in CATEGORIES]),
        ("procedural-broken", [("procedural-broken", k) for k in CATEGORIES]),
        ("all arms", list(JUDGED)),
    ):
        judged = [JUDGED[key] for key in keys]
        authenticity = [sum({Y: 1.0, N: 0.0, C: 0.5}[a] for a in answers) for answers, _, _ in judged]
        aesthetics = [float(a) for _, a, _ in judged]
        fidelity = [float(f) for _, _, f in judged]
        assert rows[arm]["n rated"] == str(len(judged))
        assert rows[arm]["aesthetics–authenticity"] == _corr(aesthetics, authenticity), arm
        assert rows[arm]["authenticity–fidelity"] == _corr(authenticity, fidelity), arm
        assert rows[arm]["aesthetics–fidelity"] == _corr(aesthetics, fidelity), arm
    # by hand, procedural: aesthetics 4, 3, 5 (deviations 0, -1, 1) and authenticity 5, 3.5, 4.5 (deviations
    # 2/3, -5/6, 1/6): PLCC = 1 / sqrt(2 × 7/6) = 0.65; ranks 2, 1, 3 and 3, 1, 2: SRCC = 1 / 2 = 0.50;
    # fidelity 5, 4, 4 (deviations 2/3, -1/3, -1/3) is uncorrelated with aesthetics: 0 + 1/3 - 1/3 = 0
    assert rows["procedural"]["aesthetics–authenticity"] == "0.65 / 0.50"
    assert rows["procedural"]["aesthetics–fidelity"] == "0.00 / 0.00"


def test_the_report_holds_the_generation_tables_and_calibration(tmp_path: Path) -> None:
    run, _, replies = _procedural_run(tmp_path)
    score_run(run, judge=ScriptJudge(replies), cache_dir=tmp_path / "cache", figures=False)
    report = (run / "report.md").read_text()
    calibration = _table(report, "Judge calibration")
    assert calibration[0].startswith("| Arm | n images | n questions | agreement | false-Yes | false-No |")
    assert "| procedural | 3 | 15 | 73.3 | 100.0 | 7.1 | 13.3 | 14 | 1 | 0 |" in calibration
    assert "| procedural-broken | 3 | 15 | 66.7 | 50.0 | 18.2 | 6.7 | 11 | 4 | 0 |" in calibration
    assert "| all arms | 6 | 30 | 70.0 | 60.0 | 12.0 | 10.0 | 25 | 5 | 0 |" in calibration
    per_generator = _table(report, "GOBench generation — per generator")
    assert "| procedural | procedural | 3 | 4.33 | 4.00 | 4.33 | 0 | 0 | 0 | 0 |" in per_generator
    assert "judge" in report and "script:judge" in report


def test_both_protocol_names_score_generation_alike(tmp_path: Path) -> None:
    run, _, replies = _procedural_run(tmp_path)
    judge = ScriptJudge(replies)
    score_run(run, judge=judge, cache_dir=tmp_path / "cache", figures=False, protocol="both")
    assert judge.calls == 6  # the robust pass reads the cache
    official = {(s.id, s.mode): s.details for s in read_scores(run)}
    robust_lines = (run / ROBUST_SCORES).read_text().splitlines()
    robust = {(row["id"], row["mode"]): row["details"] for row in map(json.loads, robust_lines)}
    assert official == robust
    report = (run / "report.md").read_text()
    assert "Judge calibration — official protocol" in report and "Judge calibration — robust protocol" in report


# ------------------------------------------------------------------------------- without a judge, failures


def test_without_a_judge_every_image_is_unjudged_and_counted(tmp_path: Path) -> None:
    run, _, _ = _procedural_run(tmp_path)
    summary = score_run(run, figures=False)
    assert summary.methods == {"none": 6}
    scores = read_scores(run)
    assert all(s.details["unjudged"] == "generated images are rated by a judge: pass --judge" for s in scores)
    (line,) = [line for line in summary.advice if "6 generated image(s) not rated" in line]
    assert "--judge SPEC` rates them" in line and "not counted as wrong" in line and "count as wrong" not in line
    tables = {table.title: table for table in gobench_tables(scores)}
    row = _rows(tables["GOBench generation — per generator"])[0]
    assert (row["n"], row["Authenticity (0–5)"], row["unrated"], row["unjudged"]) == ("3", "—", "3", "3")
    calibration = {row["Arm"]: row for row in _rows(tables["Judge calibration"])}
    assert (calibration["all arms"]["n images"], calibration["all arms"]["unrated"]) == ("0", "6")
    assert calibration["all arms"]["agreement"] == "—"
    report = (run / "report.md").read_text()
    assert "`mcot score" in report and "--judge SPEC` rates them" in report


def test_run_errors_judge_errors_and_missing_images_are_counted(tmp_path: Path) -> None:
    root = tmp_path / "run"
    lost = Item(
        id="scene-x",
        benchmark="gobench",
        category="direct_light_images",
        question="A lamp and a post.",
        answer="",
        answer_type="image",
        meta={"task": "generation", "questions_reality": GOBENCH_QUESTIONS},
    )
    items = [*(_item(key) for key in CATEGORIES), lost]
    good, unreadable = _png(1), _png(2)
    failed = {**_image_result(root, "scene-r", "diffusers", "diffusers:tiny", _png(3)), "status": "error"}
    failed["error"] = "RuntimeError: the pipeline ran out of memory"
    rows = [
        _image_result(root, "scene-d", "diffusers", "diffusers:tiny", good),
        failed,
        _image_result(root, "scene-f", "diffusers", "diffusers:tiny", unreadable),
        {**_image_result(root, "scene-x", "diffusers", "diffusers:tiny", _png(4)), "image": "blobs/gone.png"},
    ]
    run = _generation_run(root, items, {"diffusers": "diffusers:tiny"}, rows)
    judge = ScriptJudge({_sha(good): _reply([Y, Y, Y, Y, C], 4, 3), _sha(unreadable): "A lovely picture."})
    score_run(run, judge=judge, cache_dir=tmp_path / "cache", figures=False)
    scores = {s.id: s for s in read_scores(run)}
    assert scores["scene-r"].method == "error" and scores["scene-r"].details["task"] == "generation"
    assert scores["scene-f"].method == "judge_error" and scores["scene-f"].judge["raw"] == "A lovely picture."
    assert scores["scene-x"].method == "none" and "blobs/gone.png" in scores["scene-x"].details["unjudged"]
    tables = {table.title: table for table in gobench_tables(list(scores.values()))}
    row = _rows(tables["GOBench generation — per generator"])[0]
    assert row == {
        "Arm": "diffusers",
        "Generator": "diffusers:tiny",
        "n": "4",
        "Authenticity (0–5)": "4.50",
        "Aesthetics (1–5)": "4.00",
        "Fidelity (1–5)": "3.00",
        "unrated": "3",
        "run errors": "1",
        "unjudged": "1",
        "judge errors": "1",
    }
    assert "Judge calibration" not in tables  # no image carries known answers
    direct = [r for r in _rows(tables["GOBench generation — per category"]) if r["Category"] == "direct light"]
    assert (direct[0]["n"], direct[0]["unrated"]) == ("2", "1")


# ------------------------------------------------------------------------------------ the questions asked


def test_a_gobench_item_is_asked_its_questions_reality(tmp_path: Path) -> None:
    root = tmp_path / "run"
    listed = _item("r", prompt="A mirror on a wall reflecting a red cup.")
    text = Item(
        id="scene-t",
        benchmark="gobench",
        category="refracted_light_images",
        question="A glass of water with a straw.",
        answer="",
        answer_type="image",
        meta={"task": "generation", "Questions_reality": "1. Is it bent?\n2) Is it deep?\n3、Q3?\n4: Q4?\n5. Q5?"},
    )
    first, second = _png(5), _png(6)
    rows = [
        _image_result(root, "scene-r", "openai-image", "openai-image:gpt-image-1", first),
        _image_result(root, "scene-t", "openai-image", "openai-image:gpt-image-1", second),
    ]
    run = _generation_run(root, [listed, text], {"openai-image": "openai-image:gpt-image-1"}, rows)
    judge = ScriptJudge({_sha(first): _reply([Y, Y, Y, Y, Y], 5, 5), _sha(second): _reply([N, N, N, N, C], 2, 1)})
    score_run(run, judge=judge, cache_dir=tmp_path / "cache", figures=False)
    prompt = judge.prompts[_sha(first)]
    assert "A mirror on a wall reflecting a red cup." in prompt  # meta.prompt before the question
    assert "\n".join(f"{k}. {q}" for k, q in enumerate(GOBENCH_QUESTIONS, start=1)) in prompt
    assert "1. Is it bent?\n2. Is it deep?\n3. Q3?\n4. Q4?\n5. Q5?" in judge.prompts[_sha(second)]
    scores = {s.id: s for s in read_scores(run)}
    assert scores["scene-t"].details["judge_scores"] == {"authenticity": 0.5, "aesthetics": 2.0, "fidelity": 1.0}
    assert "calibration" not in scores["scene-t"].details and "known_answers" not in scores["scene-t"].details
    assert "Judge calibration" not in (run / "report.md").read_text()


def test_questions_come_from_the_image_first() -> None:
    item = _item("d")
    assert generation_questions(item, {"questions": ["A?", "B?"]}) == ["A?", "B?"]
    assert generation_questions(item, {"seed": 3}) == GOBENCH_QUESTIONS
    bare = Item(id="b", benchmark="gobench", category="x", question="q", answer="", answer_type="image")
    assert generation_questions(bare) == []


# ------------------------------------------------------------------------------------------- calibration unit


def test_known_answers_and_words() -> None:
    assert [answer_word(v) for v in (1, 0.0, 0.5)] == [Y, N, C]
    with pytest.raises(ValueError):
        answer_word(0.25)
    assert [known_answer(v) for v in ("yes", "No.", True, 0, "maybe", None)] == [Y, N, Y, N, None, None]
    assert known_answers({"known_answers": ["Yes", "No"]}, 2) == [Y, N]
    assert known_answers({"known_answers": ["Yes", "No"]}, 5) is None  # not one per question asked
    assert known_answers({"known_answers": ["?", "?"]}, 2) is None
    assert known_answers(None, 2) is None
    assert calibration_pairs([Y, N, C], [N, None, Y]) == [{"judge": Y, "known": N}, {"judge": C, "known": Y}]


def test_calibrate_counts_only_rated_images() -> None:
    def score(method: str, **details: Any) -> Score:
        return Score(
            id="i",
            mode="procedural",
            benchmark="gobench",
            category="x",
            score=None,
            correct=None,
            method=method,
            details=details,
        )  # type: ignore[arg-type]

    rated = score("judge", calibration=calibration_pairs([Y, N, C, N], [Y, Y, N, N]), known_answers=[Y, Y, N, N])
    unrated = score("judge_error", known_answers=[Y, N])
    plain = score("judge", judge_scores={"authenticity": 5.0, "aesthetics": 3.0, "fidelity": 3.0})
    counts = calibrate([rated, unrated, plain])
    assert counts == Calibration(
        images=1, questions=4, agree=2, false_yes=0, false_no=1, cannot=1, known_yes=2, known_no=2, unrated=1
    )
    assert (counts.agreement, counts.false_yes_rate, counts.false_no_rate, counts.cannot_rate) == (0.5, 0.0, 0.5, 0.25)
    assert Calibration().agreement is None and Calibration().false_yes_rate is None


def test_mcot_score_prints_the_calibration_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mcot.commands.score import run_score

    run, _, _ = _procedural_run(tmp_path)
    assert run_score(run) == 0
    printed = capsys.readouterr().out
    assert "### GOBench generation — per generator — official protocol" in printed
    assert "### Judge calibration — official protocol" in printed
    assert "| all arms | 0 | 0 | — | — | — | — | 0 | 0 | 6 |" in printed
    assert "to do: 6 generated image(s) not rated" in printed and "--judge SPEC` rates them" in printed
