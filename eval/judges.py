"""LLM judges: the protocol a judge model follows, prompt templates, a disk cache and reply parsers.

A judge is any object with `spec: str` and `async ask(prompt, images=()) -> str` (mcot.judging adapts a model
backend to it, at temperature 0). Every call goes through `ask_judge`, which renders a template, looks in the
cache (keyed by judge spec, template hash, prompt and image hashes), asks, parses, and returns a `JudgeReply`
holding the raw output so that it can be stored in scores.jsonl; a failed or unparsable reply is an error in
the reply, never an exception and never a verdict.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from mcot.eval.errors import JudgeError, TemplateError
from mcot.eval.extract import extract_json, extract_rating, extract_yes_no_answers

from mcot.core.inputs import NotRegularFile, check_source
from mcot.core.rundir import write_text_atomic
from mcot.core.template_text import template_body

# template name -> the placeholders the protocol fills
TEMPLATE_FIELDS: dict[str, frozenset[str]] = {
    "mathverse_extract": frozenset({"response"}),
    "mathverse_score": frozenset({"question", "answer", "extracted"}),
    "rbench_extract": frozenset({"question", "response"}),
    "rbench_verdict": frozenset({"question", "answer", "extracted"}),
    "generic_match": frozenset({"question", "answer", "extracted"}),
    "gobench_rate": frozenset({"prompt", "questions"}),
    "omniphys_result": frozenset({"question", "task_type", "answer", "response"}),
    "omniphys_process": frozenset({"question", "solution", "response"}),
    "omniphys_diagram": frozenset({"question"}),
}
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]+)\s*\}\}")


@runtime_checkable
class JudgeModel(Protocol):
    """A model that answers one prompt (with optional PNG images) with text, deterministically where it can."""

    spec: str

    async def ask(self, prompt: str, images: Sequence[bytes] = ()) -> str:
        """Return the model's reply to `prompt`."""
        ...


@dataclass(frozen=True)
class Template:
    """A judge prompt template: its name, text, sha256 of the text, and where it came from."""

    name: str
    text: str
    sha256: str
    source: str

    def render(self, **values: object) -> str:
        """Return the prompt with every `{{name}}` placeholder replaced; raise TemplateError on a missing value."""
        body = template_body(self.text)
        missing = {name for name in _PLACEHOLDER.findall(body) if name not in values}
        if missing:
            raise TemplateError(f"template {self.name} ({self.source}) needs {sorted(missing)}, not filled here")
        return _PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), body)


def _make_template(name: str, text: str, source: str) -> Template:
    unknown = set(_PLACEHOLDER.findall(template_body(text))) - TEMPLATE_FIELDS[name]
    if unknown:
        raise TemplateError(
            f"template {source} uses {sorted(unknown)}; the {name} protocol fills only {sorted(TEMPLATE_FIELDS[name])}"
        )
    return Template(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest(), source)


def load_templates(override: Path | None = None) -> dict[str, Template]:
    """Return our templates by name, with `override` applied.

    `override` is a template file whose name (without .txt) is one of TEMPLATE_FIELDS (e.g.
    rbench_verdict.txt), or a directory of such files; each replaces our template of that name.
    """
    templates: dict[str, Template] = {}
    package = resources.files("mcot.eval") / "templates"
    for name in TEMPLATE_FIELDS:
        text = (package / f"{name}.txt").read_text(encoding="utf-8")
        templates[name] = _make_template(name, text, f"eval/templates/{name}.txt")
    if override is None:
        return templates
    override = Path(override)
    if override.is_dir():
        files = sorted(override.glob("*.txt"))
        if not files:
            raise TemplateError(f"{override} holds no .txt templates (names: {', '.join(TEMPLATE_FIELDS)})")
    elif override.is_file():
        files = [override]
    elif override.exists():  # a FIFO, a device, a socket: named, never opened (it could block)
        try:
            check_source(override, what="judge template")
        except NotRegularFile as exc:
            raise TemplateError(str(exc)) from None
        raise TemplateError(f"judge template {override} is not a file or a folder")
    else:
        raise TemplateError(f"judge template {override} does not exist")
    for path in files:
        name = path.stem
        if name not in TEMPLATE_FIELDS:
            raise TemplateError(
                f"{path.name}: a judge template file must be named after the template it replaces: "
                + ", ".join(f"{known}.txt" for known in TEMPLATE_FIELDS)
            )
        templates[name] = _make_template(name, path.read_text(encoding="utf-8"), str(path))
    return templates


