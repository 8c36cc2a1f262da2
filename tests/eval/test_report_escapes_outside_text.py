"""report.md escapes text that came from models and raters (issue 29 part 7), as report.html does: a model's
answer or a rater's name cannot open a tag, a link, an image or emphasis in the report a person reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

from handmade import MakeRun, ok
from typer.testing import CliRunner

from mcot.cli import app
from mcot.core.item import Item

HOSTILE = "<img src=x onerror=alert(1)> **loud** [click](https://evil.example) ![i](x.png) `tick` | end"


def _score(*args: str | Path) -> str:
    result = CliRunner().invoke(app, ["score", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def _numeric(i: int) -> Item:
    return Item(id=f"n{i}", benchmark="rbench-v", category="math", question="x?", answer="\\frac{1}{2}",
                answer_type="number")  # fmt: skip


def test_a_hostile_answer_is_escaped_in_report_md(make_run: MakeRun) -> None:
    # official reads no number from the answer, robust reads 0.5: the pair is in "Where the protocols differ"
    run = make_run("run", [_numeric(0)], ["text"], [ok("n0", "text", f"{HOSTILE} So x = \\boxed{{0.5}}")])
    _score(run, "--protocol", "both")
    report = (run / "report.md").read_text(encoding="utf-8")
    row = next(line for line in report.splitlines() if line.startswith("| rbench-v | n0"))
    assert not re.search(r"(?<!\\)[<*\[!`]", row.split(" | ")[3])  # each significant character escaped
    assert "\\<img src=x onerror=alert(1)\\> \\*\\*loud\\*\\* \\[click\\](https://evil.example) \\!\\[i\\]" in row
    html = (run / "report.html").read_text(encoding="utf-8")
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "\ue000" not in report + html  # the marks of outside text never reach a file


def test_a_hostile_rater_name_is_escaped_in_report_md(make_run: MakeRun, tmp_path: Path) -> None:
    items = [Item(id="q0", benchmark="toybench", category="c", question="Which?", choices=["yes", "no"], answer="A",
                  answer_type="choice")]  # fmt: skip
    run = make_run("run", items, ["text"], [ok("q0", "text", "A")])
    ratings = tmp_path / "ratings.json"
    entries = [{"id": "q0", "mode": "text", "dimension": "answer", "value": "right", "t": "2026-12-01T00:00:00Z"}]
    ratings.write_text(json.dumps({"run": "run", "rater": "<b>eve</b>_x_", "ratings": entries}), encoding="utf-8")
    _score(run, "--human", ratings)
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "\\<b\\>eve\\</b\\>\\_x\\_" in report
    html = (run / "report.html").read_text(encoding="utf-8")
    assert "<b>eve</b>" not in html and "&lt;b&gt;eve&lt;/b&gt;_x_" in html
