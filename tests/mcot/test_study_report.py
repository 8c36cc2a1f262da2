"""The study report across models: four local models × text and canvas on eight items, whose pooled effect,
model-vs-model Holm values and tool flags are checked by hand."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from local_models import Agent, FakeProvider, Reply, RequestInfo
from mcot.eval.headline import Metric

from mcot.commands.study import run_study_command
from mcot.core.item import Item, write_items
from mcot.core.rundir import Score, read_scores
from mcot.study.flags import ArmCalls, ToolCalls, error_reason, tool_flags, tool_name
from mcot.study.pooled import model_effect, pooled_effects
from mcot.study.versus import model_differences

ITEMS = 8
TEXT_RIGHT = {"m0": {0, 1, 2}, "m1": {0, 1}, "m2": {0}, "m3": set(range(8))}
CANVAS_RIGHT = {"m0": {0, 1, 2}, "m1": {0, 1, 2, 3, 4, 5}, "m2": {0, 1, 2}, "m3": {0, 1, 2, 3, 4, 5}}
QUESTION = re.compile(r"Pick one \(q(\d+)\)")


class Scripted(Agent):
    """Answers C (right) on the items of its arm's set and A elsewhere; on the first turn of the canvas arm it
    may first call a tool: `zoom` with a wrong argument name, or `measure_distance`, which the arm does not offer."""

    def __init__(self, name: str, first_call: tuple[str, dict[str, object]] | None = None) -> None:
        self.name = name
        self.first_call = first_call

    def answer(self, request: RequestInfo) -> Reply:
        """Return the scripted tool call or the answer for the item the request asks about."""
        found = QUESTION.search(json.dumps(request.body.get("messages")))
        assert found is not None
        canvas = bool(request.body.get("tools"))
        if canvas and request.turn == 0 and self.first_call is not None:
            return Reply("Let me look.", tool_calls=[self.first_call])
        right = (CANVAS_RIGHT if canvas else TEXT_RIGHT)[self.name]
        return Reply("\\boxed{C}" if int(found.group(1)) in right else "\\boxed{A}")


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Run the four-model study once; yield its folder."""
    root = tmp_path_factory.mktemp("study-report")
    items: list[tuple[Item, dict[str, bytes]]] = [
        (Item(id=f"q{i}", benchmark="toy", category="a" if i < 4 else "b", question=f"Pick one (q{i}).", images=[],
              choices=["w", "x", "y", "z"], answer="C", answer_type="choice"), {})
        for i in range(ITEMS)
    ]  # fmt: skip
    write_items(root / "toy", items)
    agents = {
        "m0": Scripted("m0"),
        "m1": Scripted("m1"),
        "m2": Scripted("m2", ("zoom", {"area": [0, 0, 10, 10], "factor": 2})),
        "m3": Scripted("m3", ("measure_distance", {"a": [0, 0], "b": [3, 4]})),
    }
    servers = {name: FakeProvider(default=agent) for name, agent in agents.items()}
    for server in servers.values():
        server.start()
    try:
        models = "".join(
            f'\n[[model]]\nspec = "openai-compatible:{name}"\nname = "{name}"\nbase_url = "{server.openai_url}"\n'
            for name, server in servers.items()
        )
        (root / "STUDY.toml").write_text(
            f'data = ["{root / "toy"}"]\narms = ["text", "canvas"]\nseed = 0\nmax_steps = 3\nconcurrency = 4\n{models}'
        )
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("OPENAI_API_KEY", "sk-local-not-a-key")
            assert run_study_command(root / "STUDY.toml", root / "out") == 0
    finally:
        for server in servers.values():
            server.stop()
    yield root / "out"


def scores_of(out: Path) -> dict[str, list[Score]]:
    """Return each model's scores, in the study's order."""
    return {name: read_scores(out / "runs" / name) for name in ("m0", "m1", "m2", "m3")}


