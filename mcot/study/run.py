"""`mcot study`: every model of a STUDY.toml as one ordinary resumable run under DIR, scored, then the study report.

DIR/items holds the study's items (each data entry converted when native, its first `limit` items, merged once);
DIR/study.json records what they were made from, so a later call with other data is refused rather than mixed.
DIR/runs/<name> is one `mcot run` directory per model, built from a RunConfig: re-running the study resumes
each (finished pairs are kept), and a model added to the file is the only one that runs anew. Each run is
scored (its own report.md; a run with nothing new, already scored under the study's protocol and judge, is not
scored again), its `[probes]` arms are probed (mcot.study.probing: resumable, RUN/probes.jsonl), then DIR/study.md, DIR/study.html and DIR/figures/study.png are written.

A model's key is read from the environment only: `key_env = "MY_KEY"` makes $MY_KEY stand in for the variables
the backends read (KEY_VARIABLES) while that model runs and is scored, and they are restored afterwards.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.agents import load_model
from mcot.breaker import check_endpoints_now
from mcot.core.errors import UsageError
from mcot.core.inputs import YAML_MAX_BYTES, read_regular
from mcot.core.item import ItemError, ItemsWriter, read_items
from mcot.core.rundir import (
    RESULTS,
    SCORES,
    iter_scores,
    json_text,
    read_manifest,
    sample_roots,
    write_text_atomic,
)
from mcot.eval.errors import EvalError
from mcot.judging import BackendJudge, judge_from_spec
from mcot.mcp.servers import started
from mcot.repeats import run_samples
from mcot.runner import prepare_dataset
from mcot.sampling import stratified_sample
from mcot.study.config import ModelEntry, StudyConfig
from mcot.study.probing import probe_model

ITEMS = "items"
RUNS = "runs"
STATE = "study.json"
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
"""The variables mcot's backends read their key from; `key_env` stands in for them during its model's run."""


@dataclass
class StudyOutcome:
    """What a study call did: per model, its run folder and what its run did this time; where the report is."""

    out: Path
    runs: dict[str, Path] = field(default_factory=dict)
    new_pairs: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    interrupted: bool = False
    report: Path | None = None
    probes_failed: dict[str, int] = field(default_factory=dict)
    """Per model, the probes of `[probes]` that ended as errors this time (the next call asks them again)."""
    probe_budget: list[str] = field(default_factory=list)
    """The models whose `[probes] max_cost` stopped some probes from starting."""
    causes: dict[str, list[str]] = field(default_factory=dict)
    """Per model whose pairs failed this time, the causes counted (`N × cause` lines, as `mcot run` prints them)."""
    judge_missing: dict[str, int] = field(default_factory=dict)
    """Per model scored this time, its judgments that are missing (the judge failed or replied unparsably)."""
    judge_stopped: str | None = None
    """Why the study's judge stopped asking (its circuit breaker opened), naming the judge and its URL; else None."""


def study_items(config: StudyConfig, out: Path) -> Path:
    """Return DIR/items, made from the study's data the first time; UsageError when DIR was made from other data."""
    items = out / ITEMS
    state_path = out / STATE
    made_from: dict[str, Any] = {"data": [str(path) for path in config.data], "limit": config.limit}
    if config.sample is not None:
        made_from.update(sample=config.sample, seed=config.settings.get("seed") or 0)
    if state_path.is_file():
        recorded = _study_record(state_path)
        if {key: recorded.get(key) for key in made_from} != made_from:
            raise UsageError(
                f"{out} holds a study of other data ({recorded.get('data')}, limit {recorded.get('limit')}); "
                "use another --out for this one"
            )
        if (items / "items.jsonl").is_file():
            return items
    _merge_data(config, out, items)
    out.mkdir(parents=True, exist_ok=True)

    write_text_atomic(state_path, json_text({**made_from, "source": str(config.source)}))
    return items


def _study_record(path: Path) -> dict[str, Any]:
    """Return DIR/study.json, the record of what the study was made from; UsageError naming it when it is not one."""

    try:
        recorded = json.loads(read_regular(path, what="study record", max_bytes=YAML_MAX_BYTES).decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"{path} is not a study record mcot can read ({exc}); remove it or use another --out"
        ) from None
    if not isinstance(recorded, dict):
        raise UsageError(f"{path} is not a study record (a JSON object); remove it or use another --out")
    return recorded


def refuse_reading_from(config: StudyConfig, out: Path) -> None:
    """Raise UsageError when a data entry of the study is DIR or inside it, or DIR inside one (the study writes
    DIR/items and DIR/MODEL: it would overwrite what it reads); returns nothing otherwise."""
    target = Path(out).resolve()
    for data in config.data:
        source = Path(data).resolve()
        if source == target or source.is_relative_to(target) or target.is_relative_to(source):
            raise UsageError(
                f"the study's data {data} is inside --out {out} (or holds it): the study writes there; "
                "give another --out"
            )


def _merge_data(config: StudyConfig, out: Path, items: Path) -> None:
    seen: dict[str, Path] = {}
    try:
        with ItemsWriter(items, overwrite=True) as writer:
            for number, data in enumerate(config.data):
                source = prepare_dataset(data, None, out / "data" / str(number))
                chosen = read_items(source)
                if config.sample:
                    chosen = stratified_sample(chosen, config.sample, int(config.settings.get("seed") or 0))
                elif config.limit:
                    chosen = chosen[: config.limit]
                for item in chosen:
                    if item.id in seen:
                        raise UsageError(
                            f"item id {item.id!r} is in both {seen[item.id]} and {data}: ids must be unique"
                        )
                    seen[item.id] = data
                    for image in item.images:
                        writer.add_image(image, (source / image).read_bytes())
                    writer.add(item)
    except ItemError as exc:
        raise UsageError(str(exc)) from exc


