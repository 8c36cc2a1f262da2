"""Fixtures of the agents tests: a small items directory, a toolbox over the real canvas, fake sleeps."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from mcot.agents.retry import RetryPolicy
from mcot.agents.toolbox import ToolOutcome
from PIL import Image, ImageDraw

from mcot.core.item import Item

_POINT = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
_SCHEMAS: dict[str, dict[str, Any]] = {
    "draw_line": {"type": "object", "properties": {"start": _POINT, "end": _POINT}, "required": ["start", "end"]},
    "mark_point": {"type": "object", "properties": {"at": _POINT}, "required": ["at"]},
    "zoom": {
        "type": "object",
        "properties": {"region": {"type": "array", "items": {"type": "number"}}},
        "required": ["region"],
    },
    "boom": {"type": "object", "properties": {}},
}


class CanvasToolbox:
    """A four-tool toolbox over the real canvas: two drawings, a zoom that returns an image, one that raises."""

    def names(self) -> tuple[str, ...]:
        return tuple(_SCHEMAS)

    def schemas(self, flavor: str, names: tuple[str, ...]) -> list[dict[str, Any]]:
        out = []
        for name in names:
            if flavor == "anthropic":
                out.append({"name": name, "description": f"{name} tool", "input_schema": _SCHEMAS[name]})
            else:
                function = {"name": name, "description": f"{name} tool", "parameters": _SCHEMAS[name]}
                if flavor == "openai":
                    function["strict"] = False
                out.append({"type": "function", "function": function})
        return out

    def call(self, name: str, arguments: dict[str, Any], canvas: Any) -> ToolOutcome:
        if name == "boom":
            raise RuntimeError("the boom tool always fails")
        if name == "zoom":
            buffer = io.BytesIO()
            canvas.zoom(arguments["region"], 2.0).save(buffer, format="PNG")
            return ToolOutcome(True, "zoomed", image=buffer.getvalue())
        if name == "draw_line":
            element = canvas.draw_line(arguments["start"], arguments["end"])
        else:
            element = canvas.mark_point(arguments["at"])
        return ToolOutcome(True, f"drew {element}", {"id": element}, [element])


@pytest.fixture
def toolbox() -> CanvasToolbox:
    return CanvasToolbox()


def write_items(root: Path, *, benchmark: str = "rbench-v", answer: str = "3", meta: dict | None = None) -> Item:
    """Write a one-item directory with a 320×240 image; return the item."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    image = Image.new("RGB", (320, 240), "white")
    ImageDraw.Draw(image).rectangle([40, 40, 120, 100], outline="black", width=3)
    image.save(root / "images" / "q1.png")
    item = Item(
        id="q1",
        benchmark=benchmark,
        category="math",
        question="How many rectangles are in the figure?",
        images=["images/q1.png"],
        answer=answer,
        answer_type="number",
        meta=meta or {},
    )
    (root / "items.jsonl").write_text(item.to_json_line() + "\n", encoding="utf-8")
    return item


@pytest.fixture
def item_dir(tmp_path: Path) -> tuple[Item, Path]:
    root = tmp_path / "items"
    return write_items(root), root


class FakeSleep:
    """Records the waits a retry policy asks for without waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def fake_sleep() -> FakeSleep:
    return FakeSleep()


@pytest.fixture
def quick_retry(fake_sleep: FakeSleep) -> RetryPolicy:
    return RetryPolicy(max_tries=4, base_delay_s=0.5, sleep=fake_sleep)


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {"OPENAI_API_KEY": "sk-test-SECRETKEY123456", "ANTHROPIC_API_KEY": "sk-ant-test_SECRETKEY_fake_654321"}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    return values


def scripted_file(path: Path, turns: list[dict[str, Any]]) -> str:
    """Write a scripted model file; return its spec."""
    path.write_text(json.dumps(turns), encoding="utf-8")
    return f"scripted:{path}"


@pytest.fixture
def make_items() -> Any:
    return write_items


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    counter = iter(range(1000))

    def make(turns: list[dict[str, Any]]) -> str:
        return scripted_file(tmp_path / f"script{next(counter)}.json", turns)

    return make
