"""Questions of the GePBench engine (mcot style; test_gepbench_styles.py holds the public style): letter balance,
near-threshold exclusions, grammar, distractors, validator."""

import math
import re
from collections import Counter

import numpy as np
import pytest
from mcot.benchmarks.generators.gepbench import shapes as sh
from mcot.benchmarks.generators.gepbench.engine import FigureResult, make_figure
from mcot.benchmarks.generators.gepbench.labeling import count_components
from mcot.benchmarks.generators.gepbench.placement import Figure
from mcot.benchmarks.generators.gepbench.questions import (
    ASPECTS,
    EDGE_MARGIN,
    SIZE_STEP,
    LetterBalancer,
    Question,
    make_questions,
    surely_false,
)
from mcot.benchmarks.generators.gepbench.render import Style, decode, encode_jpeg, render
from mcot.benchmarks.generators.gepbench.validator import PixelValidator


@pytest.fixture(scope="module")
def results() -> list[FigureResult]:
    """About 2,800 questions: 100 easy and 100 hard figures with one shared balancer, mcot style."""
    balancer = LetterBalancer()
    return [make_figure(level, i, 7, balancer, wording="mcot") for level in ("easy", "hard") for i in range(100)]


def _questions(results: list[FigureResult]) -> list[tuple[FigureResult, Question]]:
    return [(r, q) for r in results for q, _ in r.kept]


def test_letters_are_balanced_overall_and_per_aspect(results: list[FigureResult]) -> None:
    pairs = _questions(results)
    assert len(pairs) >= 1800
    overall = Counter(q.letter for _, q in pairs)
    for letter in "ABCD":
        assert abs(overall[letter] / len(pairs) - 0.25) <= 0.04, overall
    for aspect in ASPECTS:
        counts = Counter(q.letter for _, q in pairs if q.aspect == aspect)
        total = sum(counts.values())
        assert total >= 60, (aspect, total)
        assert all(abs(counts[c] / total - 0.25) <= 0.04 for c in "ABCD"), (aspect, counts)


def test_every_figure_has_most_aspects(results: list[FigureResult]) -> None:
    per_figure = [{q.aspect for q, _ in r.kept} for r in results]
    assert all({"existence", "counting"} <= aspects for aspects in per_figure)
    assert sum(len(a) >= 5 for a in per_figure) >= 0.8 * len(results)


def test_questions_are_well_formed(results: list[FigureResult]) -> None:
    for _, q in _questions(results):
        assert len(q.choices) == 4 and len(set(q.choices)) == 4
        assert 0 <= q.answer < 4
        assert not re.search(r"\ba [aeiou]", q.text), q.text  # "an ellipse", never "a ellipse"
        assert "(not " not in q.text


def test_no_centroid_near_a_border_it_is_judged_against(results: list[FigureResult]) -> None:
    for r, q in _questions(results):
        for check in q.checks:
            if check["check"] != "quadrant":
                continue
            cx, cy = r.figure.shapes[check["shape"]].centroid
            ox, oy = (0.5, 0.5) if check["of"] is None else r.figure.shapes[check["of"]].centroid
            assert abs(cx - ox) >= EDGE_MARGIN and abs(cy - oy) >= EDGE_MARGIN


def test_size_distractors_are_far_from_the_truth(results: list[FigureResult]) -> None:
    seen = 0
    for _, q in _questions(results):
        if q.aspect != "size":
            continue
        seen += 1
        truth = float(q.choices[q.answer])
        others = [float(c) for k, c in enumerate(q.choices) if k != q.answer]
        assert min(abs(v - truth) for v in others) >= SIZE_STEP - 0.011
        assert min([*others, truth]) > 0
    assert seen > 300


def test_counting_choices_are_consecutive_and_shuffled(results: list[FigureResult]) -> None:
    positions: Counter[str] = Counter()
    for _, q in _questions(results):
        if q.aspect != "counting":
            continue
        values = sorted(int(c) for c in q.choices)
        assert values == list(range(values[0], values[0] + 4)) and values[0] >= 0
        positions[q.letter] += 1
    assert min(positions.values()) > 0.2 * sum(positions.values())


def test_counting_answers_match_the_description(results: list[FigureResult]) -> None:
    from mcot.benchmarks.generators.gepbench.vocabulary import TERMS, plural

    by_plural = {plural(t): t for t in TERMS}
    for r, q in _questions(results):
        if q.aspect == "counting":
            term = by_plural[re.match(r"How many (.+?)( \(.*\))? are there", q.text).group(1)]
            assert int(q.choices[q.answer]) == sum(s.kind in TERMS[term] for s in r.figure.shapes)


def test_relation_distractors_are_clearly_false(results: list[FigureResult]) -> None:
    asked = 0
    for _, q in _questions(results):
        if q.aspect != "relationship":
            continue
        asked += 1
        assert q.choices[3] == "none of the above"
    assert asked >= 60


def test_relation_word_checks() -> None:
    line_a = sh.segment((0.1, 0.1), (0.5, 0.1))
    line_b = sh.segment((0.1, 0.3), (0.5, 0.31))  # nearly parallel
    circle = sh.ellipse((0.7, 0.7), 0.1, 0.1, 0.0)
    fig = Figure("easy", [line_a, line_b, circle])
    assert not surely_false("parallel", 0, 1, fig)
    assert surely_false("perpendicular", 0, 1, fig)
    assert surely_false("parallel", 0, 2, fig)  # a circle has no straight edge
    assert surely_false("tangent", 0, 2, fig)  # apart
    assert surely_false("diameter", 0, 2, fig)
    assert not surely_false("similar", 0, 1, fig)  # two segments are similar