def test_the_pooled_effect_is_the_hand_computed_weighted_mean_and_interval(study: Path) -> None:
    (effect,) = pooled_effects(scores_of(study))
    assert (effect.benchmark, effect.metric, effect.arm) == ("toy", "Overall", "canvas")
    pooled = effect.pooled
    # per model (up, down) of 8 pairs: m0 (0, 0), m1 (4, 0), m2 (2, 0), m3 (0, 2): Δ 0, +1/2, +1/4, −1/4
    assert [(s.stratum, s.n, s.effect) for s in pooled.strata] == [
        ("m0", 8, 0.0), ("m1", 8, 0.5), ("m2", 8, 0.25), ("m3", 8, -0.25)
    ]  # fmt: skip
    assert pooled.weights == (0.25,) * 4 and pooled.estimate == pytest.approx(0.125)
    # ½ added to each cell (n' = 10): m0 (0.1 − 0)/10, m1 (0.5 − 0.4²)/10, m2 and m3 (0.3 − 0.2²)/10
    variances = [0.01, 0.034, 0.026, 0.026]
    se = math.sqrt(sum(v / 16 for v in variances))
    assert pooled.se == pytest.approx(se)
    assert pooled.low == pytest.approx(0.125 - 1.959963984540054 * se)
    assert pooled.high == pytest.approx(0.125 + 1.959963984540054 * se)
    assert pooled.p_value == pytest.approx(math.erfc(0.125 / se / math.sqrt(2)))
    md = (study / "study.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith("| canvas | +12.5 |"))
    assert row.endswith("| +0.0 (n 8) | +50.0 (n 8) | +25.0 (n 8) | -25.0 (n 8) |")
    assert f"[{100 * pooled.low:+.1f}, {100 * pooled.high:+.1f}]" in row


def test_model_against_model_has_the_hand_computed_mcnemar_and_holm_values(study: Path) -> None:
    found = {(d.arm, d.second, d.first): d for d in model_differences(scores_of(study))}
    # (arm, later, earlier): discordant pairs later-right/earlier-right → exact McNemar p = 2 Σ_{i ≤ min} C(d, i)/2^d
    raw = {
        ("text", "m1", "m0"): 1.0, ("text", "m2", "m0"): 0.5, ("text", "m3", "m0"): 2 / 32,
        ("text", "m2", "m1"): 1.0, ("text", "m3", "m1"): 2 / 64, ("text", "m3", "m2"): 2 / 128,
        ("canvas", "m1", "m0"): 0.25, ("canvas", "m2", "m0"): 1.0, ("canvas", "m3", "m0"): 0.25,
        ("canvas", "m2", "m1"): 0.25, ("canvas", "m3", "m1"): 1.0, ("canvas", "m3", "m2"): 0.25,
    }  # fmt: skip
    assert {key: d.difference.p_value for key, d in found.items()} == pytest.approx(raw)
    # Holm over the 12: 1/64·12, then max(that, 1/32·11), 1/16·10, and 0.25·9 > 1 for the rest
    holm = dict.fromkeys(raw, 1.0)
    holm.update({("text", "m3", "m2"): 0.1875, ("text", "m3", "m1"): 0.34375, ("text", "m3", "m0"): 0.625})
    assert {key: d.p_holm for key, d in found.items()} == pytest.approx(holm)
    assert found[("text", "m3", "m2")].difference.value == pytest.approx(7 / 8)
    md = (study / "study.md").read_text(encoding="utf-8")
    assert "| text | m3 − m2 | 8 | +87.5 |" in md and "| 0.0156 | 0.188 |" in md


def test_the_tool_flags_name_the_failing_tool_its_error_and_the_tool_not_offered(study: Path) -> None:
    md = (study / "study.md").read_text(encoding="utf-8")
    flags = md[md.index("## Flags") : md.index("\n## toy")]
    assert (
        "- model m2, arm canvas: 8 of 8 `zoom` calls failed (unknown argument 'area', missing argument "
        "'region': 8)" in flags.replace("\\", "")
    )
    assert "model m3, arm canvas: 8 call(s) of tools the arm did not offer, in 8 pair(s) (`measure_distance` 8" in (
        flags.replace("\\", "")
    )
    # the low call rate of the models that never called a tool is flagged there too (mcot.eval.tool_use)
    assert "- model m0: the canvas arm called a tool in 0 of 8 pairs" in flags
    assert "m1: the canvas arm called a tool in 0 of 8 pairs" in flags and "model m1, arm" not in flags
    assert error_reason("tool 'x' is not offered in this arm (canvas); the available tools are: a") == (
        "not offered in this arm"
    )


def test_the_report_puts_the_answer_first_and_categories_below(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md = (study / "study.md").read_text(encoding="utf-8")
    order = [
        "## The answer",
        "### toy — Overall",
        "each arm − text, pooled over the models",
        "## Flags",
        "### toy — accuracy per category",
        "model against model in each arm",
        "## Details",
    ]
    assert [md.index(heading) for heading in order] == sorted(md.index(heading) for heading in order)
    # per category: m1's canvas arm is right on q0–q3 (a) and q4–q5 of q4–q7 (b)
    assert "| m1 | canvas | 75.0 | 100.0 | 50.0 | 8 | 0 | 0 | 0 |" in md
    page = (study / "study.html").read_text(encoding="utf-8")
    assert page.index("pooled over the models") < page.index("accuracy per category") < page.index("<h2>Details</h2>")
    with capsys.disabled():  # the answer and the flags, for the closing note (see the test output with -s)
        print(md[md.index("## The answer") : md.index("\n## toy")])


def test_a_tool_is_flagged_from_three_calls_when_more_than_half_failed() -> None:
    def arm(**tools: tuple[int, int]) -> ArmCalls:
        entry = ArmCalls("canvas", ("zoom", "draw_line", "undo"))
        for name, (calls, failed) in tools.items():
            entry.tools[name] = ToolCalls(calls, failed, Counter({"unknown argument 'factor'": failed}))
        return entry

    assert tool_flags("m", [arm(zoom=(2, 2))]) == []  # two calls are not a pattern
    assert tool_flags("m", [arm(zoom=(4, 2))]) == []  # half is not "mostly"
    assert tool_flags("m", [arm(zoom=(3, 2), draw_line=(5, 0))]) == [
        "model m, arm canvas: 2 of 3 `zoom` calls failed (\ue000unknown argument 'factor'\ue001: 2)"
    ]
    # failures spread over tools that each have too few calls: the arm as a whole, by tool
    assert tool_flags("m", [arm(zoom=(2, 2), undo=(2, 1))]) == [
        "model m, arm canvas: 3 of 4 tool calls failed (`zoom` 2/2, `undo` 1/2)"
    ]


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        ("zoom: invalid arguments: `factr` is not an argument of this tool. Arguments: region, factor?", "unknown argument 'factr'"),
        ("there is no tool named 'paint'. Did you mean draw_line?", "no such tool"),
        ("the arguments of zoom cannot be used: not JSON; send one JSON object", "arguments not one JSON object"),
        ("tool zoom failed: ValueError: the region is empty. Try again", "tool zoom failed: ValueError: the region is empty."),
    ],
)  # fmt: skip
def test_error_reasons_are_the_same_for_calls_that_failed_alike(error: str, reason: str) -> None:
    assert error_reason(error) == reason


