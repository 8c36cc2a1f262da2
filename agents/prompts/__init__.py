"""Prompt templates (one file each, `string.Template` syntax), the benchmarks' task formats, and their sha256.

A benchmark's task format is its inference protocol as the model sees it: the task template (used verbatim
in text mode and as the task text in canvas mode, so every arm answers in the same format) and the writer of
a final answer in that format. Both come from the benchmark's declaration (`prompt`, `answer`;
`mcot.registry.BENCHMARKS`); an undeclared benchmark gets `task.default.txt` and `boxed`. Nothing here knows a
benchmark's name. `system.canvas.txt` explains the canvas and its tools;
`observation*.txt` caption the canvas images.
"""

from __future__ import annotations

import hashlib
import importlib
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from mcot.agents.errors import PromptError

from mcot.template_text import template_body

DEFAULT_TASK_TEMPLATE = "task.default.txt"
GENERATED_SYSTEM_PROMPT = "system.generated.txt"
"""The system prompt of an arm whose toolset names none: it lists the arm's own tools (`tool_summaries`) and no other."""
IMAGE_TASK_TEMPLATE = "task.image.txt"
_ANSWER_FORMATS = {
    "choice": "the option's letter",
    "number": "a number",
    "yesno": "Yes, No or Cannot be determined",
    "rating": "a single integer rating from 1 to 5",
    "text": "a short answer",
    "image": "a short answer",
}


@dataclass(frozen=True)
class PromptTemplate:
    """A loaded template: its name, text and sha256."""

    name: str
    text: str
    sha256: str

    @classmethod
    def from_text(cls, name: str, text: str) -> PromptTemplate:
        """Return a template made from `text` (not a file of agents/prompts) under `name`, with its sha256."""
        return cls(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest())

    def render(self, **values: Any) -> str:
        """Return the template (its source header left out) filled with `values`; raise PromptError naming a
        missing placeholder."""
        try:
            return string.Template(template_body(self.text)).substitute(values).strip()
        except (KeyError, ValueError) as exc:
            raise PromptError(f"prompt template {self.name} needs the value {exc}") from None


FILLED_AT_LOAD = {"canvas_tools": "mcot.tools.canvas_ops:prompt_listing"}
"""Placeholders a template file may hold that are filled when it is loaded, from the function named (the list of
canvas tools comes from the canvas's op table), so that the template's sha256 covers what the model reads."""


def load_prompt(name: str) -> PromptTemplate:
    """Return the template file `name` of this folder (e.g. `task.gepbench.txt`), its FILLED_AT_LOAD placeholders filled."""
    return _template(name, _fill_at_load(_read(name)))


@cache
def _read(name: str) -> str:
    try:
        return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        raise PromptError(f"no prompt template {name!r} in agents/prompts") from None


@cache
def _template(name: str, text: str) -> PromptTemplate:
    return PromptTemplate.from_text(name, text)


def _fill_at_load(text: str) -> str:
    values: dict[str, str] = {}
    for key, ref in FILLED_AT_LOAD.items():
        if f"${key}" in text:
            module, _, function = ref.partition(":")
            values[key] = str(getattr(importlib.import_module(module), function)()).replace("$", "$$")
    return string.Template(text).safe_substitute(values) if values else text


def _template_files() -> list[str]:
    """Return the names of the template files of this folder, sorted."""
    return sorted(p.name for p in resources.files(__package__).iterdir() if p.name.endswith(".txt"))


