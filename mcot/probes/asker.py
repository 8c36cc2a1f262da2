"""Asking one probe: a finished pair's final request rebuilt, its images after the drawing replaced, sent to the
run's model, and the answer read by the benchmark's protocol (as `mcot score` reads it without a judge).

`Asker.for_run(run, plan)` reads the final requests of the arm's finished pairs from their traces (mcot.probes
.conversation); `probe(item_id, kind)` returns the `Probe` line: answered, without a drawing to change, or an error
with its reason. Shuffle's donor is another item of the same benchmark with a drawing, chosen with the plan's seed.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcot.agents.backends.base import ModelBackend, ModelRequest
from mcot.agents.budget import Budget
from mcot.agents.messages import ImagePart, limit_canvas_images
from mcot.agents.pricing import cost_usd
from mcot.agents.toolbox import RegistryToolbox, toolset
from mcot.core.errors import UsageError
from mcot.core.item import Item
from mcot.core.rundir import Result, Run
from mcot.core.rundir.probes import Probe
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.registry import scoring_spec
from mcot.probes.conversation import FinalRequest, Slot, final_request
from mcot.probes.kinds import Perturbation, Replace, blank, perturb, shuffle


@dataclass(frozen=True)
class ProbePlan:
    """What a probe session asks: the arm, the kinds, the shuffle seed, the perturbation, the limits."""

    arm: str
    kinds: tuple[str, ...]
    seed: int = 0
    perturbation: Perturbation = field(default_factory=Perturbation)
    cache: Path | None = None
    max_cost_usd: float | None = None
    concurrency: int = 4
    max_tries: int = 6
    protocol: str = "official"
    limit: int | None = None


def _requests(run: Run, arm: str) -> dict[str, FinalRequest | str]:
    """Return, per finished pair of the arm in the items' order, its final request or why it has none."""
    entry = next((a for a in run.manifest.arms if a.name == arm), None)
    sees = (entry.model_extra or {}).get("sees_canvas", True) if entry is not None else True
    out: dict[str, FinalRequest | str] = {}
    for item_id, item in run.items.items():
        result = run.results.get((item_id, arm))
        if result is None or not result.ok:
            continue
        rows = run.trace(item_id, arm)
        if rows is None:
            out[item_id] = "the pair has no trace"
            continue
        images = [run.items_root / rel for rel in item.images]
        try:
            out[item_id] = final_request(rows, run.root, images, sees_canvas=sees is not False)
        except UsageError as exc:
            out[item_id] = str(exc)
    return out


