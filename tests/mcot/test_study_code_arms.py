"""`mcot study` with the code arms beside text: a local model reads each figure's width with a cell and answers from
what the cell printed; the study's table, its "Code use" table (cells, failures by type, replays) and its flags are
checked by hand."""

from __future__ import annotations

import json
import re
from io import BytesIO
from pathlib import Path

import pytest
from local_models import Agent, FakeProvider, Reply, RequestInfo
from mcot.tools.code.sandbox import sandbox_problem
from PIL import Image

from mcot.commands.study import run_study_command
from mcot.core.item import Item, write_items

pytestmark = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")

WIDTHS = (20, 30, 40)  # item i's figure is WIDTHS[i] pixels wide: choice A, B or C
QUESTION = re.compile(r"How wide \(q(\d)\)")


class Measurer(Agent):
    """In text: answers A. In a code arm: first a cell that fails (`1 / 0`), then one that prints the figure's width,
    then the choice of the width printed."""

    def answer(self, request: RequestInfo) -> Reply:
        """Return the next cell or the answer."""
        body = request.body
        if not body.get("tools"):
            return Reply("\\boxed{A}")
        cells = ["1 / 0", "print(image.width)"]
        if request.turn < len(cells):
            return Reply("", tool_calls=[("python", {"code": cells[request.turn]})])
        printed = re.findall(r"\[stdout\]\\n(\d+)", json.dumps(body["messages"]))
        letter = "ABC"[WIDTHS.index(int(printed[-1]))]
        return Reply(f"\\boxed{{{letter}}}")


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("code-study")
    items = []
    for i, width in enumerate(WIDTHS):
        buffer = BytesIO()
        Image.new("RGB", (width, 10), "white").save(buffer, format="PNG")
        item = Item(id=f"q{i}", benchmark="toy", category="width", question=f"How wide (q{i})?",
                    images=[f"images/q{i}.png"], choices=["20", "30", "40"], answer="ABC"[i], answer_type="choice")  # fmt: skip
        items.append((item, {f"images/q{i}.png": buffer.getvalue()}))
    write_items(root / "toy", items)
    with FakeProvider(default=Measurer()) as server:
        (root / "STUDY.toml").write_text(
            f'data = ["{root / "toy"}"]\narms = ["text", "code", "code+canvas"]\nseed = 0\nmax_steps = 4\n'
            f'concurrency = 2\n\n[[model]]\nspec = "openai-compatible:measurer"\nname = "measurer"\n'
            f'base_url = "{server.openai_url}"\n'
        )
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("OPENAI_API_KEY", "sk-local-not-a-key")
            assert run_study_command(root / "STUDY.toml", root / "out") == 0
    return root / "out"


def test_the_study_table_has_the_code_arms_beside_text(study: Path) -> None:
    md = (study / "study.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith("| measurer | "))
    # text is right on q0 only (it answers A); both code arms on all three (Wilson intervals of 1/3 and 3/3)
    assert row.startswith("| measurer | 33.3 [6.1, 79.2] n 3 | 100.0 [43.9, 100.0] n 3 | 100.0 [43.9, 100.0] n 3 |")
    assert row.count("+66.7 [-45.6, +66.7] exact, p 0.5") == 2


def test_the_code_use_table_counts_cells_failures_and_replays(study: Path) -> None:
    md = (study / "study.md").read_text(encoding="utf-8")
    table = md.split("### Code use — measurer", 1)[1]
    rows = [line for line in table.splitlines() if line.startswith("| code")]
    assert rows[:2] == [
        "| code | 3 | 3 | 6 | 2 | 50.0 | ZeroDivisionError 50.0 | 0 | 0 | 0 | 3 of 3 |",
        "| code+canvas | 3 | 3 | 6 | 2 | 50.0 | ZeroDivisionError 50.0 | 0 | 0 | 0 | 3 of 3 |",
    ]
    assert "## Flags" not in md  # half the cells failed: a flag is for calls that mostly fail
