"""Scoring a whole run: every (item, arm) of the run through its protocol, trace verification, scores.jsonl.

Every item of RUN/items.jsonl is scored in every arm of the manifest: a pair without a finished result (failed,
stopped on a budget, or never run) is scored wrong with method "error", so that accuracies are over all items.
A pair is scored by its benchmark's protocol, looked up in the registry (`score_pair`, `failed_pair`).
Each score carries its item's cluster under the benchmark's key (`with_cluster`; None where the item is its own).
Each benchmark is scored by its `official` protocol (the default), its `robust` one, or both (`SCORING_CHOICES`):
with both, RUN/scores.jsonl holds the official scores and RUN/scores.robust.jsonl the robust ones.
People's ratings (`human`: files saved by `mcot view RUN --rate`) add the report's "Judge and people" section
(mcot.eval.people) and RUN/scores.human.jsonl, the people's verdicts variant; scores.jsonl stays the protocol's.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mcot.eval.advice import MISSING_STATUS, advice
from mcot.eval.errors import EvalError
from mcot.eval.judges import JudgeCache, JudgeModel, load_templates
from mcot.eval.people import HUMAN_SCORES, PeopleSection, people_section
from mcot.eval.protocol_names import OFFICIAL, PROTOCOLS, ROBUST
from mcot.eval.protocols.scorer import FACET_KEYS, FAILED_STATUSES, Scorer, failed_score
from mcot.eval.ratings import read_raters
from mcot.eval.registry import scoring_spec
from mcot.eval.verify import verify_trace

from mcot.core.clusters import benchmark_cluster
from mcot.core.item import Item
from mcot.core.registry import PROTOCOLS as PROTOCOL_REGISTRY
from mcot.core.rundir import (
    ROBUST_SCORES,
    SCORES,
    JudgeEntry,
    Result,
    Run,
    Score,
    ScoringEntry,
    open_run,
    order_arms,
    sample_roots,
    write_manifest,
    write_scores,
)

CACHE_ENV = "MCOT_JUDGE_CACHE"
CACHE_DIR = "judge-cache"
BOTH = "both"
SCORING_CHOICES = (*PROTOCOLS, BOTH)
"""mcot's own choices of `score_run(protocol=...)` and `mcot score --protocol`: official, robust, both; a plugin's
`declare_protocol` adds its names (check_protocol reads the registry)."""


@dataclass
class ScoreSummary:
    """What a scoring pass did: the scores, counts by method, stray results, judge cache use, advice, protocol.

    `missing_items` are ids of results that name no item of RUN/items.jsonl (not scored); `source_changed`
    is the line naming how the source dataset differs from when the run started (None when it does not).
    """

    scores: list[Score]
    methods: Counter[str] = field(default_factory=Counter)
    missing_items: list[str] = field(default_factory=list)
    cache_hits: int = 0
    cache_misses: int = 0
    source_changed: str | None = None
    advice: list[str] = field(default_factory=list)
    protocol: str = OFFICIAL
    """The protocol of `scores`: "official" or "robust" (with "both", the official one)."""
    robust: list[Score] | None = None
    """With protocol "both": the robust scores of the same pairs, in the same order."""
    people: PeopleSection | None = None
    """With people's ratings: the "Judge and people" tables and the people's verdicts variant."""


def default_cache_dir(run_root: Path) -> Path:
    """Return the judge cache directory: $MCOT_JUDGE_CACHE, else RUN/judge-cache."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path(run_root) / CACHE_DIR


MISSING_REASON = "the run has no result for this item and arm (interrupted, or not run yet)"


async def score_pair(scorer: Scorer, item: Item, result: Result) -> Score:
    """Return the score of one (item, result) pair under the scorer's protocol registered for the item's benchmark."""
    status = result.status
    if status in FAILED_STATUSES:
        reason = result.error or f"the run ended this item with status {status!r}"
        return await failed_pair(scorer, item, result.mode, status, reason)
    protocol = scoring_spec(item.benchmark).protocol_for(scorer.protocol)
    score = await protocol(scorer, item, result.text, result)
    score.details = {"status": status, **score.details}
    return score


