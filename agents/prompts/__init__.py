"""Prompt templates (one file each, `string.Template` syntax) and their sha256 for the run manifest.

`task.<benchmark>.txt` is the benchmark's own inference protocol, used verbatim in text mode and as the
task text in canvas mode, so both modes answer in the same format. `system.canvas.txt` explains the
canvas and its tools; `observation*.txt` caption the canvas images.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from agents.errors import PromptError

TASK_BENCHMARKS = ("rbench-v", "gepbench", "gobench", "omniphys")
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
    """A loaded template: its file name, text and sha256."""

    name: str
    text: str
    sha256: str

    def render(self, **values: Any) -> str:
        """Return the template filled with `values`; raise PromptError naming a missing placeholder."""
        try:
            return string.Template(self.text).substitute(values).strip()
        except (KeyError, ValueError) as exc:
            raise PromptError(f"prompt template {self.name} needs the value {exc}") from None


@cache
def load_prompt(name: str) -> PromptTemplate:
    """Return the template file `name` of this folder (e.g. `task.gepbench.txt`)."""
    try:
        text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        raise PromptError(f"no prompt template {name!r} in agents/prompts") from None
    return PromptTemplate(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest())


def prompt_hashes() -> dict[str, str]:
    """Return {template file name: sha256} for every template (recorded in the run manifest)."""
    names = sorted(p.name for p in resources.files(__package__).iterdir() if p.name.endswith(".txt"))
    return {name: load_prompt(name).sha256 for name in names}


def task_template_name(benchmark: str) -> str:
    """Return the task template file for a benchmark (`task.default.txt` for others, e.g. games)."""
    return f"task.{benchmark}.txt" if benchmark in TASK_BENCHMARKS else "task.default.txt"


def render_task(benchmark: str, question: str, choices: tuple[str, ...] | None, answer_type: str) -> str:
    """Return the task text of an item under its benchmark's inference protocol."""
    lines = "".join(f"{chr(65 + i)}. {choice}\n" for i, choice in enumerate(choices or ()))
    return load_prompt(task_template_name(benchmark)).render(
        question=question.strip(),
        choices_lines=lines,
        choices_block=("\n\n" + lines.rstrip("\n")) if lines else "",
        answer_format=_ANSWER_FORMATS.get(answer_type, "a short answer"),
    )


def format_final_answer(benchmark: str, value: str) -> str:
    """Return `value` written as a final answer in the format the benchmark's protocol asks for."""
    if benchmark == "gepbench" or benchmark == "gobench":
        return value
    if benchmark == "omniphys":
        return f"Answer: {value}"
    return f"\\boxed{{{value}}}"
