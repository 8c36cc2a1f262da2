"""Answer extraction on a table of tricky, real-world-style responses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcot.eval.extract import (
    extract_boxed,
    extract_boxed_all,
    extract_choice,
    extract_final_answer,
    extract_json,
    extract_rating,
    extract_yes_no_answers,
)
from mcot.eval.match import match_answer

CHOICES4 = ["3", "4", "5", "6"]

# (response, choices, expected letter)
CHOICE_CASES: list[tuple[str, list[str] | None, str | None]] = [
    ("B", None, "B"),
    ("The answer is C.", None, "C"),
    ("Answer: (D)", None, "D"),
    ("**Answer: A**", None, "A"),
    ("the answer is not A but C", None, "C"),
    ("It is not B; the correct option is D.", None, "D"),
    ("I first thought A, but after counting again the answer is B.", None, "B"),
    ("Please answer with A, B, C or D.\nMy answer: C", None, "C"),
    ("Answer with the option's letter from the given choices directly. B", None, "B"),
    ("A. 3\nB. 4\nC. 5\nD. 6\nAnswer: B", CHOICES4, "B"),
    ("Options:\n(A) 3\n(B) 4\n(C) 5\n(D) 6\n\nThe figure has 5 circles, so C", CHOICES4, "C"),
    ("A triangle and two circles are visible, so the count is 3. Answer: A", CHOICES4, "A"),
    ("A triangle is tangent to the circle. D", None, "D"),
    ("答案是C", None, "C"),
    ("选C", None, "C"),
    ("正确答案：B", None, "B"),
    ("经过分析，答案为 (D)。", None, "D"),
    ("我认为A是正确的", None, "A"),
    ("\\boxed{B}", None, "B"),
    ("So the final answer is $\\boxed{\\text{D}}$", None, "D"),
    ("\\[ \\boxed{(A)} \\]", None, "A"),
    ("The count is five, so \\boxed{5}", CHOICES4, "C"),
    ("There are 6 triangles in total.", CHOICES4, "D"),
    ("I count 4 shapes, maybe 5.", CHOICES4, None),
    ("I cannot tell from the image.", CHOICES4, None),
    ("The rectangle is in the upper-left quadrant.", ["upper-left", "upper-right", "lower-left", "lower-right"], "A"),
    ("Final answer: (b)", None, None),
    ("Option B is correct.", None, "B"),
    ("The correct choice would be C.", None, "C"),
    ("B) 4", None, "B"),
    ("After checking each option: A is wrong, B is wrong, C fits. So C.", None, "C"),
    ("Between A and D, D is better.\nD", None, "D"),
    ("Choose from A/B/C/D.\n\nC", None, "C"),
    ("The answer (A, B, C or D) is: B", None, "B"),
    ("I'd pick A.", None, "A"),
    ("E", ["1", "2", "3", "4", "5"], "E"),
    ("ABC is an isosceles triangle, so the answer is D", None, "D"),
    ("It's C's reflection that matters; answer B", None, "B"),
    ("The answer is **C**.", None, "C"),
]


@pytest.mark.parametrize(("response", "choices", "expected"), CHOICE_CASES)
def test_extract_choice_table(response: str, choices: list[str] | None, expected: str | None) -> None:
    assert extract_choice(response, choices) == expected


BOXED_CASES: list[tuple[str, str | None]] = [
    ("so \\boxed{42}", "42"),
    ("first \\boxed{1} then corrected: \\boxed{2}", "2"),
    ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
    ("\\boxed{\\frac{\\sqrt{3}}{2}\\text{ m}}", "\\frac{\\sqrt{3}}{2}\\text{ m}"),
    ("$$\\boxed{x^{2}+1}$$", "x^{2}+1"),
    ("\\[\n\\boxed{12 \\text{ cm}}\n\\]", "12 \\text{ cm}"),
    ("\\fbox{7}", "7"),
    ("The answer is \\boxed 9.", "9."),
    ("no box here", None),
    ("unclosed \\boxed{3", None),
    ("\\boxed{} empty, then \\boxed{B}", "B"),
    ("\\boxed{\\{1, 2\\}}", "\\{1, 2\\}"),
]


@pytest.mark.parametrize(("response", "expected"), BOXED_CASES)
def test_extract_boxed_table(response: str, expected: str | None) -> None:
    assert extract_boxed(response) == expected


def test_extract_boxed_all_keeps_order() -> None:
    assert extract_boxed_all("\\boxed{3}; \\boxed{4 N}") == ["3", "4 N"]


YES_NO_CASES: list[tuple[str, list[float | None]]] = [
    ("1. Yes\n2. No\n3. Cannot be determined\n4. Yes\n5. yes", [1, 0, 0.5, 1, 1]),
    ("1: Yes, the sun is at the top left.\n2: No.\n3: Yes\n4: No\n5: No", [1, 0, 1, 0, 0]),
    (
        "1. Is there a light source? Yes, there is.\n2. Is the shadow consistent? No, it points the wrong way.\n"
        "3. Is the grass natural? Yes\n4. Does the shadow outline the tree? Cannot be determined.\n"
        "5. Is the shadow length appropriate? Yes",
        [1, 0, 1, 0.5, 1],
    ),
    ('{"answers": ["Yes", "No", "Yes", "Yes", "Cannot be determined"]}', [1, 0, 1, 1, 0.5]),
    ('```json\n{"1": "yes", "2": "no", "3": "no", "4": "yes", "5": "yes"}\n```', [1, 0, 0, 1, 1]),
    ("Q1: Yes Q2: No Q3: Yes Q4: Yes Q5: No", [1, 0, 1, 1, 0]),
    ("1. 是\n2. 否\n3. 无法确定\n4. 是\n5. 否", [1, 0, 0.5, 1, 0]),
    ("1. Yes\n2. No\n3. Yes", [1, 0, 1, None, None]),
    ("Yes\nNo\nYes\nYes\nNo", [1, 0, 1, 1, 0]),
    ("1) Unclear\n2) Yes\n3) Yes\n4) No\n5) Yes", [0.5, 1, 1, 0, 1]),
]


@pytest.mark.parametrize(("response", "expected"), YES_NO_CASES)
def test_extract_yes_no_table(response: str, expected: list[float | None]) -> None:
    assert extract_yes_no_answers(response, 5) == expected


RATING_CASES: list[tuple[str, str | None, float | None]] = [
    ("Please rate the aesthetics of the image on a scale of 1-5.", None, None),
    ("Please rate the aesthetics of the image on a scale of 1-5.\n4", None, 4.0),
    ("On a scale from 1 to 5, I would rate it 3.", None, 3.0),
    ("Rating: 2/5", None, 2.0),
    ("I'd give it 4 out of 5.", None, 4.0),
    ("Score: 5", None, 5.0),
    ("The image is pretty (1–5 scale): 4", None, 4.0),
    ("评分：3分", None, 3.0),
    ("Aesthetics: 4\nInstruction consistency: 2", "aesthetic", 4.0),
    ("Aesthetics: 4\nInstruction consistency: 2", "consistency", 2.0),
    ('{"aesthetics": 3, "fidelity": 5}', "fidelity", 5.0),
    ("It has 12 objects and looks fine; rating 6", None, None),
    ("No rating possible.", None, None),
    ("Rate the image on a scale of 1-5. I give it a solid 4.", None, 4.0),
    ("Aesthetics (1-5): 5. Instruction consistency (1-5): 3.", "consistency", 3.0),
]


@pytest.mark.parametrize(("response", "label", "expected"), RATING_CASES)
def test_extract_rating_table(response: str, label: str | None, expected: float | None) -> None:
    assert extract_rating(response, label) == expected


def test_extract_json_fenced_and_bare() -> None:
    assert extract_json('Sure!\n```json\n{"grade": 0.5}\n```') == {"grade": 0.5}
    assert extract_json('verdict {"score": 1} done') == {"score": 1}
    assert extract_json("[1, 2]") == [1, 2]
    assert extract_json("{not json}") is None


def test_extract_final_answer_marker() -> None:
    assert extract_final_answer("work...\nFinal answer: 12 cm.") == "12 cm"
    assert extract_final_answer("答案：5") == "5"
    assert extract_final_answer("nothing final") is None


def test_table_is_large_enough() -> None:
    assert len(CHOICE_CASES) + len(BOXED_CASES) + len(YES_NO_CASES) + len(RATING_CASES) >= 60


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("ABCDabcd0123456789 .,:;()[]{}\\^/-+*=boxedfrac sqrtpi答案是选\n")), max_size=60
    )
)
def test_extraction_and_matching_never_raise(text: str) -> None:
    extract_choice(text, ["1", "2", "3", "4"])
    extract_boxed(text)
    extract_yes_no_answers(text)
    extract_rating(text)
    extract_json(text)
    match_answer(text, "12", answer_type="number")
    match_answer(text, "\\frac{1}{2}")