class JudgeCache:
    """A disk cache of raw judge replies: one small JSON file per key under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(spec: str, template_sha256: str, prompt: str, images: Sequence[bytes] = ()) -> str:
        """Return the cache key of one judge call (sha256 of spec, template hash, prompt and image hashes)."""
        digest = hashlib.sha256()
        for part in (spec, template_sha256, prompt, *(hashlib.sha256(image).hexdigest() for image in images)):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        """Return the cached raw reply for `key`, or None."""
        path = self._path(key)
        if not path.is_file():
            self.misses += 1
            return None
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))["raw"]
        except (json.JSONDecodeError, KeyError, OSError):
            self.misses += 1
            return None
        self.hits += 1
        return str(raw)

    def put(self, key: str, raw: str, **record: Any) -> None:
        """Store the raw reply for `key` (with the spec and template hash for people reading the cache)."""

        write_text_atomic(self._path(key), json.dumps({"raw": raw, **record}, ensure_ascii=False))


@dataclass(frozen=True)
class JudgeReply:
    """One judgement: the parsed value or an error, the raw output, the prompt hash and whether it was cached.

    `attempts` holds every try of a retried call (`ask_judge_retrying`): {"raw", "error", "temperature"} each.
    """

    value: Any
    raw: str | None
    error: str | None
    prompt_sha256: str
    template: str
    template_sha256: str
    cached: bool
    attempts: tuple[dict[str, Any], ...] = ()

    def record(self, spec: str) -> dict[str, Any]:
        """Return the `judge` field of a score line."""
        record: dict[str, Any] = {
            "spec": spec,
            "template": self.template,
            "template_sha256": self.template_sha256,
            "prompt_sha256": self.prompt_sha256,
            "raw": self.raw,
            "cached": self.cached,
        }
        if self.error:
            record["error"] = self.error
        if len(self.attempts) > 1:
            record["attempts"] = list(self.attempts)
        return record


def accepts_temperature(judge: JudgeModel) -> bool:
    """Return True when the judge's `ask` takes a `temperature` keyword (then retries can raise it)."""
    try:
        parameters = inspect.signature(judge.ask).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "temperature" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


async def ask_judge(
    judge: JudgeModel,
    template: Template,
    parse: Callable[[str], Any],
    *,
    cache: JudgeCache | None = None,
    images: Sequence[bytes] = (),
    temperature: float | None = None,
    **values: object,
) -> JudgeReply:
    """Return the judge's parsed verdict on the rendered template (cached; errors kept in the reply).

    `temperature` is passed to a judge whose `ask` takes one (`accepts_temperature`); None asks at the judge's
    own temperature (0 for `mcot.judging`). The cache key does not hold the temperature: a parsable reply is
    reused whatever temperature it was asked at.
    """
    prompt = template.render(**values)
    prompt_sha = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
    key = JudgeCache.key(judge.spec, template.sha256, prompt, images)
    raw = cache.get(key) if cache is not None else None
    cached = raw is not None
    if raw is None:
        try:
            if temperature is not None and accepts_temperature(judge):
                raw = await judge.ask(prompt, tuple(images), temperature=temperature)  # type: ignore[call-arg]
            else:
                raw = await judge.ask(prompt, tuple(images))
        except Exception as exc:  # a judge backend may fail in any way; the score records it
            reason = f"judge call failed: {type(exc).__name__}: {exc}"
            return JudgeReply(None, None, reason, prompt_sha, template.name, template.sha256, False)
    try:
        value = parse(raw)
    except JudgeError as exc:
        return JudgeReply(None, raw, str(exc), prompt_sha, template.name, template.sha256, cached)
    if cache is not None and not cached:
        cache.put(key, raw, spec=judge.spec, template=template.name, template_sha256=template.sha256)
    return JudgeReply(value, raw, None, prompt_sha, template.name, template.sha256, cached)


async def ask_judge_retrying(
    judge: JudgeModel,
    template: Template,
    parse: Callable[[str], Any],
    *,
    tries: int,
    temperature_step: float = 0.0,
    cache: JudgeCache | None = None,
    images: Sequence[bytes] = (),
    **values: object,
) -> JudgeReply:
    """Return the first parsable reply of up to `tries` calls (try k asked at temperature k × step), else the last error.

    A failed call or an unparsable reply is tried again; the reply keeps every try in `attempts` (temperature
    None where the judge's `ask` takes no temperature and so answers at its own), and after `tries` failures
    its `error` says so.
    """
    attempts: list[dict[str, Any]] = []
    reply: JudgeReply | None = None
    settable = accepts_temperature(judge)
    for k in range(max(1, tries)):
        temperature = k * temperature_step
        reply = await ask_judge(judge, template, parse, cache=cache, images=images, temperature=temperature, **values)
        attempts.append({"raw": reply.raw, "error": reply.error, "temperature": temperature if settable else None})
        if reply.error is None:
            return replace(reply, attempts=tuple(attempts))
    assert reply is not None
    error = f"{len(attempts)} tries failed; the last: {reply.error}"
    return replace(reply, error=error, attempts=tuple(attempts))


# ------------------------------------------------------------------------------------------- parsers


