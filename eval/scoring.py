"""Scoring a whole run: every (item, mode) result through its protocol, trace verification, scores.jsonl."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from eval.judges import JudgeCache, JudgeModel, load_templates
from eval.protocols import Scorer
from eval.rundir import MANIFEST, Run, Score, open_run, write_scores, write_text_atomic
from eval.verify import has_verifier, verify_trace

CACHE_ENV = "MCOT_JUDGE_CACHE"
CACHE_DIR = "judge-cache"


@dataclass
class ScoreSummary:
    """What a scoring pass did: the scores, counts by method, missing items, judge cache hits and misses."""

    scores: list[Score]
    methods: Counter[str] = field(default_factory=Counter)
    missing_items: list[str] = field(default_factory=list)
    cache_hits: int = 0
    cache_misses: int = 0


def default_cache_dir(run_root: Path) -> Path:
    """Return the judge cache directory: $MCOT_JUDGE_CACHE, else RUN/judge-cache."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path(run_root) / CACHE_DIR


async def score_results(run: Run, scorer: Scorer, *, concurrency: int = 8) -> ScoreSummary:
    """Return the scores of every result of `run` (results without a known item are listed as missing)."""
    gate = asyncio.Semaphore(max(1, concurrency))
    summary = ScoreSummary([])

    async def one(key: tuple[str, str]) -> Score | None:
        item_id, mode = key
        item = run.items.get(item_id)
        if item is None:
            summary.missing_items.append(item_id)
            return None
        result = {**run.results[key], "mode": mode}
        async with gate:
            score = await scorer.score(item, result)
        if mode != "text" and has_verifier(item):
            verdict = verify_trace(item, run.trace(item_id, mode))
            if verdict is not None:
                score.details["trace"] = verdict.to_dict()
        return score

    keys = sorted(run.results)
    scored = await asyncio.gather(*(one(key) for key in keys))
    summary.scores = [score for score in scored if score is not None]
    summary.methods = Counter(score.method for score in summary.scores)
    return summary


def score_run(
    run_root: Path,
    *,
    judge: JudgeModel | None = None,
    template: Path | None = None,
    cache_dir: Path | None = None,
    concurrency: int = 8,
    report: bool = True,
    figures: bool = True,
) -> ScoreSummary:
    """Score a run directory: write RUN/scores.jsonl, record the judge in the manifest, write the report."""
    run = open_run(run_root)
    templates = load_templates(template)
    cache = JudgeCache(cache_dir or default_cache_dir(run.root)) if judge is not None else None
    scorer = Scorer(
        judge=judge,
        templates=templates,
        cache=cache,
        items_root=run.items_root,
        run_root=run.root,
        generator=(run.manifest.get("model") or {}).get("spec"),
    )
    summary = asyncio.run(score_results(run, scorer, concurrency=concurrency))
    write_scores(run.root, summary.scores)
    if cache is not None:
        summary.cache_hits, summary.cache_misses = cache.hits, cache.misses
    manifest = dict(run.manifest)
    if judge is not None:
        used = {name: t.sha256 for name, t in sorted(templates.items())}
        combined = hashlib.sha256(json.dumps(used, sort_keys=True).encode()).hexdigest()
        manifest["judge"] = {"spec": judge.spec, "template_sha256": combined, "templates": used}
    else:
        manifest["judge"] = None
    write_text_atomic(run.root / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    if report:
        from eval.report import write_report

        write_report(run, summary.scores, figures=figures)
    return summary
