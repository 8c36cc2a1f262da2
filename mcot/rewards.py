"""Rewards from mcot's scoring: TRL reward functions and verl's `compute_score`, by each benchmark's protocol.

The answer is scored as `mcot score` scores it: the benchmark's official protocol (`scoring_spec(benchmark).protocol`)
with a Scorer that has no judge, so a reward is 1.0 exactly where `mcot score` (without --judge) says correct. What
rules cannot settle without a judge (method "none": open answers of some benchmarks) gets 0.0 here, like a wrong
answer.

TRL (`GRPOTrainer(reward_funcs=[...])`, called `f(completions, **columns)`, one float per completion), over the
columns of an `mcot export --as trl` dataset:

- `accuracy`: 1.0 when the official protocol scores the completion's final answer correct;
- `answer_format`: 1.0 when the protocol can read an answer from it at all (what it extracted is not empty);
- `drawing`: the trace verifier's verdict on what the model drew in the rollout's environment
  (`mcot.env.CanvasEnv`, passed by TRL as `environments`): 1.0 valid, else 0.0 (0.0 where the task has no verifier).

verl (`reward.custom_reward_function.path=pkg://mcot.rewards`, `name=compute_score`):
`compute_score(data_source, solution_str, ground_truth, extra_info)` over an `mcot export --as verl` row, whose
`extra_info.item` holds the item.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from mcot.core.item import Item
from mcot.core.rundir import Result
from mcot.env.episode import item_from_row
from mcot.eval.protocols.scorer import Scorer
from mcot.eval.registry import scoring_spec


def final_text(completion: Any) -> str:
    """Return a completion's final answer text: a string as it is; for messages, the last non-empty assistant text
    (what a run records as its prediction)."""
    if isinstance(completion, str):
        return completion
    for message in reversed(list(completion or [])):
        if not isinstance(message, Mapping) or message.get("role") not in (None, "assistant"):
            continue
        text = _content_text(message.get("content"))
        if text.strip():
            return text
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [
        str(part.get("text") or "")
        for part in content or []
        if isinstance(part, Mapping) and part.get("type") == "text"
    ]
    return "\n".join(part for part in parts if part)


def score_answer(item: Item, text: str) -> Any:
    """Return the Score the benchmark's official protocol gives `text` for `item`, without a judge (as `mcot score`)."""

    protocol = scoring_spec(item.benchmark).protocol
    return _run(protocol(Scorer(), item, text, Result(id=item.id, mode="reward", status="ok", prediction=text)))


def _run(awaitable: Awaitable[Any]) -> Any:
    """Return the result of a protocol's awaitable run to its end, also from inside a running event loop (on a
    worker thread then)."""

    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, wait()).result()


def _items(columns: Mapping[str, Any], count: int) -> list[Item]:
    values = columns.get("item")
    if values is None:
        raise ValueError("mcot.rewards needs the dataset's `item` column: train on an `mcot export --as trl` dataset")
    items = [item_from_row(value) for value in values]
    if len(items) != count:
        raise ValueError(f"{count} completions but {len(items)} items: pass the columns as TRL does")
    return items


def accuracy(completions: Sequence[Any], **columns: Any) -> list[float]:
    """Return 1.0 per completion whose final answer the benchmark's official protocol scores correct, else 0.0."""
    items = _items(columns, len(completions))
    return [
        1.0 if score_answer(item, final_text(c)).correct is True else 0.0
        for item, c in zip(items, completions, strict=True)
    ]


def answer_format(completions: Sequence[Any], **columns: Any) -> list[float]:
    """Return 1.0 per completion from which the benchmark's official protocol reads an answer, else 0.0."""
    items = _items(columns, len(completions))
    return [
        1.0 if score_answer(item, final_text(c)).extracted not in (None, "") else 0.0
        for item, c in zip(items, completions, strict=True)
    ]


def drawing(completions: Sequence[Any], environments: Sequence[Any] | None = None, **columns: Any) -> list[float]:
    """Return per completion the trace verifier's verdict on its rollout's drawing: 1.0 valid, else 0.0 (0.0 too
    without an environment, or where the task has no verifier)."""
    rewards = []
    for k in range(len(completions)):
        episode = (
            getattr(environments[k], "episode", None) if environments is not None and k < len(environments) else None
        )
        rewards.append(episode.reward() if episode is not None else 0.0)
    return rewards


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: Mapping[str, Any] | None = None, **kwargs: Any
) -> float:
    """Return verl's reward of a response: 1.0 when the benchmark's official protocol scores it correct, else 0.0.

    The item comes from `extra_info["item"]` (an `mcot export --as verl` row); without it, an item of benchmark
    `data_source` with answer `ground_truth` is scored by the generic rules of its answer (a text answer).
    """

    raw = (extra_info or {}).get("item")
    if raw is not None:
        item = item_from_row(raw)
    else:
        item = Item(
            id="verl",
            benchmark=str(data_source),
            category="",
            question="",
            answer=str(ground_truth),
            answer_type="text",
        )
    return 1.0 if score_answer(item, str(solution_str or "")).correct is True else 0.0