def parse_binary(raw: str) -> int:
    """Return 0 or 1 from a verdict reply that is exactly that digit (markdown/quotes/JSON tolerated)."""
    match = re.fullmatch(r"[\s*`'\"]*([01])[\s*`'\".]*", raw)
    if match:
        return int(match.group(1))
    data = extract_json(raw)
    if isinstance(data, dict):
        for key in ("verdict", "consistent", "score", "judgement", "judgment"):
            value = data.get(key)
            if isinstance(value, bool):
                return int(value)
            if isinstance(value, int) and value in (0, 1):
                return value
            if isinstance(value, str) and value.strip() in ("0", "1"):
                return int(value.strip())
    raise JudgeError(f"expected a verdict of exactly 0 or 1, got {raw[:80]!r}")


def parse_verdict_exact(raw: str) -> int:
    """Return 0 or 1 from a verdict reply that is exactly `0` or `1` once trimmed (RBench-V's official parse)."""
    text = raw.strip()
    if text in ("0", "1"):
        return int(text)
    raise JudgeError(f"expected a verdict of exactly 0 or 1, got {raw[:80]!r}")


def parse_extraction_verbatim(raw: str) -> str:
    """Return the judge's extraction reply unchanged, an empty one included (MathVerse_auxeval_extract keeps `res`)."""
    return raw


def parse_extraction_whole(raw: str) -> str:
    """Return the judge's extraction reply trimmed, a leading "Final answer:" label dropped (RBench-V official).

    The whole reply is the extracted answer, several lines included; a reply of NONE stays "NONE" (the verdict
    judge then reads it as no answer). Raise JudgeError on an empty reply.
    """
    text = raw.strip()
    text = re.sub(r"^(?:final answer|extracted answer)\s*[:：]\s*", "", text, flags=re.IGNORECASE).strip()
    if not text:
        raise JudgeError("the extraction judge replied with nothing")
    return text


def parse_extraction(raw: str) -> str | None:
    """Return the final answer a judge copied out (None for NONE); raise JudgeError on an empty reply."""
    text = raw.strip()
    text = re.sub(r"^(?:final answer|extracted answer|answer)\s*[:：]\s*", "", text, flags=re.IGNORECASE).strip()
    if not text:
        raise JudgeError("the extraction judge replied with nothing")
    line = text.splitlines()[0].strip()
    if line.upper().strip(".") == "NONE":
        return None
    return line


def parse_gobench_rating(raw: str, count: int = 5) -> dict[str, Any]:
    """Return {"answers": `count` values in {0, 0.5, 1}, "authenticity": their sum, "aesthetics", "fidelity"}."""
    answers = extract_yes_no_answers(raw, count)
    aesthetics = extract_rating(raw, "aesthetic")
    fidelity = extract_rating(raw, "fidelity")
    if fidelity is None:
        fidelity = extract_rating(raw, "consistency")
    missing = [f"question {i + 1}" for i, value in enumerate(answers) if value is None]
    if aesthetics is None:
        missing.append("aesthetics")
    if fidelity is None:
        missing.append("fidelity")
    if missing:
        raise JudgeError(f"the rating reply lacks {', '.join(missing)}: {raw[:80]!r}")
    values = [float(value) for value in answers if value is not None]
    return {"answers": values, "authenticity": sum(values), "aesthetics": aesthetics, "fidelity": fidelity}


def _json_number(raw: str, key: str) -> float:
    data = extract_json(raw)
    if isinstance(data, dict) and isinstance(data.get(key), int | float) and not isinstance(data.get(key), bool):
        return float(data[key])
    bare = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*", raw)
    if bare:
        return float(bare.group(1))
    raise JudgeError(f'expected {{"{key}": <number>}}, got {raw[:80]!r}')


def parse_result_score(raw: str) -> float:
    """Return the result score in [0, 1] of an OmniPhys result reply."""
    value = _json_number(raw, "score")
    if not 0 <= value <= 1:
        raise JudgeError(f"result score {value} is outside [0, 1]")
    return value


def parse_process_score(raw: str) -> dict[str, Any]:
    """Return {"n", "m", "score": n/m} from an OmniPhys process reply."""
    data = extract_json(raw)
    if not isinstance(data, dict):
        raise JudgeError(f'expected {{"steps_total": m, "steps_present": n}}, got {raw[:80]!r}')
    m, n = data.get("steps_total"), data.get("steps_present")
    if not isinstance(m, int) or not isinstance(n, int) or isinstance(m, bool) or m <= 0 or not 0 <= n <= m:
        raise JudgeError(f"steps_present must be an integer in 0..steps_total (> 0), got {n!r} of {m!r}")
    return {"n": n, "m": m, "score": n / m, "steps": data.get("steps")}


def parse_diagram_grade(raw: str) -> float:
    """Return the diagram grade 1, 0.5 or 0."""
    value = _json_number(raw, "grade")
    if value not in (0, 0.5, 1):
        raise JudgeError(f"diagram grade must be 1, 0.5 or 0, got {value}")
    return value
