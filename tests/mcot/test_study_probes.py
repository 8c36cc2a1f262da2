"""`mcot study` with a `[probes]` table: two local models (one reads its last image, one ignores images) probed
after their runs are scored; probes.jsonl per model, the study report's probe table, a rerun that asks nothing,
a failing probe endpoint (exit 3), a budget (exit 4) and a bad table (one line). `mcot probe` on a scored run
rewrites its report's probe table."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from mcot.eval.scoring import score_run
from PIL import Image

from mcot.commands.probe import run_probe
from mcot.commands.study import run_study_command
from mcot.core.errors import UsageError
from mcot.core.item import Item, write_items
from mcot.core.rundir.probes import PROBES, read_probes
from mcot.runconfig import RunConfig
from mcot.runner import run_items
from mcot.study.config import read_study
from mcot.testing import Fail, FakeProvider, Reply, has_red, last_image

ANSWERS = {"q1": "A", "q2": "A", "q3": "B", "q4": "A"}
LINE = ("draw_line", {"start": [4, 4], "end": [40, 30]})


def _png() -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (64, 48), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def _first_turn(body: dict[str, Any]) -> bool:
    return bool(body.get("tools")) and not any(m["role"] == "assistant" for m in body["messages"])


def looker(body: dict[str, Any]) -> Reply:
    """Draws a red line, then answers A when the last image it sees holds red (B without the drawing)."""
    if _first_turn(body):
        return Reply("Let me mark it.", tool_calls=[LINE])
    return Reply("\\boxed{A}" if has_red(last_image(body)) else "\\boxed{B}")


def ignorer(body: dict[str, Any]) -> Reply:
    """Draws the same line, then answers A whatever it sees."""
    return Reply("Let me mark it.", tool_calls=[LINE]) if _first_turn(body) else Reply("\\boxed{A}")


@pytest.fixture
def items_dir(tmp_path: Path) -> Path:
    items = [
        (
            Item(
                id=item_id,
                benchmark="gepbench",
                category="counting",
                question="How many circles are there?",
                images=[f"images/{item_id}.png"],
                choices=["1", "2"],
                answer=answer,
                answer_type="choice",
            ),
            {f"images/{item_id}.png": _png()},
        )
        for item_id, answer in ANSWERS.items()
    ]
    write_items(tmp_path / "items", items)
    return tmp_path / "items"


def study_file(tmp_path: Path, items: Path, models: list[tuple[str, str, str]], probes: str) -> Path:
    """Write a STUDY.toml over `items` (canvas only) with a model per (name, spec, url) and a `[probes]` table."""
    text = f'data = ["{items}"]\narms = ["canvas"]\nconcurrency = 1\nmax_tries = 1\n\n{probes}\n'
    for name, spec, url in models:
        text += f'\n[[model]]\nspec = "{spec}"\nname = "{name}"\nbase_url = "{url}"\nkey_env = "STUDY_PROBE_KEY"\n'
    path = tmp_path / "STUDY.toml"
    path.write_text(text)
    return path


PROBES_TABLE = '[probes]\narms = ["canvas"]\nkinds = ["blank", "shuffle"]'


def test_a_study_probes_each_models_run_and_a_rerun_asks_nothing(
    tmp_path: Path, items_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUDY_PROBE_KEY", "sk-local-test")
    with FakeProvider(default=looker) as first, FakeProvider(default=ignorer) as second:
        models = [("looks", "openai-compatible:a", first.openai_url), ("ignores", "openai-compatible:b",
                  second.openai_url)]  # fmt: skip
        study = study_file(tmp_path, items_dir, models, PROBES_TABLE)
        out = tmp_path / "study"
        assert run_study_command(study, out) == 0
        for name in ("looks", "ignores"):
            probes = read_probes(out / "runs" / name)
            assert len(probes) == 2 * len(ANSWERS) and {p.status for p in probes} == {"ok"}
        blank = {p.id: p for p in read_probes(out / "runs" / "looks") if p.kind == "blank"}
        assert all(p.changed and p.extracted == "B" for p in blank.values())
        assert not any(p.changed for p in read_probes(out / "runs" / "ignores"))
        md = (out / "study.md").read_text(encoding="utf-8")
        assert "### Faithfulness probes" in md
        # looks: 4 pairs, all changed under blank; right unprobed q1 q2 q4 (75 %), blank right q3 (25 %)
        assert "| looks | canvas | gepbench | blank | 4 | 0 | 0 | 75.0 | 25.0 |" in md
        assert "| ignores | canvas | gepbench | blank | 4 | 0 | 0 | 75.0 | 75.0 |" in md
        asked = len(first.requests), len(second.requests)
        assert run_study_command(study, out) == 0
        assert (len(first.requests), len(second.requests)) == asked  # runs and probes all done: nothing asked


def test_a_failing_probe_endpoint_exits_3_with_the_report_written(
    tmp_path: Path, items_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("STUDY_PROBE_KEY", "sk-local-test")
    with FakeProvider(default=looker) as server:
        study = study_file(tmp_path, items_dir, [("looks", "openai-compatible:a", server.openai_url)],
                           '[probes]\narms = ["canvas"]\nkinds = ["blank"]')  # fmt: skip
        out = tmp_path / "study"
        # the run answers; then every probe call fails
        calls = {"n": 0}

        def flaky(body: dict[str, Any]) -> Reply | Fail:
            calls["n"] += 1
            return looker(body) if calls["n"] <= 2 * len(ANSWERS) else Fail(500)

        server.default = flaky
        assert run_study_command(study, out) == 3
        assert (out / "study.md").is_file()
        errors = [p for p in read_probes(out / "runs" / "looks") if p.status == "error"]
        assert errors and all("500" in (p.error or "") for p in errors)
        assert "probe(s) failed" in capsys.readouterr().err
        server.default = looker  # the endpoint is back: the rerun asks the failed probes again, nothing else
        before = len(server.requests)
        assert run_study_command(study, out) == 0
        assert len(server.requests) - before == len(errors)
        assert {p.status for p in read_probes(out / "runs" / "looks")} == {"ok"}


def test_a_probe_budget_exits_4_with_the_report_written(
    tmp_path: Path, items_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUDY_PROBE_KEY", "sk-local-test")
    with FakeProvider(default=looker) as server:
        # each probe answer: 100 input and 20 output tokens of gpt-4o, $0.00045; three reach $0.001
        study = study_file(tmp_path, items_dir, [("priced", "openai:gpt-4o", server.openai_url)],
                           '[probes]\narms = ["canvas"]\nkinds = ["blank"]\nmax_cost = 0.001')  # fmt: skip
        out = tmp_path / "study"
        assert run_study_command(study, out) == 4
        assert (out / "study.md").is_file()
        assert len(read_probes(out / "runs" / "priced")) == 3


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[probes]\narms = ["canvas"]\nkinds = ["erase"]', r"\[probes\] unknown kind\(s\) erase"),
        ('[probes]\narms = ["tools"]', r"\[probes\] arm\(s\) tools not among the study's arms canvas"),
        ('[probes]\nkinds = ["blank"]', r"\[probes\] `arms` must list"),
        ('[probes]\narms = ["canvas"]\nlimt = 2', r"\[probes\] has unknown key\(s\) limt"),
        ('[probes]\narms = ["canvas"]\nmax_cost = -1', r"\[probes\] `max_cost` must be a positive"),
        ('probes = "canvas"', r"`probes` is a table"),
    ],
)
def test_a_bad_probes_table_is_refused_in_one_line(tmp_path: Path, items_dir: Path, table: str, message: str) -> None:
    study = study_file(tmp_path, items_dir, [("m", "openai-compatible:a", "http://127.0.0.1:9")], table)
    with pytest.raises(UsageError, match=message) as refused:
        read_study(study)
    assert "\n" not in str(refused.value)


def test_the_probes_table_is_read_with_its_defaults(tmp_path: Path, items_dir: Path) -> None:
    study = study_file(tmp_path, items_dir, [("m", "openai-compatible:a", "http://127.0.0.1:9")],
                       '[probes]\narms = ["canvas"]\nseed = 3\nlimit = 2')  # fmt: skip
    probes = read_study(study).probes
    assert probes is not None
    assert (probes.arms, probes.kinds, probes.seed, probes.limit, probes.max_cost) == (
        ("canvas",), ("blank", "shuffle", "perturb"), 3, 2, None
    )  # fmt: skip


def test_mcot_probe_rewrites_the_probe_table_of_a_scored_runs_report(tmp_path: Path, items_dir: Path) -> None:
    with FakeProvider(default=looker) as server:
        config = RunConfig(data=items_dir, model="openai-compatible:a", base_url=[server.openai_url],
                           out=tmp_path / "run", mode="canvas", concurrency=1)  # fmt: skip
        assert run_items(config, quiet=True).done == len(ANSWERS)
        score_run(config.out, figures=False)
        report = config.out / "report.md"
        assert "### Faithfulness probes" not in report.read_text(encoding="utf-8")
        assert run_probe(config.out, arm="canvas", kinds="blank") == 0
        text = report.read_text(encoding="utf-8")
        assert text.count("### Faithfulness probes") == 1 and "| canvas | gepbench | blank | 4 |" in text
        assert run_probe(config.out, arm="canvas", kinds="shuffle") == 0
        text = report.read_text(encoding="utf-8")
        assert text.count("### Faithfulness probes") == 1 and "| canvas | gepbench | shuffle | 4 |" in text
        assert "| canvas | gepbench | blank | 4 |" in text
    assert (config.out / PROBES).is_file()
