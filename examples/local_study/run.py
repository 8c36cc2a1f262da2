"""A four-model study against local model servers on 127.0.0.1 — no network, no key, no GPU — that fills every
section of the study report: the headline with pooled effects, repeated samples (pass@k, majority, stability,
pooled per-item means), faithfulness probes, cost and efficiency (two of the models are priced OpenAI names).

    python examples/local_study/run.py OUT        # then open OUT/study/study.html (or read OUT/study/study.md)

The four servers are `mcot.testing.FakeProvider`s answering GePBench-style two-choice items from rules a reader
can check by hand: `looks` draws a red line and is right only when it sees red in its last image (so removing
the drawing flips it), `ignores` draws the same line and answers from a seeded coin, `text-strong` and
`text-weak` never use tools and answer from seeded coins of 0.8 and 0.4. Items share a figure two by two, so
GePBench's cluster key (the figure) groups them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from io import BytesIO
from pathlib import Path
from typing import Any

from PIL import Image

from mcot.commands.study import run_study_command
from mcot.core.item import Item, write_items
from mcot.testing import FakeProvider, Reply, has_red, last_image

ITEMS = 12
LINE = ("draw_line", {"start": [4, 4], "end": [40, 30]})


def answer_of(index: int) -> str:
    """Return the right letter of item `index`."""
    return "AB"[index % 2]


def coin(body: dict[str, Any], item_id: str, p: float) -> bool:
    """Return a seeded coin with P(True) = p for this request's seed, model and item."""
    key = f"{body.get('seed')}:{body.get('model')}:{item_id}"
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 16**8 < p


def item_of(body: dict[str, Any]) -> tuple[str, int]:
    """Return the id and index of the item a request is about (its question names it)."""
    text = json.dumps(body["messages"])
    index = next(i for i in range(ITEMS) if f"Item q{i}." in text)
    return f"q{index}", index


def reply(body: dict[str, Any], right: bool, index: int) -> Reply:
    """Return the final answer: the right letter, or the other one."""
    letter = answer_of(index) if right else "BA"[index % 2]
    return Reply(f"\\boxed{{{letter}}}", usage=(900, 60))


def drawing_model(looks: bool):
    """Return a model that draws one red line in an arm with tools, then answers (from the drawing, or a coin)."""

    def answer(body: dict[str, Any]) -> Reply:
        item_id, index = item_of(body)
        if body.get("tools") and not any(m["role"] == "assistant" for m in body["messages"]):
            return Reply("Let me mark it.", tool_calls=[LINE])
        if looks and body.get("tools"):
            return reply(body, has_red(last_image(body)) and coin(body, item_id, 0.9), index)
        return reply(body, coin(body, item_id, 0.5), index)

    return answer


def coin_model(p: float):
    """Return a model that never uses tools and is right with probability p."""

    def answer(body: dict[str, Any]) -> Reply:
        item_id, index = item_of(body)
        return reply(body, coin(body, item_id, p), index)

    return answer


def write_data(folder: Path) -> Path:
    """Write the study's items: GePBench-style two-choice questions, two per figure."""
    buffer = BytesIO()
    Image.new("RGB", (64, 48), "white").save(buffer, format="PNG")
    items = [
        (
            Item(id=f"q{i}", benchmark="gepbench", category="counting", question=f"Item q{i}. How many circles?",
                 images=[f"images/f{i // 2}.png"], choices=["1", "2"], answer=answer_of(i), answer_type="choice",
                 meta={"level": "easy", "image_id": f"f{i // 2}"}),
            {f"images/f{i // 2}.png": buffer.getvalue()},
        )
        for i in range(ITEMS)
    ]
    write_items(folder, items)
    return folder


def main(out: Path) -> int:
    """Run the study under OUT/study; return its exit code."""
    items = write_data(out / "items")
    os.environ["LOCAL_STUDY_KEY"] = "sk-local"  # the local servers take any key; it never leaves 127.0.0.1
    models = {"looks": ("openai:gpt-4o", drawing_model(True)), "ignores": ("openai:gpt-4o-mini", drawing_model(False)),
              "text-strong": ("openai-compatible:strong", coin_model(0.8)),
              "text-weak": ("openai-compatible:weak", coin_model(0.4))}  # fmt: skip
    servers = {name: FakeProvider(default=agent) for name, (_, agent) in models.items()}
    try:
        text = (f'data = ["{items}"]\narms = ["text", "canvas"]\nsamples = 3\nseed = 1\ntemperature = 0.7\n'
                'concurrency = 4\n\n[probes]\narms = ["canvas"]\nkinds = ["blank", "shuffle"]\n')  # fmt: skip
        for name, (spec, _) in models.items():
            server = servers[name].__enter__()
            text += (f'\n[[model]]\nspec = "{spec}"\nname = "{name}"\nbase_url = "{server.openai_url}"\n'
                     'key_env = "LOCAL_STUDY_KEY"\n')  # fmt: skip
        (out / "STUDY.toml").write_text(text)
        return run_study_command(out / "STUDY.toml", out / "study")
    finally:
        for server in servers.values():
            server.__exit__(None, None, None)


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "local-study")))