async def failed_pair(scorer: Scorer, item: Item, mode: str, status: str, reason: str) -> Score:
    """Return the score of a pair the run did not finish: wrong, method "error", with the item's facets.

    The facets (FACET_KEYS, e.g. GePBench's level, OmniPhys's task kind) are what the item's protocol records
    for an empty answer without a judge, so that report tables put the failure in its cell.
    """
    score = failed_score(item, mode, status, reason)
    judgeless = Scorer(templates=scorer.templates, items_root=scorer.items_root, run_root=scorer.run_root)
    try:
        protocol = scoring_spec(item.benchmark).protocol_for(scorer.protocol)
        probe = await protocol(judgeless, item, "", Result(id=item.id, mode=mode, status=status))
    except Exception:  # a protocol that cannot read an empty answer leaves the failure without facets
        return score
    score.details.update({key: probe.details[key] for key in FACET_KEYS if key in probe.details})
    return score


def scored_arms(run: Run) -> list[str]:
    """Return the arms to score: the manifest's, then any other arm that results were recorded under."""
    arms = list(run.arms)
    return arms + [arm for arm in order_arms({mode for _, mode in run.results}) if arm not in arms]


async def score_results(
    run: Run, scorer: Scorer, *, concurrency: int = 8, reuse: dict[tuple[str, str], Score] | None = None
) -> ScoreSummary:
    """Return the scores of every (item of the run, arm): one per pair, in item order then arm order.

    `reuse` maps (id, arm) to a score already made under the other protocol: it is kept (copied) for items
    whose benchmark has one protocol only and for pairs the run did not finish, which both protocols score alike.
    """
    gate = asyncio.Semaphore(max(1, concurrency))
    arms = scored_arms(run)
    summary = ScoreSummary([], source_changed=run.source_changed, protocol=scorer.protocol)
    summary.missing_items = sorted({item_id for item_id, _ in run.results if item_id not in run.items})

    async def one(item: Item, arm: str) -> Score:
        return with_cluster(await made(item, arm), item)

    async def made(item: Item, arm: str) -> Score:
        result = run.results.get((item.id, arm))
        earlier = (reuse or {}).get((item.id, arm))
        if earlier is not None and (earlier.method == "error" or scoring_spec(item.benchmark).robust is None):
            return copy.deepcopy(earlier)
        async with gate:
            if result is None:
                return await failed_pair(scorer, item, arm, MISSING_STATUS, MISSING_REASON)
            score = await score_pair(scorer, item, result)
        if run.arm_tools(arm) != ():
            verdict = verify_trace(item, run.trace(item.id, arm))
            if verdict is not None:
                score.details["trace"] = verdict.to_dict()
        return score

    summary.scores = list(await asyncio.gather(*(one(item, arm) for item in run.items.values() for arm in arms)))
    summary.methods = Counter(score.method for score in summary.scores)
    summary.advice = advice(summary.scores, str(run.root), command=str(run.manifest.command or "mcot run"))
    return summary


def with_cluster(score: Score, item: Item) -> Score:
    """Return `score` with the item's cluster under its benchmark's key set (None when the item is its own)."""
    cluster = benchmark_cluster(item)
    score.cluster = cluster if cluster != item.id else None
    return score


def check_protocol(protocol: str) -> str:
    """Return `protocol` when it is "both" or a registered protocol (mcot's or a plugin's `declare_protocol`);
    raise EvalError naming the choices otherwise."""
    if protocol == BOTH or protocol in PROTOCOL_REGISTRY:
        return PROTOCOL_REGISTRY.entry(protocol).name if protocol != BOTH else BOTH
    choices = ", ".join((*PROTOCOL_REGISTRY.names(), BOTH))
    raise EvalError(f"unknown scoring protocol {protocol!r}; choose one of {choices}")


