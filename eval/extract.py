"""Answer extraction: pull the final answer out of a model's (or a judge's) free text.

Every function is pure and returns None when the text holds no answer of the kind asked for, so that the
caller can tell "no answer" from "a wrong answer".
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence

_BOX_COMMANDS = ("\\boxed", "\\fbox")
_LETTERS = "ABCDEFGH"


_BARE_BOX = re.compile(r"\s*([^\s$\\]+)")


def _brace_matches(text: str) -> dict[int, int]:
    """Return, in one pass, the index of the closing brace of every opening brace that is closed (`\\{` and `\\}`
    are not braces): the brace matching every box of a text shares, so that reading it stays linear."""
    matches: dict[int, int] = {}
    opened: list[int] = []
    for index in _brace_positions(text):
        if text[index] == "{":
            opened.append(index)
        elif opened:
            matches[opened.pop()] = index
    return matches


def _brace_positions(text: str) -> list[int]:
    """Return the indices of the unescaped braces of `text`, in order (found by the regex engine, not a loop)."""
    return [match.start() for match in re.finditer(r"(?<!\\)[{}]", text)]


def extract_boxed_all(text: str) -> list[str]:
    """Return the contents of every `\\boxed{...}` / `\\fbox{...}` in order (nested braces kept whole).

    Linear in the length of `text`: one pass finds every brace pair, one pass walks the boxes (a box inside another
    is part of the outer one's content, not a box of its own).
    """
    found: list[str] = []
    if "\\boxed" not in text and "\\fbox" not in text:
        return found
    matches: dict[int, int] | None = None
    skip_to = 0
    for box in re.finditer(r"\\(?:boxed|fbox)", text):
        pos, end = box.start(), box.end()
        if pos < skip_to:
            continue
        after = end
        while after < len(text) and text[after] == " ":
            after += 1
        if after < len(text) and text[after] == "{":
            if matches is None:
                matches = _brace_matches(text)
            close = matches.get(after)
            if close is not None:
                found.append(text[after + 1 : close].strip())
                skip_to = close + 1
                continue
        bare = _BARE_BOX.match(text, end)
        if bare and text[end : end + 1] == " ":
            found.append(bare.group(1).strip())
            skip_to = bare.end()
        else:
            skip_to = after
    return found


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
        for match in re.finditer(rf"(?<![A-Za-z0-9_'’\\])[{letters}](?![A-Za-z0-9_'’])", cleaned)
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


# ------------------------------------------------------------------------- option letters, two readings


def option_letters(choices: Sequence[str] | None, *, default: int = 4) -> str:
    """Return the option letters of an item: one per choice from A (A–D for `default` 4 without choices)."""
    count = len(choices) if choices else default
    return _LETTERS[: max(1, min(count, len(_LETTERS)))]


def _latin_or_digit(char: str) -> bool:
    """True when `char` is a Latin letter (any case, accented, full-width) or a decimal digit."""
    return char.isdecimal() or (char.isalpha() and "LATIN" in unicodedata.name(char, ""))


def last_standalone_letter(text: str, letters: str = "ABCD") -> str | None:
    """Return the last upper-case option letter in `text` that no Latin letter or digit touches, or None.

    mcot's reading of the paper's rule (not the public GePBench code, whose `find_answer` splits on Unicode
    `\\b\\w+\\b` words, so that `选C` and `答案是C。` hold no letter there: `mcot.eval.protocols.gepbench.public_answer`):
    punctuation, spaces, markup and CJK characters around a letter leave it standalone (`(C)`, `**C**`,
    `\\boxed{C}`, `选C`, `答案是C。` read C); a letter inside a word or a number (`CAT`, `B2`) is not one. Only
    `letters` count (an item's options); lower-case letters never do.
    """
    for index in range(len(text) - 1, -1, -1):
        if text[index] not in letters:
            continue
        before = text[index - 1] if index > 0 else ""
        after = text[index + 1] if index + 1 < len(text) else ""
        if not (before and _latin_or_digit(before)) and not (after and _latin_or_digit(after)):
            return text[index]
    return None


_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
_LOWER_LETTER = re.compile(
    r"(?:^|(?i:final\s+answer|answer|option|choice)\s*(?:is\s*)?[:：]?|(?:答案|选项|选择|选)\s*(?:是|为)?\s*[:：]?)"
    r"[\s(\[（【*]*([a-h])[\s)\]）】*]*[.。!！]?\s*$"
)


def extract_choice_robust(text: str, choices: Sequence[str] | None = None) -> tuple[str | None, str]:
    """Return (letter, rule) of mcot's robust reading of a choice response; (None, "no-letter") without one.

    `extract_choice` first (boxed letter, explicit statements not negated, echoes removed, last standalone
    letter; rule "letter", or "choice-text" when only a choice text decided); then the one choice text with
    CJK characters read as spaces (`有4个圆`; "choice-text"); then a lone lower-case option letter ending the
    response, alone or after an answer marker (`b`, `(b)`, `Answer: c`, `答案：b`; rule "lower-case").
    """
    letters = option_letters(choices)
    letter = extract_choice(text, choices)
    if letter is not None:
        by_letter = extract_choice(text, None, n_choices=len(letters))
        return letter, "letter" if by_letter == letter else "choice-text"
    if choices:
        spaced = _CJK.sub(" ", text)
        if spaced != text:
            mapped = _choice_text_letter(spaced, choices)
            if mapped is not None:
                return mapped, "choice-text"
    lower = _LOWER_LETTER.search(text.strip())
    if lower and lower.group(1).upper() in letters:
        return lower.group(1).upper(), "lower-case"
    return None, "no-letter"


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
        for attempt, opening in enumerate(re.finditer(r"[{\[]", stripped)):
            if attempt >= JSON_ATTEMPTS:
                break
            try:  # decoded in place (no copy of the rest of the text per attempt)
                value, _ = decoder.raw_decode(stripped, opening.start())
            except (json.JSONDecodeError, RecursionError):
                continue
            if isinstance(value, dict | list):
                return value
    return None


JSON_ATTEMPTS = 64
"""At most this many openings of a text are tried as the start of a JSON value, so that reading a text of many
`{` or `[` stays linear in its length (a model's JSON answer starts at one of its first openings)."""


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


def last_line(text: str) -> str | None:
    """Return the last non-empty line of a response, stripped, or None."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else None


# ------------------------------------------------------------------------------- critic answers (robust)

_CANNOT = (
    r"cannot\s+be\s+determined|can'?t\s+be\s+determined|can\s*not\s+be\s+determined|cannot\s+determine|"
    r"can'?t\s+determine|can\s*not\s+determine|not\s+determinable|undetermined|indeterminate|uncertain|unclear|"
    r"unsure|cannot\s+tell|can'?t\s+tell|unknown|无法确定|不能确定|无法判断|无法判定|难以确定|难以判断|不确定|不清楚|看不出"
)
_ANSWER_WORD = re.compile(
    rf"(?P<cbd>{_CANNOT})(?![A-Za-z])|(?P<no>\bno\b|\bfalse\b|不是|没有|否|不|错误|错)|"
    r"(?P<yes>\byes\b|\btrue\b|是的|是|正确|对|有)",
    re.IGNORECASE,
)
_ANSWER_VALUES = {"cbd": 0.5, "no": 0.0, "yes": 1.0}
_QUESTION_MARKER = re.compile(
    r"(?<![A-Za-z0-9_.,/\\-])(?:(?:Q|Question|问题)\s*|第\s*)?([1-9])\s*(?:[.)．:：、]|题|\s+[-–—]\s)(?!\d)",
    re.IGNORECASE,
)
_NOT_ANSWERS = re.compile(
    r"^[ \t>*#-]*(?:total\s+score|reality\s+(?:assessment\s+)?score|authenticity\s+score|aesthetic|"
    r"instruction|consistency|fidelity|总分|美学|美观|审美|指令|一致性).*$|"
    r"(?:total\s+score|reality\s+assessment\s+score|总分).*$",
    re.IGNORECASE | re.MULTILINE,
)
_STOP = "\x00"


def _answer_word_value(match: re.Match[str]) -> float:
    return next(_ANSWER_VALUES[name] for name, text in match.groupdict().items() if text)


def _leading_answer(segment: str) -> float | None:
    """Return the answer a segment opens with ("Yes, because ..." → 1.0), None when it opens otherwise."""
    stripped = re.sub(r"^[\s*_\"'“”‘’(\[【「:：-]+", "", segment)
    match = _ANSWER_WORD.match(stripped)
    if match is None:
        return None
    following = stripped[match.end() :].lstrip(" *_\"'”’)]】」")
    if following[:1] in ("/", "|") and _ANSWER_WORD.match(following[1:].lstrip()):
        return None  # "Yes/No": the answer format, not an answer
    return _answer_word_value(match)


def _segment_answer(segment: str) -> float | None:
    """Return the answer in the text that follows a question number (echoed question skipped)."""
    segment = segment.split(_STOP, 1)[0]
    segment = re.sub(r"<[^<>]*>", " ", segment)  # "<Yes|No|Cannot be determined>": a placeholder
    value = _leading_answer(segment)
    if value is not None:
        return value
    mark = re.search(r"[?？]", segment)
    if mark is not None:
        return _leading_answer(segment[mark.end() :]) or _first_answer(segment[mark.end() :])
    return _first_answer(segment)


def _first_answer(text: str) -> float | None:
    match = _ANSWER_WORD.search(text)
    if match is None:
        return None
    following = text[match.end() :].lstrip(" *")
    if following[:1] in ("/", "|"):
        return None
    return _answer_word_value(match)


def _answer_only_line(line: str) -> list[float] | None:
    """Return the answers of a line that holds nothing but answers (label, numbers, separators allowed)."""
    body = re.sub(r"^[^:：\n]{0,40}[:：]", "", line.strip()) if re.search(r"[:：]", line) else line
    words = list(_ANSWER_WORD.finditer(body))
    if not words:
        return None
    rest = _ANSWER_WORD.sub(" ", body)
    rest = re.sub(r"(?:Q|Question|问题|第)?\s*[1-9]\s*(?:[.)．:：、]|题)?", " ", rest, flags=re.IGNORECASE)
    if re.search(r"[^\s,;，；、|/.。*_()\[\]【】\"'“”-]", rest):
        return None
    return [_answer_word_value(word) for word in words]


def read_answer_list(text: str, count: int = 5) -> list[float | None]:
    """Return the Yes (1) / No (0) / Cannot be determined (0.5) answers to questions 1..count, None where missing.

    Reads, in order: a JSON reply (the GOBench repository's `realityAnswers_Eval`, an `answers` list, keys
    "1".."count" or a bare list); numbered answers ("1. Yes", "**Q2:** No", "3) 无法确定", "第4题：是",
    "1. Is there ...? Yes"); a line holding only the answers ("Reality: Yes, No, Yes, Yes, Cannot be
    determined"); lines each holding one answer. Score and rating lines are never read as answers, so
    "Total Score: 4.5 (no issues)" is neither question 4 nor a No; "Yes/No" and "<Yes|No>" are formats,
    not answers.
    """
    data = extract_json(text)
    if data is not None:
        found = _answers_from_json(data, count)
        if found is not None and None not in found:
            return found
    cleaned = text.replace("**", "").replace("__", "")
    cleaned = _NOT_ANSWERS.sub(_STOP, cleaned)
    answers: list[float | None] = [None] * count
    markers = list(_QUESTION_MARKER.finditer(cleaned))
    for index, marker in enumerate(markers):
        number = int(marker.group(1))
        before = cleaned[max(0, marker.start() - 8) : marker.start()]
        if not 1 <= number <= count or re.search(r"(?:step|part|point)\s*$", before, re.IGNORECASE):
            continue  # "Step 1:" numbers reasoning, not an answer
        stop = markers[index + 1].start() if index + 1 < len(markers) else len(cleaned)
        value = _segment_answer(cleaned[marker.end() : stop])
        if value is not None:
            answers[number - 1] = value
    if None not in answers:
        return answers
    for line in cleaned.splitlines():
        listed = _answer_only_line(line.replace(_STOP, ""))
        if listed is not None and len(listed) == count:
            return list(listed)
    singles = [_answer_only_line(line) for line in cleaned.splitlines() if _STOP not in line]
    ones = [values[0] for values in singles if values is not None and len(values) == 1]
    if len(ones) == count and all(value is None for value in answers):
        return list(ones)
    return answers


def _answers_from_json(data: object, count: int) -> list[float | None] | None:
    if isinstance(data, dict):
        for key, value in data.items():
            name = re.sub(r"[^a-z]", "", str(key).lower())
            if isinstance(value, list) and any(
                part in name for part in ("realityanswers", "answers", "authenticity", "reality", "questions")
            ):
                return _answers_from_json(value, count)
        numbered = {re.sub(r"\D", "", str(key)): value for key, value in data.items() if re.search(r"\d", str(key))}
        if any(str(i) in numbered for i in range(1, count + 1)):
            return [_json_answer(numbered.get(str(i))) for i in range(1, count + 1)]
        for value in data.values():
            if isinstance(value, dict):
                found = _answers_from_json(value, count)
                if found is not None:
                    return found
        return None
    if isinstance(data, list) and data and not isinstance(data[0], dict | list):
        values = [_json_answer(value) for value in data[:count]]
        return values + [None] * (count - len(values))
    return None


def _json_answer(value: object) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float) and value in (0, 0.5, 1):
        return float(value)
    if isinstance(value, str):
        return _leading_answer(value)
    return None


_RATING_RANGE = re.compile(
    r"\(\s*(?:on\s+a\s+scale\s+of\s+)?1\s*(?:-|–|—|~|to)\s*5\s*\)|"
    r"(?:on\s+)?(?:a\s+)?scale\s+(?:of|from)\s+1\s*(?:\([^)]*\))?\s*(?:-|–|—|~|to)\s*5(?:\s*\([^)]*\))?|"
    r"(?<![\d.])1\s*(?:-|–|—|~|to)\s*5(?!\d|\.\d)|\b(?:question|part|step|q)\s*\d+|^\s*\d+[.)]\s",
    re.IGNORECASE | re.MULTILINE,
)
_RATING_NUMBER = r"(\d+(?:\.\d+)?)"


def read_labelled_rating(text: str, labels: str, stops: str = "") -> float | None:
    """Return the 1–5 rating given after a label, or None.

    `labels` is a regular expression naming the rating (e.g. `aesthetics?(?:\\s+rating)?`); `stops` one naming
    the other parts of the reply, where a rating's text ends. A JSON reply is read by key (any key containing a
    label word, e.g. the GOBench repository's `aestheticsRating_Eval`). In text, the first labelled passage
    holding a rating wins; the passage runs into the next paragraph ("Aesthetics Rating:" then the rating after
    a blank line) up to the next label. The label's own scale ("Rating (1-5)", "on a scale of 1 to 5") is never
    the rating; "4/5", "4 out of 5", "**4**" and "4分" read 4; a number outside 1–5 right after the label is no
    rating.
    """
    label_re = re.compile(labels, re.IGNORECASE)
    data = extract_json(text)
    if isinstance(data, dict):
        found = _rating_from_json(data, label_re)
        if found is not None:
            return found
    cleaned = re.sub(r"[*#`]+|__", "", text)
    boundary = re.compile(f"(?:{labels}){'|' + stops if stops else ''}", re.IGNORECASE)
    for label in label_re.finditer(cleaned):
        following = boundary.search(cleaned, label.end())
        window = cleaned[label.end() : following.start() if following else len(cleaned)]
        value = _window_rating(_RATING_RANGE.sub(" ", window))
        if value is not None:
            return value
    return None


def _window_rating(window: str) -> float | None:
    immediate = re.match(
        rf"^[\s:：=\-–—(（]*(?:(?:is|of|would\s+be|:)\s*)?{_RATING_NUMBER}(?!\.\d|\d)", window, re.IGNORECASE
    )
    if immediate is not None:
        value = float(immediate.group(1))
        return value if 1 <= value <= 5 else None
    patterns = (
        rf"(?<![\d.]){_RATING_NUMBER}\s*(?:/|out\s+of|of)\s*5(?!\d|\.\d)|(?<![\d.]){_RATING_NUMBER}\s*分",
        rf"(?:rating|score|rate|rated|give|gave|grade|评分|打分|得分)\s*(?:it|this|the\s+image|is|of|as|a|an|:|：|=|\s)*"
        rf"{_RATING_NUMBER}(?![\d%]|\.\d)",
        rf"(?<![\d.\w]){_RATING_NUMBER}(?![\d%\w]|\.\d)",
    )
    for pattern in patterns:
        match = re.search(pattern, window, re.IGNORECASE)
        if match is not None:
            value = float(next(group for group in match.groups() if group))
            if 1 <= value <= 5:
                return value
    return None


def _rating_from_json(data: dict[str, object], label_re: re.Pattern[str]) -> float | None:
    for key, value in data.items():
        readable = re.sub(r"(?<=[a-z])(?=[A-Z])|_", " ", str(key))
        if label_re.search(readable) or label_re.search(str(key)):
            number = _json_rating(value)
            if number is not None:
                return number
    for value in data.values():
        if isinstance(value, dict):
            found = _rating_from_json(value, label_re)
            if found is not None:
                return found
    return None


def _json_rating(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if 1 <= value <= 5 else None
    if isinstance(value, str):
        return _window_rating(value)
    return None
