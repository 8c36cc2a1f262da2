"""A two-model study against local model servers on 127.0.0.1 across text, canvas, code and code+canvas — no
network, no key, no GPU — whose code arms run real cells in mcot's sandbox.

    python examples/local_study/code_arms.py OUT    # then read OUT/study/study.md (or open OUT/study/study.html)

The items are GePBench-style counting questions: each figure holds one to four red dots, the answer is their
number. Both servers are `mcot.testing.FakeProvider`s with rules a reader can check by hand:

- `counter`: in the text arm it answers from a seeded coin of 0.4; in the canvas arm it draws a line and answers
  from a coin of 0.5; in the code arms it sends one cell that counts the red runs of the figure's middle row and
  answers the number the cell printed (in `code+canvas` it draws the line first);
- `fumbler`: the same in text and canvas; in the code arms its first cell divides by zero and its second names a
  variable it never set, then it answers from a coin of 0.5 — so the study's "Code use" table has failed cells.

The study needs the code sandbox (bubblewrap, brought by `pip install -e .`); without it `mcot study` refuses the
code arms in one line.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from mcot.commands.study import run_study_command
from mcot.core.item import Item, write_items
from mcot.testing import FakeProvider, Reply

ITEMS = 12
LETTERS = "ABCD"
LINE = ("draw_line", {"start": [2, 2], "end": [20, 2]})
COUNT_CELL = (
    "row = np.asarray(image)[image.height // 2]\n"
    "red = (row[:, 0] > 200) & (row[:, 1] < 80)\n"
    "print(int(red[0]) + int(np.sum(red[1:] & ~red[:-1])))"
)
BROKEN_CELLS = ("counts = 1 / 0", "print(counts)")


def dots_of(index: int) -> int:
    """Return how many red dots the figure of item `index` holds (one to four)."""
    return 1 + (index * 7 + 3) % 4


def coin(body: dict[str, Any], item_id: str, p: float) -> bool:
    """Return a seeded coin with P(True) = p for this request's seed, model, arm tools and item."""
    tools = ",".join(sorted(t["function"]["name"] for t in body.get("tools") or []))
    key = f"{body.get('seed')}:{body.get('model')}:{tools}:{item_id}"
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 16**8 < p


def item_of(body: dict[str, Any]) -> tuple[str, int]:
    """Return the id and index of the item a request is about (its question names it)."""
    text = json.dumps(body["messages"])
    index = next(i for i in range(ITEMS) if f"Item q{i}." in text)
    return f"q{index}", index


def offered(body: dict[str, Any]) -> set[str]:
    """Return the names of the tools a request offers."""
    return {tool["function"]["name"] for tool in body.get("tools") or []}


def tool_texts(body: dict[str, Any]) -> list[str]:
    """Return the text of every tool result in a request, in order."""
    texts = []
    for message in body["messages"]:
        if message["role"] != "tool":
            continue
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        texts.append("".join(part.get("text", "") for part in parts if part.get("type") == "text"))
    return texts


def answer(index: int, count: int | None) -> Reply:
    """Return the final answer: the letter of `count` (None: a wrong letter)."""
    right = dots_of(index)
    letter = LETTERS[(count if count is not None else right % 4 + 1) - 1]
    return Reply(f"There are {count or 'some'} dots. \\boxed{{{letter}}}", usage=(900, 60))


def model(fumbles: bool) -> Callable[[dict[str, Any]], Reply]:
    """Return a model's answering function: the counter (fumbles=False) or the fumbler."""

    def reply(body: dict[str, Any]) -> Reply:
        item_id, index = item_of(body)
        tools, turns = offered(body), sum(m["role"] == "assistant" for m in body["messages"])
        right = dots_of(index)
        if not tools:
            return answer(index, right if coin(body, item_id, 0.4) else None)
        if "python" not in tools:
            if turns == 0:
                return Reply("Let me mark the row.", tool_calls=[LINE])
            return answer(index, right if coin(body, item_id, 0.5) else None)
        cells = BROKEN_CELLS if fumbles else (COUNT_CELL,)
        if turns == 0 and "draw_line" in tools:
            return Reply("Let me mark the row.", tool_calls=[LINE])
        sent = sum(name == "python" for name in _called(body))
        if sent < len(cells):
            return Reply("Let me count with Python.", tool_calls=[("python", {"code": cells[sent]})])
        if fumbles:
            return answer(index, right if coin(body, item_id, 0.5) else None)
        printed = re.search(r"\[stdout\]\n(\d+)", tool_texts(body)[-1])
        count = int(printed.group(1)) if printed else None
        return answer(index, count if count in (1, 2, 3, 4) else None)

    return reply


def _called(body: dict[str, Any]) -> list[str]:
    """Return the names of the tools the conversation has called so far, in order."""
    return [
        call["function"]["name"]
        for message in body["messages"]
        if message["role"] == "assistant"
        for call in message.get("tool_calls") or []
    ]


def write_data(folder: Path) -> Path:
    """Write the study's items: a 96 × 48 white figure each, with its red dots along the middle row."""
    items = []
    for i in range(ITEMS):
        figure = Image.new("RGB", (96, 48), "white")
        draw = ImageDraw.Draw(figure)
        for dot in range(dots_of(i)):
            x = 12 + dot * 22
            draw.ellipse((x - 6, 18, x + 6, 30), fill=(230, 20, 20))
        buffer = BytesIO()
        figure.save(buffer, format="PNG")
        item = Item(id=f"q{i}", benchmark="gepbench", category="counting", question=f"Item q{i}. How many red dots?",
                    images=[f"images/q{i}.png"], choices=["1", "2", "3", "4"], answer=LETTERS[dots_of(i) - 1],
                    answer_type="choice", meta={"level": "easy", "image_id": f"q{i}"})  # fmt: skip
        items.append((item, {f"images/q{i}.png": buffer.getvalue()}))
    write_items(folder, items)
    return folder


def main(out: Path) -> int:
    """Run the study under OUT/study; return its exit code."""
    items = write_data(out / "items")
    os.environ["LOCAL_STUDY_KEY"] = "sk-local"  # the local servers take any key; it never leaves 127.0.0.1
    models = {"counter": model(fumbles=False), "fumbler": model(fumbles=True)}
    servers = {name: FakeProvider(default=agent) for name, agent in models.items()}
    try:
        text = (f'data = ["{items}"]\narms = ["text", "canvas", "code", "code+canvas"]\nseed = 1\n'
                "concurrency = 2\n")  # fmt: skip
        for name, server in servers.items():
            server.start()
            text += (f'\n[[model]]\nspec = "openai-compatible:{name}"\nname = "{name}"\n'
                     f'base_url = "{server.openai_url}"\nkey_env = "LOCAL_STUDY_KEY"\n')  # fmt: skip
        (out / "STUDY.toml").write_text(text)
        return run_study_command(out / "STUDY.toml", out / "study")
    finally:
        for server in servers.values():
            server.stop()


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "local-code-study")))