@contextmanager
def model_key(model: ModelEntry) -> Iterator[None]:
    """Make the model's `key_env` variable stand in for the backends' key variables while inside; restore after."""
    if model.key_env is None:
        yield
        return
    key = os.environ.get(model.key_env)
    if not key:
        raise UsageError(f"model {model.name!r}: key_env {model.key_env} is not set in the environment")
    saved = {name: os.environ.get(name) for name in KEY_VARIABLES}
    os.environ.update(dict.fromkeys(KEY_VARIABLES, key))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_study(config: StudyConfig, out: Path, *, quiet: bool = True) -> StudyOutcome:
    """Run (or resume) every model's run, score each, write the study report; return what was done.

    Every model's RunConfig is built (and refused, one line) before any run starts. An interrupt stops the study
    after the run in progress has saved its finished pairs (`interrupted`); the report is then not rewritten.
    """
    if config.mcp:  # the servers' tools are declared before the runs that name them are planned

        with started(list(config.mcp), float(config.settings.get("mcp_timeout", 60.0))):
            return _run_study(config, out, quiet=quiet)
    return _run_study(config, out, quiet=quiet)


def _run_study(config: StudyConfig, out: Path, *, quiet: bool = True) -> StudyOutcome:
    out = Path(out)
    planned = [(model, config.run_config(model, out / ITEMS, out / RUNS / model.name)) for model in config.models]
    judge = _judge(config)
    _check_models(planned)
    study_items(config, out)
    outcome = StudyOutcome(out)
    for model, run_config in planned:
        outcome.runs[model.name] = run_config.out
        with model_key(model):
            summary = run_samples(run_config, quiet=quiet)
            outcome.new_pairs[model.name] = sum(summary.by_status.values())
            outcome.failed[model.name] = summary.failures.failed
            if summary.failures.failed:
                outcome.causes[model.name] = summary.failures.lines(limit=3)
            if summary.stopped == "interrupt":
                outcome.interrupted = True
                return outcome
            if outcome.new_pairs[model.name] or not scored_as(run_config.out, config):
                outcome.judge_missing[model.name] = _score(run_config.out, judge, config.protocol)
            if config.probes is not None:
                probed = probe_model(run_config, config.probes, config.protocol)
                outcome.probes_failed[model.name] = probed.failed + bool(probed.stopped)
                if probed.budget:
                    outcome.probe_budget.append(model.name)
                for arm, done in probed.summaries.items():
                    print(f"{model.name} {arm}: {done.line()}", file=sys.stderr)
        print(f"{model.name}: {summary.total} pairs, {summary.skipped_done} already done", file=sys.stderr)
    outcome.judge_stopped = judge.stopped() if isinstance(judge, BackendJudge) else None
    from mcot.study.report import write_study_report

    outcome.report = write_study_report(config, outcome.runs, out)
    return outcome


def scored_as(run: Path, config: StudyConfig) -> bool:
    """Return whether the run's scores are of its latest results under the study's protocol and judge, with no
    judgment missing (no rescore)."""

    scores, results = run / SCORES, run / RESULTS
    if not scores.is_file() or not results.is_file() or scores.stat().st_mtime < results.stat().st_mtime:
        return False
    manifest = read_manifest(run)
    protocol = manifest.scoring.protocol if manifest.scoring is not None else None
    if protocol != config.protocol or manifest.judge_spec != config.judge:
        return False
    return not any(score.method == "judge_error" for score in iter_scores(scores))  # a rerun asks them again


def _check_models(planned: list[tuple[ModelEntry, Any]]) -> None:
    """Refuse the study (UsageError naming the URL) when a model's endpoints accept no connection, before the
    study writes anything (each run checks again when it starts)."""

    for model, run_config in planned:
        with model_key(model):
            try:
                backend = load_model(run_config.model, base_url=run_config.base_url or None)
            except ValueError as exc:
                raise UsageError(f"model {model.name}: {exc}") from exc
            check_endpoints_now(backend)


def _judge(config: StudyConfig) -> Any:
    if config.judge is None:
        return None

    try:
        judge = judge_from_spec(config.judge, config.judge_base_url)
    except Exception as exc:  # an unknown or unusable spec: the backend's message says what to fix
        raise UsageError(f"cannot use judge {config.judge!r}: {exc}") from exc
    check_endpoints_now(judge)  # a dead judge endpoint refuses the study before anything runs
    return judge


def _score(run: Path, judge: Any, protocol: str) -> int:
    """Score the run (its code cells replayed first); return how many of its judgments are missing."""
    from mcot.eval.scoring import score_run

    try:
        for _, sample in sample_roots(run):  # as `mcot score`: the code arms' cells are replayed first
            if read_manifest(sample).code:
                from mcot.code_replay import replay_code

                replay_code(sample)
        summary = score_run(run, judge=judge, protocol=protocol)
    except EvalError as exc:
        raise UsageError(str(exc)) from exc
    return sum(1 for score in summary.scores if score.method == "judge_error")