def tool_summaries(schemas: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """Return (name, the first line of its description) of each tool entry (Chat Completions or Messages form)."""
    found: list[tuple[str, str]] = []
    for entry in schemas:
        spec = entry.get("function", entry) if isinstance(entry, dict) else {}
        name = str(spec.get("name") or "")
        description = str(spec.get("description") or "").strip().splitlines()
        found.append((name, description[0] if description else ""))
    return found


# --- final-answer writers ----------------------------------------------------------------------------------


def boxed(value: str) -> str:
    """Return `value` as `\\boxed{value}` (RBench-V's form, and the default)."""
    return f"\\boxed{{{value}}}"


def bare(value: str) -> str:
    """Return `value` unchanged (an answer alone on the last line)."""
    return value


def answer_line(value: str) -> str:
    """Return `value` as the line `Answer: value`."""
    return f"Answer: {value}"


# --- task formats: from the benchmark's declaration --------------------------------------------------------


@dataclass(frozen=True)
class TaskFormat:
    """A benchmark's inference protocol: its task template and the writer of a final answer in its form."""

    template: PromptTemplate
    final_answer: Callable[[str], str]


def load_template(reference: str | PromptTemplate) -> PromptTemplate:
    """Return the template a declaration names: a file of this folder (`task.gepbench.txt`), a file of another
    package (`my_plugin:task.txt`, read with importlib.resources, named by its reference), or the template."""
    if isinstance(reference, PromptTemplate):
        return reference
    return _package_template(reference)


@cache
def _package_template(reference: str) -> PromptTemplate:
    package, colon, name = reference.partition(":")
    if not colon:
        return load_prompt(reference)
    try:
        text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        raise PromptError(f"no prompt template {name!r} in the package {package!r}") from None
    return PromptTemplate.from_text(reference, text)


def task_format(benchmark: str) -> TaskFormat:
    """Return the task format of a declared benchmark; the default (task.default.txt, boxed) otherwise."""
    from mcot.registry import ANSWER_FORMS, BENCHMARKS

    declared = BENCHMARKS.find(benchmark)
    if declared is None:
        return TaskFormat(load_prompt(DEFAULT_TASK_TEMPLATE), boxed)
    return TaskFormat(load_template(declared.prompt), ANSWER_FORMS.get(declared.answer).write)


def prompt_hashes(benchmarks: Iterable[str] | None = None) -> dict[str, str]:
    """Return {template name: sha256} of this folder's template files and of the task templates of `benchmarks`
    (every declared benchmark when None), sorted by name: what a run's manifest records."""
    from mcot.registry import BENCHMARKS

    known = {name: load_prompt(name).sha256 for name in _template_files()}
    names = BENCHMARKS.names() if benchmarks is None else benchmarks
    for name in names:
        template = task_format(name).template
        if known.setdefault(template.name, template.sha256) != template.sha256:
            raise PromptError(
                f"benchmark {name!r}: a different prompt template is already named {template.name!r} (the manifest "
                "records templates by name); give its template another name"
            )
    return dict(sorted(known.items()))


def render_task(
    benchmark: str, question: str, choices: tuple[str, ...] | None, answer_type: str, *, has_image: bool = True
) -> str:
    """Return the task text of an item under its benchmark's inference protocol.

    An item answered with an image (a diagram to edit) gets `task.image.txt` whatever its benchmark: its answer
    is the final canvas, not a line of text. An item without an image gets its benchmark's text-only template
    where one exists (`NAME.text-only.txt` beside `NAME.txt`: a public prompt that says "according to the given
    picture" only when there is one). The question is sent as the item holds it.
    """
    lines = "".join(f"{chr(65 + i)}. {choice}\n" for i, choice in enumerate(choices or ()))
    if answer_type == "image":
        template = load_prompt(IMAGE_TASK_TEMPLATE)
    else:
        template = task_format(benchmark).template
        if not has_image:
            template = text_only_variant(template)
    return template.render(
        question=question,
        choices_lines=lines,
        choices_block=("\n\n" + lines.rstrip("\n")) if lines else "",
        answer_format=_ANSWER_FORMATS.get(answer_type, "a short answer"),
    )


def text_only_variant(template: PromptTemplate) -> PromptTemplate:
    """Return the text-only sibling of a task template (`NAME.text-only.txt` beside `NAME.txt`), else the template."""
    stem, dot, suffix = template.name.rpartition(".")
    if not dot or suffix != "txt":
        return template
    sibling = f"{stem}.text-only.txt"
    try:
        return load_template(sibling)
    except PromptError:
        return template


def format_final_answer(benchmark: str, value: str) -> str:
    """Return `value` written as a final answer in the format the benchmark's protocol asks for."""
    return task_format(benchmark).final_answer(value)
