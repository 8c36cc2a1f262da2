"""Options parsed from question text, option letters, and the answer type of a free-form answer."""

from __future__ import annotations

import re
import string

LETTERS = string.ascii_uppercase
_LINE_OPTION = re.compile(r"^\s*[\(（]?([A-H])(?:[\)）]|[\.:：、．](?!\d))\s*(.*?)\s*$")
_INLINE_MARK = re.compile(r"[\(（]([A-H])[\)）]\s*|(?:(?<=\s)|^)([A-H])[\.:：、．]\s+")
_LETTER_ANSWER = re.compile(r"^\s*[\(（]?([A-H])[\)）\.]?\s*$")
_NUMBER = re.compile(
    r"^[-+−]?(?:\d+(?:\.\d*)?|\.\d+)(?:\s*/\s*\d+)?(?:\s*[eE][-+]?\d+|\s*[×x*]\s*10\^?\{?[-+−]?\d+\}?)?"
    r"\s*(?:[A-Za-zΩμ°%℃/·²³^\-\d]{0,12})$"
)
_YES = {"yes", "true", "对", "正确", "是", "√", "✓", "t", "y"}
_NO = {"no", "false", "错", "错误", "否", "×", "✗", "f", "n"}


def parse_options(question: str) -> list[str] | None:
    """Return the option texts (A, B, … in order) found in a question, or None when it has no options.

    Options are recognised one per line (`A. text`, `(B) text`, `C: text`, `D、text`) or inline
    (`(A) x (B) y`, `A. x B. y`); they must start at A and run consecutively, at least two of them.
    """
    lines = question.splitlines()
    best: list[str] = []
    run: list[str] = []
    for line in lines:
        match = _LINE_OPTION.match(line)
        if match and match.group(2) and LETTERS.index(match.group(1)) == len(run):
            run.append(match.group(2))
        elif match and match.group(2) and match.group(1) == "A":
            run = [match.group(2)]
        elif run and not line.strip():
            continue
        else:
            if len(run) >= 2:
                best = run
            run = []
    if len(run) >= 2:
        best = run
    if best:
        return best
    return _parse_inline(question)


def _parse_inline(question: str) -> list[str] | None:
    """Return options written on one line, `(A) x (B) y` or `A. x B. y`, or None."""
    marks = [(m.start(), m.end(), m.group(1) or m.group(2)) for m in _INLINE_MARK.finditer(question)]
    chosen: list[tuple[int, int]] = []
    for start, end, letter in marks:
        if letter == "A":
            chosen = [(start, end)]
        elif chosen and LETTERS.index(letter) == len(chosen):
            chosen.append((start, end))
    if len(chosen) < 2:
        return None
    options = []
    for k, (_, end) in enumerate(chosen):
        stop = chosen[k + 1][0] if k + 1 < len(chosen) else len(question)
        text = question[end:stop].split("\n")[0].strip()
        if not text:
            return None
        options.append(text)
    return options


def answer_letter(answer: str, choices: list[str]) -> str | None:
    """Return the option letter an answer names (`B`, `(B)`, `B.`, or an option's exact text), or None."""
    match = _LETTER_ANSWER.match(answer)
    if match and LETTERS.index(match.group(1)) < len(choices):
        return match.group(1)
    stripped = answer.strip()
    hits = [k for k, option in enumerate(choices) if option.strip() == stripped]
    if len(hits) == 1:
        return LETTERS[hits[0]]
    return None


def letters_answer(answer: object, n_choices: int) -> str | None:
    """Return a multi-select answer as sorted unique letters ("AC"), from "A,C", "AC", ["A", "C"]; else None."""
    if isinstance(answer, list):
        parts = [str(part).strip().upper() for part in answer]
    elif isinstance(answer, str):
        parts = [p for p in re.split(r"[\s,;，；、/]+", answer.strip().upper()) if p]
        if len(parts) == 1 and len(parts[0]) > 1:
            parts = list(parts[0])
    else:
        return None
    if not parts or any(len(p) != 1 or p not in LETTERS[: max(n_choices, 1)] for p in parts):
        return None
    return "".join(sorted(set(parts)))


def yes_no(answer: object) -> str | None:
    """Return "yes" or "no" for a true/false answer in English or Chinese (对/错, 正确/错误, √/×), else None."""
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if not isinstance(answer, str):
        return None
    text = answer.strip().strip("。.").lower()
    if text in _YES:
        return "yes"
    if text in _NO:
        return "no"
    return None


def infer_answer_type(answer: str) -> str:
    """Return "yesno", "number" (a number, possibly with a unit) or "text" for a free-form answer."""
    text = answer.strip().strip("$").strip()
    if yes_no(text) is not None and text.lower() in {"yes", "no"}:
        return "yesno"
    if text and _NUMBER.match(text):
        return "number"
    return "text"