def score_run(
    run_root: Path,
    *,
    judge: JudgeModel | None = None,
    template: Path | None = None,
    cache_dir: Path | None = None,
    concurrency: int = 8,
    report: bool = True,
    figures: bool = True,
    protocol: str = OFFICIAL,
    human: Sequence[Path] = (),
) -> ScoreSummary:
    """Score a run directory under `protocol`: write RUN/scores.jsonl, the manifest's judge and scoring, the report.

    `protocol` "official" (each benchmark's published scoring) or "robust" (mcot's own) fills scores.jsonl;
    "both" fills scores.jsonl with the official scores and RUN/scores.robust.jsonl with the robust ones, and the
    report adds the pairs the two read differently. A scores.robust.jsonl left by an earlier "both" is removed
    otherwise, so that the files always match the manifest's `scoring`. `human` are ratings files (read, and
    refused with RatingsError, before anything is written): the report gains "Judge and people", and
    RUN/scores.human.jsonl holds the people's verdicts of the first protocol's scores (removed without `human`).
    """
    protocol = check_protocol(protocol)
    raters = read_raters(human)
    for _, sample in sample_roots(run_root)[1:]:  # the repeated samples first: the run's report reads their scores
        score_run(sample, judge=judge, template=template, cache_dir=cache_dir or default_cache_dir(Path(run_root)),
                  concurrency=concurrency, report=report, figures=False, protocol=protocol)  # fmt: skip
    run = open_run(run_root)
    templates = load_templates(template)
    cache = JudgeCache(cache_dir or default_cache_dir(run.root)) if judge is not None else None

    def scorer(name: str) -> Scorer:
        return Scorer(
            judge=judge,
            templates=templates,
            cache=cache,
            items_root=run.items_root,
            run_root=run.root,
            generator=run.manifest.model_spec,
            protocol=name,
        )

    first = OFFICIAL if protocol == BOTH else protocol
    summary = asyncio.run(score_results(run, scorer(first), concurrency=concurrency))
    write_scores(run.root, summary.scores)
    robust_path = run.root / ROBUST_SCORES
    if protocol == BOTH:
        reuse = {(score.id, score.mode): score for score in summary.scores}
        second = asyncio.run(score_results(run, scorer(ROBUST), concurrency=concurrency, reuse=reuse))
        summary.robust = second.scores
        write_scores(run.root, second.scores, ROBUST_SCORES)
    elif robust_path.exists():
        robust_path.unlink()
    human_path = run.root / HUMAN_SCORES
    if raters:
        summary.people = people_section(run, summary.scores, raters)
        verdicts = summary.people.verdicts.scores
        write_scores(run.root, verdicts, HUMAN_SCORES)
    elif human_path.exists():
        human_path.unlink()
    if cache is not None:
        summary.cache_hits, summary.cache_misses = cache.hits, cache.misses
    manifest = run.manifest.model_copy(deep=True)
    if judge is not None:
        used = {name: t.sha256 for name, t in sorted(templates.items())}
        combined = hashlib.sha256(json.dumps(used, sort_keys=True).encode()).hexdigest()
        manifest.judge = JudgeEntry(spec=judge.spec, template_sha256=combined, templates=used)
    else:
        manifest.judge = None
    manifest.scoring = ScoringEntry(protocol=protocol)
    if protocol == BOTH:
        manifest.scoring.files = {OFFICIAL: SCORES, ROBUST: ROBUST_SCORES}
    if raters:
        manifest.scoring.human = {
            "raters": [ratings.rater for ratings in raters],
            "files": [str(path) for ratings in raters for path in ratings.files],
            "scores": HUMAN_SCORES,
        }
    write_manifest(run.root, manifest)
    if report:
        from mcot.eval.report import write_report

        write_report(
            run,
            summary.scores,
            figures=figures,
            protocol=summary.protocol,
            robust=summary.robust,
            people=summary.people,
        )
    return summary
