"""Question styles of the GePBench engine: the public style speaks the released benchmark's phrasing (compared
with the real sample in ../shared/data/gepbench-sample when it is there), both styles ask up to three questions
per aspect, letters stay balanced, and the public words mean the public engine's exclusive types."""

import json
import os
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from mcot.benchmarks.generators.gepbench.engine import NATIVE_FILES, FigureResult, make_figure
from mcot.benchmarks.generators.gepbench.questions import ASPECTS, PER_ASPECT, LetterBalancer, Question
from mcot.benchmarks.generators.gepbench.wording import PUBLIC_RELATIONS, PUBLIC_TERMS, PUBLIC_TYPE, SUBTYPES, words_for

SHARED = Path(os.environ.get("MCOT_SHARED_DATA") or Path(__file__).resolve().parents[4] / "shared" / "data")
SAMPLE = SHARED / "gepbench-sample" / "dataset"

TERM = "|".join(sorted(PUBLIC_TERMS, key=len, reverse=True))
QUALIFIER = r"(?: \((?:not|excluding) [a-z ,]+\)| \([a-z ,]+ excluded\))?"
LABEL = re.compile(rf"\b(?:{TERM})(?:s|\(s\))?{QUALIFIER}(?![a-z])")
PLACE = re.compile(
    r"in the (?:upper|lower|left|right) half of the image|in the (?:top|bottom) (?:left|right) quarter of the image"
    r"|to the (?:upper|lower) (?:left|right) of|directly to the (?:top|bottom|left|right) of"
)
COMPARE = re.compile(r"\b(?:larger|smaller|more|less)\b")
NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
QUALIFIERS = re.compile(r"\((not|excluding) ([a-z ,]+)\)|\(([a-z ,]+) (excluded)\)")


def skeleton(text: str) -> str:
    """The phrasing with shape names, places, comparatives and numbers abstracted away."""
    return NUMBER.sub("<N>", COMPARE.sub("<C>", LABEL.sub("<S>", PLACE.sub("<D>", text))))


def _figures(style: str, n: int, seed: int = 7) -> list[FigureResult]:
    balancer = LetterBalancer()
    return [make_figure(level, i, seed, balancer, wording=style) for level in ("easy", "hard") for i in range(n)]


@pytest.fixture(scope="module")
def public() -> list[FigureResult]:
    """200 figures (100 easy, 100 hard) in the public style, one shared balancer."""
    return _figures("public", 100)


@pytest.fixture(scope="module")
def mcot() -> list[FigureResult]:
    """200 figures in the mcot style."""
    return _figures("mcot", 100)


def _kept(results: list[FigureResult]) -> list[tuple[FigureResult, Question]]:
    return [(r, q) for r in results for q, _ in r.kept]


@pytest.mark.parametrize("style", ["public", "mcot"])
def test_up_to_three_questions_per_aspect_and_eleven_a_figure(
    style: str, public: list[FigureResult], mcot: list[FigureResult]
) -> None:
    results = public if style == "public" else mcot
    for r in results:
        per_aspect = Counter(q.aspect for q, _ in r.kept + r.dropped)
        assert max(per_aspect.values()) <= PER_ASPECT, per_aspect
        assert {"existence", "counting"} <= set(per_aspect)
    assert sum(len(r.kept) for r in results) / len(results) >= 11
    full = sum(Counter(q.aspect for q, _ in r.kept)[a] == PER_ASPECT for r in results for a in ASPECTS)
    assert full >= 0.5 * len(results) * len(ASPECTS)  # most aspects reach three


@pytest.mark.parametrize("style", ["public", "mcot"])
def test_letters_are_balanced_in_both_styles(style: str, public: list[FigureResult], mcot: list[FigureResult]) -> None:
    pairs = _kept(public if style == "public" else mcot)
    overall = Counter(q.letter for _, q in pairs)
    assert all(abs(overall[c] / len(pairs) - 0.25) <= 0.04 for c in "ABCD"), overall
    for aspect in ASPECTS:
        counts = Counter(q.letter for _, q in pairs if q.aspect == aspect)
        total = sum(counts.values())
        assert total >= 60, (aspect, total)
        assert all(abs(counts[c] / total - 0.25) <= 0.04 for c in "ABCD"), (aspect, counts)


def _sample() -> dict[str, list[dict[str, object]]]:
    if not SAMPLE.is_dir():
        pytest.skip(f"the released sample {SAMPLE} is absent")
    out: dict[str, list[dict[str, object]]] = defaultdict(list)
    for path in sorted(SAMPLE.glob("vqa-*/*.jsonl")):
        out[path.stem] += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return out