class Asker:
    """Asks one probe: rebuilds the request, replaces its images, sends it, reads the answer."""

    def __init__(
        self,
        run: Run,
        plan: ProbePlan,
        backend: ModelBackend | None,
        tools: Any,
        requests: dict[str, FinalRequest | str],
    ) -> None:
        self.run, self.plan, self.backend, self.tools, self.requests = run, plan, backend, tools, requests
        config = run.manifest.config
        self.budget = Budget(
            max_canvas_images=int(config.get("max_canvas_images") or 3),
            temperature=float(config.get("temperature") or 0.0),
            seed=config.get("seed"),
            max_output_tokens=config.get("max_output_tokens"),
        )
        self.scorer = Scorer(items_root=run.items_root, run_root=run.root, protocol=plan.protocol)

    @classmethod
    def for_run(cls, run: Run, plan: ProbePlan, backend: ModelBackend | None = None) -> Asker:
        """Return the asker of a run's arm (its finished pairs' final requests read from their traces); raise
        UsageError for an arm the run lacks or one that offers no tools."""
        if plan.arm not in run.arms:
            raise UsageError(f"the run has no arm {plan.arm!r}; its arms are {', '.join(run.arms)}")
        tools = run.arm_tools(plan.arm)
        if not tools:
            raise UsageError(f"arm {plan.arm!r} offers no tools: nothing was drawn to probe")
        return cls(run, plan, backend, toolset(RegistryToolbox(), tools), _requests(run, plan.arm))

    def model_request(self, item: Item, request: FinalRequest, messages: list[Any]) -> ModelRequest:
        """Return the request of a final answer with `messages` (canvas images limited as the run limited them)."""
        return ModelRequest(
            messages=limit_canvas_images(messages, self.budget.max_canvas_images),
            tools=self.tools,
            max_tokens=self._max_tokens(request),
            temperature=self.budget.temperature,
            seed=self.budget.seed,
            hints=_hints(item, self.plan.arm),
        )

    async def probe(self, item_id: str, kind: str) -> Probe:
        """Return the probe line of (item, kind): answered, without a drawing, or an error with its reason."""
        item = self.run.items[item_id]
        result = self.run.results[(item_id, self.plan.arm)]
        base = Probe(id=item_id, arm=self.plan.arm, kind=kind, benchmark=item.benchmark, category=item.category)
        original = await self._score(item, result.prediction or "")
        base.original, base.original_correct = original.extracted, original.correct
        request = self.requests[item_id]
        if isinstance(request, str):
            return base.model_copy(update={"status": "error", "error": request})
        if not request.slots:
            return base.model_copy(update={"status": "no_drawing", "answer": result.prediction, "changed": False,
                                           "extracted": original.extracted, "correct": original.correct})  # fmt: skip
        changes: list[str] = []

        def counted(slot: Slot) -> ImagePart | None:
            new = replace(slot)
            if new is None or new.sha256 != request.image(slot.blob).sha256:
                changes.append(slot.blob)
            return new

        try:
            replace, extra = self._replacement(item, request, kind)
            messages = request.messages(counted)
        except UsageError as exc:
            return base.model_copy(update={"status": "error", "error": str(exc)})
        changed_images = len(changes)
        model_request = self.model_request(item, request, messages)
        started = time.perf_counter()
        if self.backend is None:
            raise UsageError("a probe needs the run's model")
        try:
            response = await self.backend.generate(model_request)
        except Exception as exc:  # a failed call is the probe's error line, never the command's end
            return base.model_copy(update={"status": "error", "error": f"{type(exc).__name__}: {exc}"[:500],
                                           "images": changed_images, **extra})  # fmt: skip
        text = response.text
        scored = await self._score(item, text)
        usage = response.usage
        cost = 0.0 if response.cached else cost_usd(self.backend.provider, self.backend.model,
                                                     usage.input_tokens, usage.output_tokens)  # fmt: skip
        return base.model_copy(
            update={
                "answer": text,
                "extracted": scored.extracted,
                "correct": scored.correct,
                "changed": _same_answer(scored.extracted) != _same_answer(original.extracted),
                "images": changed_images,
                "usage": {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "cost_usd": cost,
                    "cached": response.cached,
                    "tool_calls": len(response.tool_calls),
                    "latency_s": round(time.perf_counter() - started, 4),
                },
                **extra,
            }
        )

    def _replacement(self, item: Item, request: FinalRequest, kind: str) -> tuple[Replace, dict[str, Any]]:
        if kind == "blank":
            return blank(request), {}
        if kind == "perturb":
            return perturb(request, self.plan.perturbation), {"setting": self.plan.perturbation.setting()}
        donors = sorted(
            other
            for other, found in self.requests.items()
            if other != item.id
            and isinstance(found, FinalRequest)
            and found.slots
            and self.run.items[other].benchmark == item.benchmark
        )
        if not donors:
            raise UsageError(f"no other item of {item.benchmark} in arm {self.plan.arm} has a drawing to shuffle in")
        donor = random.Random(f"{self.plan.seed}:{self.plan.arm}:{item.id}").choice(donors)
        found = self.requests[donor]
        assert isinstance(found, FinalRequest)
        return shuffle(found), {"donor": donor}

    def _max_tokens(self, request: FinalRequest) -> int:
        limit = self.budget.max_tokens_per_call
        if self.budget.max_output_tokens is not None:
            limit = max(1, min(limit, int(self.budget.max_output_tokens) - request.output_tokens))
        return limit

    async def _score(self, item: Item, text: str) -> Any:
        protocol = scoring_spec(item.benchmark).protocol_for(self.plan.protocol)
        record = Result(id=item.id, mode=self.plan.arm, status="ok", prediction=text)
        return await protocol(self.scorer, item, text, record)


def _hints(item: Item, arm: str) -> dict[str, Any]:
    """Return the prompt-view facts a request carries for policies that are not language models (no answer)."""
    return {"id": item.id, "benchmark": item.benchmark, "category": item.category, "question": item.question,
            "choices": list(item.choices) if item.choices else None, "answer_type": item.answer_type,
            "mode": arm}  # fmt: skip


def _same_answer(extracted: str | None) -> str:
    """Return an extracted answer as `changed` compares it: case and runs of whitespace ignored."""
    return " ".join((extracted or "").split()).casefold()


def probe_cost(probe: Probe) -> float:
    """Return what a probe line cost in USD (0.0 when unknown or cached)."""
    value = probe.usage.get("cost_usd") if probe.usage else None
    return float(value) if isinstance(value, int | float) and math.isfinite(value) and value > 0 else 0.0