def test_a_composite_metric_pools_its_own_difference_with_a_bootstrap_variance() -> None:
    mean = Metric("mean", value=lambda scores: sum(s.score or 0.0 for s in scores) / len(scores) if scores else None)

    def scores(arm: str, values: list[float]) -> list[Score]:
        return [
            Score(id=f"q{i}", mode=arm, benchmark="toy", category="a", score=v, correct=v > 0.5, method="rule")
            for i, v in enumerate(values)
        ]

    found = model_effect("m", mean, scores("text", [0, 0.5, 1, 0]), scores("canvas", [1, 0.5, 1, 0.5]))
    assert found is not None and (found.n, found.effect) == (4, pytest.approx(0.375))
    # the bootstrap variance of a mean of the differences (1, 0, 0, ½) is close to their variance / n
    assert found.variance == pytest.approx(0.171875 / 4, rel=0.15)
    # every item moved alike: no bootstrap variance, so a proportion's with no discordant pair, 1/(n + 2)²
    same = model_effect("m", mean, scores("text", [0, 0, 0, 0]), scores("canvas", [0.5] * 4))
    assert same is not None and same.effect == 0.5 and same.variance == pytest.approx(1 / 36)


def test_a_tool_name_a_model_chose_cannot_break_out_of_its_code_span() -> None:
    assert tool_name("zo`om\n<b>" + "x" * 100) == "`zoom<b>" + "x" * 53 + "`"