def test_public_style_speaks_the_released_phrasing_for_every_aspect(public: list[FigureResult]) -> None:
    sample = _sample()
    ours: dict[str, list[Question]] = defaultdict(list)
    for _, q in _kept(public):
        ours[NATIVE_FILES[q.aspect]].append(q)
    assert set(sample) == set(ours) == set(NATIVE_FILES.values())
    for aspect, records in sample.items():
        theirs = {skeleton(str(r["question"])) for r in records}
        assert {skeleton(q.text) for q in ours[aspect]} == theirs, aspect  # every template, and nothing else
        their_choices = {skeleton(str(c)) for r in records for c in r["choices"]}  # type: ignore[attr-defined]
        assert {skeleton(c) for q in ours[aspect] for c in q.choices} == their_choices, aspect


def test_public_qualifiers_are_the_released_ones(public: list[FigureResult]) -> None:
    sample = _sample()

    def qualifiers(texts: list[str]) -> set[tuple[str, str]]:
        found = set()
        for text in texts:
            for m in QUALIFIERS.finditer(text):
                form, words = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
                found |= {(form, w.strip().removesuffix("s")) for w in words.split(",")}
        return found

    records = [r for rs in sample.values() for r in rs]
    theirs = qualifiers([str(r["question"]) for r in records] + [str(c) for r in records for c in r["choices"]])  # type: ignore[attr-defined]
    pairs = _kept(public)
    ours = qualifiers([q.text for _, q in pairs] + [c for _, q in pairs for c in q.choices])
    assert {f for f, _ in ours} == {f for f, _ in theirs} == {"not", "excluding", "excluded"}
    # the one addition: the release counts equilateral triangles apart from triangles without saying so
    assert {w for _, w in ours} - {w for _, w in theirs} <= {"equilateral triangle"}


def test_public_sizes_are_written_as_the_release_writes_them(public: list[FigureResult]) -> None:
    for _, q in _kept(public):
        if q.aspect == "size":
            assert all(re.fullmatch(r"0\.\d{1,2}|1\.0", c) for c in q.choices), q.choices
            assert q.text.startswith("Suppose that the width and height of the image is 1, which")
        if q.aspect == "relationship":
            assert set(q.choices) <= {*PUBLIC_RELATIONS, "none of the above"}


def _type_counts(r: FigureResult) -> Counter[str]:
    return Counter(PUBLIC_TYPE.get(s.kind, s.kind) for s in r.figure.shapes)


def test_public_counting_counts_exclusive_types_and_says_so(public: list[FigureResult]) -> None:
    pattern = re.compile(rf"How many ({TERM})s(?: \(excluding ([a-z ,]+)\))? are there in the image\?")
    seen = 0
    for r, q in _kept(public):
        if q.aspect != "counting":
            continue
        match = pattern.fullmatch(q.text)
        assert match, q.text
        term, excluded = match.group(1), match.group(2)
        counts = _type_counts(r)
        assert int(q.choices[q.answer]) == counts[term]  # a square is not counted as a rectangle
        expected = [d + "s" for d in dict.fromkeys(desc for child, desc in SUBTYPES.get(term, ()) if counts[child])]
        assert (excluded.split(", ") if excluded else []) == expected  # qualified exactly when a sub-type is there
        seen += 1
    assert seen >= 500


def test_public_names_pick_out_one_shape_of_its_type(public: list[FigureResult]) -> None:
    for r in public[:40]:
        words = words_for("public", r.figure.shapes)
        counts = _type_counts(r)
        for i, shape in enumerate(r.figure.shapes):
            name = words.name(i)
            kind = PUBLIC_TYPE.get(shape.kind, shape.kind)
            assert (name is not None) == (counts[kind] == 1)
            if name is not None:
                assert name.split(" (")[0] == kind


def test_public_frequency_answers_hold_for_exclusive_types(public: list[FigureResult]) -> None:
    pattern = re.compile(rf"appears (more|less) frequently than ({TERM})\(s\)(?: \(not [a-z ,]+\))?\?$")
    asked = 0
    for r, q in _kept(public):
        match = pattern.search(q.text)
        if not match:
            continue
        asked += 1
        counts = _type_counts(r)
        base, more = counts[match.group(2)], match.group(1) == "more"
        types = [c.split(" (")[0] for c in q.choices]
        holds = [counts[t] > 0 and (counts[t] > base if more else counts[t] < base) for t in types]
        assert holds[q.answer] and sum(holds) == 1, (q.text, q.choices)
    assert asked >= 20


def test_mcot_style_keeps_its_own_wording(mcot: list[FigureResult]) -> None:
    texts = [q.text for _, q in _kept(mcot)]
    assert any("are both 1. Which" in t for t in texts)
    assert any("(squares included)" in t or "(circles included)" in t for t in texts)
    assert not any(re.search(r"\ba [aeiou]", t) or "(not " in t or "presented in" in t for t in texts)
    assert any(re.search(r"\ban ellipse|\ban equilateral", t) for t in texts)