def test_validator_measures_a_known_circle() -> None:
    circle = sh.ellipse((0.3, 0.7), 0.2, 0.2, 0.0)
    fig = Figure("easy", [circle])
    style = Style((0,), (2.5,), False, 0.0)
    image = decode(encode_jpeg(render(fig, style, np.random.default_rng(0))))
    assert image.shape == (640, 640)
    v = PixelValidator(image, fig, style.widths)
    m = v.shape(0)
    assert m.span == pytest.approx((0.4, 0.4), abs=0.006)
    assert m.centroid == pytest.approx((0.3, 0.7), abs=0.003)
    assert m.area == pytest.approx(math.pi * 0.04, rel=0.02)
    assert v.coverage(0) == 1.0
    assert v.groups() == 1


def test_validator_coverage_is_per_shape() -> None:
    # outlines are sampled together in one array: each shape's samples must stay its own
    circle = sh.ellipse((0.3, 0.7), 0.15, 0.15, 0.0)
    line = sh.segment((0.2, 0.2), (0.8, 0.25))
    square = sh.regular("square", (0.7, 0.65), 0.12, 4, 0.3)
    fig = Figure("easy", [circle, line, square])
    style = Style((0, 0, 0), (2.5, 2.5, 2.5), False, 0.0)
    image = render(fig, style, np.random.default_rng(0))
    assert PixelValidator(image, fig, style.widths).coverage(1) == 1.0
    erased = image.copy()
    erased[440:530, 100:540] = 255  # the line's rows only (y 0.17-0.31)
    v = PixelValidator(erased, fig, style.widths)
    assert [v.coverage(i) for i in range(3)] == [1.0, 0.0, 1.0]


def test_validator_contradicts_an_erased_shape_and_a_wrong_answer() -> None:
    balancer = LetterBalancer()
    result = make_figure("easy", 3, 7, balancer)
    image = decode(result.image).copy()
    shape = result.figure.shapes[0]
    x0, y0 = (np.floor(shape.array.min(axis=0) * 640)).astype(int)
    x1, y1 = (np.ceil(shape.array.max(axis=0) * 640)).astype(int)
    image[640 - y1 - 3 : 640 - y0 + 3, x0 - 3 : x1 + 3] = 255  # erase the first shape's box
    v = PixelValidator(image, result.figure, result.style.widths)
    counting = [q for q, _ in result.kept if q.aspect == "counting"]
    assert counting and all(v.verdict(q).agree is False for q in counting)
    size = [q for q, _ in result.kept if q.aspect == "size"]
    intact = PixelValidator(decode(result.image), result.figure, result.style.widths)
    for q in size:
        assert intact.verdict(q).agree is True
        other = (q.answer + 1) % 4
        check = dict(q.checks[0], truth=q.checks[0]["values"][other])  # claim a distractor is the truth
        assert intact.verdict(Question(q.aspect, q.text, q.choices, other, [check])).agree is False


def test_validator_agrees_on_nearly_everything(results: list[FigureResult]) -> None:
    checked = sum(1 for r in results for _, v in r.kept + r.dropped if v.agree is not None)
    dropped = sum(len(r.dropped) for r in results)
    assert checked > 1500
    assert dropped / checked < 0.01


def test_component_counts() -> None:
    mask = np.zeros((20, 20), dtype=bool)
    mask[2, 2:8] = True
    mask[3, 8] = True  # diagonal neighbour: same component (8-connected)
    mask[10:15, 10] = True
    mask[18, 18] = True  # a speck
    assert count_components(mask) == 3
    assert count_components(mask, min_size=2) == 2
    assert count_components(np.zeros((5, 5), dtype=bool)) == 0
    edges = np.zeros((4, 6), dtype=bool)
    edges[0, 5] = edges[1, 0] = True  # a row's last pixel and the next row's first are not neighbours
    edges[3, :] = True  # a run spanning a whole row
    assert count_components(edges) == 3


def test_questions_follow_the_balancer_state() -> None:
    fig = make_figure("easy", 0, 1, LetterBalancer()).figure
    for style in ("public", "mcot"):
        a = make_questions(fig, np.random.default_rng(1), LetterBalancer(), style)
        b = make_questions(fig, np.random.default_rng(1), LetterBalancer(), style)
        assert [(q.text, q.choices, q.answer) for q in a] == [(q.text, q.choices, q.answer) for q in b]


def test_frequency_answers_match_the_description(results: list[FigureResult]) -> None:
    from mcot.benchmarks.generators.gepbench.vocabulary import TERMS, plural

    by_plural = {plural(t): t for t in TERMS}
    pattern = re.compile(r"appears (more|less) frequently than (.+?)( \(.*\))?\?$")
    asked = 0
    for r, q in _questions(results):
        match = pattern.search(q.text)
        if not match:
            continue
        asked += 1
        count = {t: sum(s.kind in kinds for s in r.figure.shapes) for t, kinds in TERMS.items()}
        base = count[by_plural[match.group(2)]]

        more = match.group(1) == "more"

        def holds(term: str, count: dict[str, int] = count, base: int = base, more: bool = more) -> bool:
            n = count[term]
            return n > 0 and (n > base if more else n < base)

        assert holds(q.choices[q.answer])
        assert not any(holds(c) for k, c in enumerate(q.choices) if k != q.answer)
    assert asked >= 20
