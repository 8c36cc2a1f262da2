"""Answer extraction: pull the final answer out of a model's (or a judge's) free text.

Every function is pure and returns None when the text holds no answer of the kind asked for, so that the
caller can tell "no answer" from "a wrong answer".
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

_BOX_COMMANDS = ("\\boxed", "\\fbox")
_LETTERS = "ABCDEFGH"


def _braced(text: str, start: int) -> tuple[str, int] | None:
    """Return (content, end index) of the brace group opening at `start`, honouring nesting."""
    if start >= len(text) or text[start] != "{":
        return None
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "{" and (index == 0 or text[index - 1] != "\\"):
            depth += 1
        elif char == "}" and text[index - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[start + 1 : index], index + 1
    return None


def extract_boxed_all(text: str) -> list[str]:
    """Return the contents of every `\\boxed{...}` / `\\fbox{...}` in order (nested braces kept whole)."""
    found: list[str] = []
    index = 0
    while True:
        hits = [(text.find(cmd, index), cmd) for cmd in _BOX_COMMANDS]
        hits = [(pos, cmd) for pos, cmd in hits if pos >= 0]
        if not hits:
            return found
        pos, cmd = min(hits)
        after = pos + len(cmd)
        while after < len(text) and text[after] == " ":
            after += 1
        group = _braced(text, after)
        if group is not None:
            content, index = group
            found.append(content.strip())
            continue
        bare = re.match(r"\s*([^\s$\\]+)", text[pos + len(cmd) :])
        if bare and text[pos + len(cmd) : pos + len(cmd) + 1] == " ":
            found.append(bare.group(1).strip())
        index = after


def extract_boxed(text: str) -> str | None:
    """Return the content of the last `\\boxed{...}` (or `\\fbox{...}`) in `text`, or None."""
    found = [content for content in extract_boxed_all(text) if content]
    return found[-1] if found else None


def strip_latex_text(value: str) -> str:
    """Return `value` with `\\text{..}`, `\\mathrm{..}`, `\\textbf{..}` wrappers replaced by their content."""
    previous = None
    while previous != value:
        previous = value
        value = re.sub(r"\\(?:text|mathrm|textbf|mathbf|operatorname|textrm)\s*\{([^{}]*)\}", r"\1", value)
    return value


# ---------------------------------------------------------------------------------------------- choices

_OPTION_LIST = re.compile(
    r"(?<![A-Za-z])\(?[A-H]\)?(?:\s*(?:,|/|、|or|and|或)\s*\(?[A-H]\)?(?![A-Za-z])){1,7}",
)
_EXPLICIT = [
    re.compile(
        r"(?:final\s+answer|correct\s+(?:answer|option|choice)|answer|option|choice)"
        r"\s*(?:is|should\s+be|would\s+be|will\s+be|must\s+be|=|:|：)?\s*(?:option\s*)?[\(\[\*\s]*([A-H])(?![A-Za-z])",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:答案|正确答案|最终答案|正确选项|选项)\s*(?:是|为|应该是|应为|：|:)?\s*[\(（【\s]*([A-H])(?![A-Za-z])"
    ),
    re.compile(r"(?:选择|选)\s*[\(（【\s]*([A-H])(?![A-Za-z])"),
    re.compile(r"(?<![A-Za-z])([A-H])\s*(?:是正确|正确|对)"),
]
_NEGATED = re.compile(
    r"\b(?:not|isn't|is\s+not|never|rather\s+than|instead\s+of)\s*(?:option\s*)?\(?([A-H])\)?(?![A-Za-z])"
)


def _strip_echoes(text: str, letters: str) -> str:
    """Remove echoed instructions ("answer with A, B, C or D") and echoed option blocks."""
    text = _OPTION_LIST.sub(" ", text)
    lines = text.splitlines()
    option_line = re.compile(rf"^\s*\(?([{letters}])[.)．、:]\s*\S")
    keep = [True] * len(lines)
    index = 0
    while index < len(lines):
        run = index
        seen: set[str] = set()
        while run < len(lines) and (match := option_line.match(lines[run])) and match.group(1) not in seen:
            seen.add(match.group(1))
            run += 1
        if run - index >= 2:
            for dropped in range(index, run):
                keep[dropped] = False
            index = run
        else:
            index += 1
    return "\n".join(line for line, kept in zip(lines, keep, strict=True) if kept)


def _is_article(text: str, pos: int) -> bool:
    """True when the capital A at `pos` reads as the English article ("A triangle has ...")."""
    if text[pos] != "A":
        return False
    following = re.match(r"\s+([a-z]+)", text[pos + 1 :])
    if not following:
        return False
    verbs = {
        "is",
        "was",
        "seems",
        "looks",
        "would",
        "should",
        "could",
        "fits",
        "matches",
        "and",
        "or",
        "but",
        "because",
    }
    return following.group(1) not in verbs


def extract_choice(text: str, choices: Sequence[str] | None = None, *, n_choices: int | None = None) -> str | None:
    """Return the option letter a response settles on, or None.

    Order: the last boxed letter; the last explicit statement ("the answer is C", "答案是C", "选C") that is not
    negated; the last standalone capital letter among the options (echoed instructions and echoed option
    lists removed, the article "A" skipped); else the one choice text that appears in the response.
    """
    count = n_choices or (len(choices) if choices else 4)
    letters = _LETTERS[: max(1, min(count, len(_LETTERS)))]
    boxed = extract_boxed(text)
    if boxed is not None:
        inner = strip_latex_text(boxed).strip().strip("()[]. ")
        if len(inner) == 1 and inner.upper() in letters:
            return inner.upper()
        if choices:
            mapped = _choice_text_letter(inner, choices)
            if mapped:
                return mapped
    cleaned = _strip_echoes(text, letters)
    explicit: list[tuple[int, str]] = []
    for pattern in _EXPLICIT:
        for match in pattern.finditer(cleaned):
            if match.group(1) in letters:
                explicit.append((match.start(1), match.group(1)))
    negated = {match.start(1) for match in _NEGATED.finditer(cleaned)}
    explicit = [hit for hit in explicit if hit[0] not in negated]
    standalone = [
        (match.start(), match.group(0))
        for match in re.finditer(rf"(?<![A-Za-z0-9_'’\\]])[{letters}](?![A-Za-z0-9_'’])", cleaned)
        if match.start() not in negated and not _is_article(cleaned, match.start())
    ]
    if explicit:
        last_explicit = max(explicit)
        later = [hit for hit in standalone if hit[0] > last_explicit[0] and hit[1] != last_explicit[1]]
        # a later bare letter only overrides an explicit statement when it stands alone on the last line
        final_token = re.search(r"(?<![A-Za-z])([A-H])[\s*().\[\]:。！!]*$", cleaned)
        if later and final_token and final_token.start(1) == later[-1][0]:
            return later[-1][1]
        return last_explicit[1]
    if standalone:
        return standalone[-1][1]
    if choices:
        return _choice_text_letter(text, choices)
    return None


def _choice_text_letter(text: str, choices: Sequence[str]) -> str | None:
    """Return the letter of the single choice whose text appears in `text`, or None (none or several)."""
    lowered = text.lower()
    hits: list[tuple[int, str]] = []
    for index, choice in enumerate(choices):
        needle = str(choice).strip().lower()
        if not needle:
            continue
        pattern = rf"(?<![\w.]){re.escape(needle)}(?![\w]|\.\d)"
        if re.search(pattern, lowered):
            hits.append((index, needle))
    # a choice contained in another that also appears ("3" in "13") is not a separate hit
    distinct = [hit for hit in hits if not any(hit[1] != other[1] and hit[1] in other[1] for other in hits)]
    if len(distinct) == 1:
        return _LETTERS[distinct[0][0]]
    return None


# ------------------------------------------------------------------------------------------ yes / no

_YES = re.compile(r"\b(?:yes|true|correct)\b|是的|是|有|对", re.IGNORECASE)
_NO = re.compile(r"\b(?:no|false|incorrect)\b|否|不是|没有|不", re.IGNORECASE)
_CBD = re.compile(
    r"\b(?:cannot\s+be\s+determined|can(?:not|'t|\s+not)\s+(?:be\s+)?determine[d]?|undetermined|unclear|"
    r"not\s+determinable|uncertain|unknown|n/?a)\b|无法确定|不能确定|无法判断",
    re.IGNORECASE,
)


def yes_no_value(text: str) -> float | None:
    """Return 1.0 for a Yes, 0.0 for a No, 0.5 for "Cannot be determined" at the start of `text`, else None."""
    hits: list[tuple[int, float]] = []
    for pattern, value in ((_CBD, 0.5), (_NO, 0.0), (_YES, 1.0)):
        match = pattern.search(text)
        if match:
            hits.append((match.start(), value))
    if not hits:
        return None
    hits.sort()
    first_pos, first_value = hits[0]
    # "Cannot be determined" contains no yes/no word, but "not determinable" starts like a "no"
    for pos, value in hits:
        if value == 0.5 and pos <= first_pos + 4:
            return 0.5
    return first_value


def extract_yes_no_answers(text: str, count: int = 5) -> list[float | None]:
    """Return the Yes (1) / No (0) / Cannot be determined (0.5) answers to questions 1..count, None where missing.

    Reads numbered answers ("1. Yes", "Q2: No", "3) Cannot be determined", "1. Is there ...? Yes") and JSON
    replies (a list, or an object with an "answers" list or keys "1".."5"); an echoed question is skipped up
    to its question mark.
    """
    data = extract_json(text)
    if data is not None:
        values = _yes_no_from_json(data, count)
        if values is not None:
            return values
    answers: list[float | None] = [None] * count
    marker = re.compile(
        r"(?:^|(?<=\s)|(?<=[.;,。；]))(?:Q|Question\s*|问题\s*|第)?([1-9])\s*(?:[.):：、]|题)", re.IGNORECASE
    )
    positions = [(match.start(), match.end(), int(match.group(1))) for match in marker.finditer(text)]
    for index, (_, end, number) in enumerate(positions):
        if not 1 <= number <= count:
            continue
        stop = positions[index + 1][0] if index + 1 < len(positions) else len(text)
        segment = text[end:stop]
        question_end = max(segment.rfind("?"), segment.rfind("？"))
        if question_end >= 0:
            segment = segment[question_end + 1 :]
        value = yes_no_value(segment)
        if value is not None:
            answers[number - 1] = value
    if all(value is None for value in answers):
        bare = [yes_no_value(line) for line in text.splitlines() if line.strip()]
        bare_values = [value for value in bare if value is not None]
        if len(bare_values) == count:
            return list(bare_values)
    return answers


def _yes_no_from_json(data: object, count: int) -> list[float | None] | None:
    if isinstance(data, dict):
        for key in ("answers", "authenticity", "reality", "questions"):
            if isinstance(data.get(key), list):
                return _yes_no_from_json(data[key], count)
        if any(str(i) in data for i in range(1, count + 1)):
            return [_json_yes_no(data.get(str(i))) for i in range(1, count + 1)]
        return None
    if isinstance(data, list):
        values = [_json_yes_no(value) for value in data[:count]]
        return values + [None] * (count - len(values))
    return None


def _json_yes_no(value: object) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float) and value in (0, 0.5, 1):
        return float(value)
    if isinstance(value, str):
        return yes_no_value(value)
    return None


# ------------------------------------------------------------------------------------------- ratings

_RANGE = re.compile(r"(?<![\d.])1\s*(?:-|–|—|to|~|through|and)\s*5(?!\d|\.\d)|\(\s*1\s*[,-]\s*5\s*\)", re.IGNORECASE)
_RATING_PATTERNS = [
    re.compile(r"(?<![\d.])([1-5](?:\.\d+)?)\s*(?:/|out\s+of|分\s*/)\s*5(?!\d|\.\d)", re.IGNORECASE),
    re.compile(
        r"(?:rating|score|rate|grade|rated|评分|得分|打分)\s*(?:is|of|would\s+be|:|：|=)?\s*(?:it\s+|this\s+|the\s+image\s+)?(?:a\s+|as\s+)?\**\s*([1-5](?:\.\d+)?)(?!\d|\.\d)",
        re.IGNORECASE,
    ),
    re.compile(r"(?<![\d.])([1-5](?:\.\d+)?)\s*分"),
]


def extract_rating(text: str, label: str | None = None) -> float | None:
    """Return the 1–5 rating given in `text` (the last one; the one after `label` when given), or None.

    The "1-5" of an echoed instruction ("on a scale of 1-5") is never read as a rating.
    """
    data = extract_json(text)
    if isinstance(data, dict):
        for key, value in data.items():
            if label is None or label.lower() in str(key).lower():
                if isinstance(value, int | float) and not isinstance(value, bool) and 1 <= value <= 5:
                    return float(value)
    body = text
    if label is not None:
        found = list(re.finditer(re.escape(label), text, re.IGNORECASE))
        if not found:
            return None
        body = text[found[-1].end() :]
        nxt = re.search(
            r"\n\s*\n|\n\s*(?:[-*#]|\d[.)])?\s*\**[A-Z][A-Za-z ]{2,40}(?:rating|score|consistency)?\s*\**\s*[:：]", body
        )
        if nxt:
            body = body[: nxt.start()]
    body = _RANGE.sub(" ", body)
    body = re.sub(r"scale\s+(?:of|from)\s+[1-5]", " ", body, flags=re.IGNORECASE)
    hits: list[tuple[int, float]] = []
    for pattern in _RATING_PATTERNS:
        for match in pattern.finditer(body):
            hits.append((match.start(1), float(match.group(1))))
    if hits:
        return max(hits)[1] if label is None else min(hits)[1]
    bare = re.findall(r"(?<![\d.\w-])([1-5](?:\.\d+)?)(?![\d\w%]|\.\d)", body)
    if bare:
        return float(bare[0] if label is not None else bare[-1])
    return None


# ---------------------------------------------------------------------------------------------- JSON


def extract_json(text: str) -> object | None:
    """Return the first JSON object or array in `text` (fenced or bare), or None when there is none."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    candidates = [fenced.group(1)] if fenced else []
    candidates.append(text)
    decoder = json.JSONDecoder()
    for candidate in candidates:
        stripped = candidate.strip()
        for index, char in enumerate(stripped):
            if char not in "{[":
                continue
            try:
                value, _ = decoder.raw_decode(stripped[index:])
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict | list):
                return value
    return None


# ------------------------------------------------------------------------------------------ numbers


def extract_final_answer(text: str) -> str | None:
    """Return the last boxed answer, else the text after a final "answer:" marker, else None."""
    boxed = extract_boxed(text)
    if boxed is not None:
        return boxed
    matches = list(
        re.finditer(r"(?:final\s+answer|answer|答案|最终答案)\s*(?:is|是|为)?\s*[:：]?\s*(.+)", text, re.IGNORECASE)
    )
    if matches:
        value = matches[-1].group(1).strip().strip("*").strip()
        value = re.sub(r"[.。]\s*$", "", value)
        return value or None
    return None
