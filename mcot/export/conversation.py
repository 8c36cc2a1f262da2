"""Rebuild the conversation a model had on one (item, arm) from its trace, as neutral turns.

What the solver sent (agents/session.py): in the text arm one user turn (the item's images, then the task);
in an arm with tools a system prompt, a first user turn (the canvas note, the canvas image the model saw,
the item's other images, the task), then per round the assistant's text and tool calls, one tool result per
call id, and a user turn with the images tools returned and the updated canvas (or "The canvas is
unchanged."). The system prompt, the task text and the tool schemas are read from the trace's first model step
(`sent`, what the model was given); only a trace written before it was recorded has them rendered again from the
prompt templates and the arm's declaration (`Conversation.notes` says when a template differs from the run's).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from mcot.export.images import ImageCatalog
from mcot.export.records import Pair

UNCHANGED = "The canvas is unchanged."
_SVG_SIZE = re.compile(r'<svg[^>]*\swidth="([\d.]+)"[^>]*\sheight="([\d.]+)"')

Role = Literal["system", "user", "assistant", "tool"]
Part = tuple[Literal["text", "image"], str]


@dataclass(frozen=True)
class ToolCallTurn:
    """A tool call of an assistant turn: its id, the tool's name and the arguments as JSON text."""

    id: str
    name: str
    arguments: str


@dataclass
class Turn:
    """One turn of a rebuilt conversation: text and image parts (images by export name), tool calls or call id."""

    role: Role
    parts: list[Part] = field(default_factory=list)
    tool_calls: list[ToolCallTurn] = field(default_factory=list)
    call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False


@dataclass
class Conversation:
    """The turns of one (item, arm), the tools the arm offered, and notes on how faithfully it was rebuilt."""

    turns: list[Turn]
    tools: tuple[str, ...]
    notes: list[str] = field(default_factory=list)


def _arguments_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)


def _template_note(pair: Pair, name: str, sha256: str) -> str | None:
    recorded = pair.run.manifest.prompts.get(name)
    if recorded and recorded != sha256:
        return f"prompt template {name} changed since the run; the rebuilt text uses the current one"
    return None


def sent_record(pair: Pair) -> dict[str, Any] | None:
    """Return what the model was given before its first turn, as the trace recorded it (None in older traces)."""
    from mcot.rundir.traces import sent_to_model

    return sent_to_model(pair.trace)


def task_text(pair: Pair, notes: list[str]) -> str:
    """Return the item's task text the model was given: the trace's record, else its benchmark's protocol's rendering."""
    sent = sent_record(pair)
    if sent is not None and isinstance(sent.get("task"), str):
        return sent["task"]
    from mcot.agents.prompts import IMAGE_TASK_TEMPLATE, load_prompt, render_task, task_format

    item = pair.item
    template = load_prompt(IMAGE_TASK_TEMPLATE) if item.answer_type == "image" else task_format(item.benchmark).template
    note = _template_note(pair, template.name, template.sha256)
    if note:
        notes.append(note)
    choices = tuple(item.choices) if item.choices else None
    return render_task(item.benchmark, item.question, choices, item.answer_type, has_image=bool(item.images))


def canvas_size(pair: Pair) -> tuple[int, int]:
    """Return the canvas size of a pair: its first image's, else the trace's SVG size, else the blank canvas's."""
    from mcot.agents.session import BLANK_CANVAS

    paths = pair.item_image_paths()
    if paths and paths[0].is_file():
        from PIL import Image

        with Image.open(paths[0]) as image:
            return image.size
    for step in pair.trace:
        match = _SVG_SIZE.search(step.get("svg") or "")
        if match:
            return round(float(match.group(1))), round(float(match.group(2)))
    return BLANK_CANVAS


def offered_tools(pair: Pair) -> tuple[str, ...]:
    """Return the tools the arm offered: the manifest's list, else the registered tools the trace called."""
    listed = pair.run.arm_tools(pair.arm)
    if listed is not None:
        return listed
    from mcot.tools import registry

    known = registry()
    called = [step.get("tool") for step in pair.trace if step.get("kind") == "tool" and step.get("tool") in known]
    return tuple(dict.fromkeys(str(name) for name in called))


def system_prompt(pair: Pair, offered: tuple[str, ...], notes: list[str]) -> str:
    """Return the system prompt of an arm with tools: the trace's record of it, else rendered as the solver renders
    it for this item (the arm's declared template, or the one generated from its tools)."""
    from mcot import tools
    from mcot.agents.budget import Budget
    from mcot.agents.prompts import GENERATED_SYSTEM_PROMPT, load_prompt, load_template, tool_summaries
    from mcot.agents.session import drawn_by
    from mcot.registry import TOOLSETS

    sent = sent_record(pair)
    if sent is not None and isinstance(sent.get("system"), str):
        return sent["system"]
    manifest = pair.run.manifest
    max_steps = manifest.config.get("max_steps") or manifest.solver.get("max_steps")
    width, height = canvas_size(pair)
    sizes = {"width": width, "height": height, "max_steps": max_steps or Budget().max_steps}
    declared = TOOLSETS.find(pair.arm)
    if declared is None or declared.system_prompt is None:
        generated = load_prompt(GENERATED_SYSTEM_PROMPT)
        known = [name for name in offered if name in tools.registry()]
        listing = "\n".join(f"- {name}: {summary}" for name, summary in tool_summaries(tools.openai_tools(known)))
        notes.extend(note for note in [_template_note(pair, generated.name, generated.sha256)] if note)
        return generated.render(tool_listing=listing, **sizes)
    canvas = load_template(declared.system_prompt)
    used = [canvas]
    prompt = canvas.render(**sizes)
    if any(drawn_by(name) == "tool" for name in offered):  # as the solver: only an arm with domain tools
        extra = load_prompt("system.domain-tools.txt")
        used.append(extra)
        prompt += "\n\n" + extra.render()
    notes.extend(note for note in (_template_note(pair, t.name, t.sha256) for t in used) if note)
    return prompt


def _image(catalog: ImageCatalog, pair: Pair, step: dict[str, Any]) -> str | None:
    """Return the export name of the image the model saw at an observation (`seen`, else the full canvas)."""
    rel = step.get("seen") or step.get("image")
    return catalog.add(pair.run.root / rel) if isinstance(rel, str) else None


def _uses_tools(pair: Pair, offered: tuple[str, ...]) -> bool:
    return bool(offered) or any(step.get("kind") == "observation" for step in pair.trace)


def conversation(pair: Pair, catalog: ImageCatalog) -> Conversation:
    """Return the conversation of a pair rebuilt from its trace (see the module docstring for its shape)."""
    notes: list[str] = []
    offered = offered_tools(pair)
    task = task_text(pair, notes)
    item_images = pair.item_image_paths()
    turns: list[Turn] = []
    steps = list(pair.trace)
    if not _uses_tools(pair, offered):
        parts: list[Part] = [("image", name) for name in catalog.add_all(item_images)]
        turns.append(Turn("user", [*parts, ("text", task)]))
        turns.extend(_assistant(step) for step in steps if _is_reply(step))
        return Conversation(turns, (), _unique(notes))
    turns.append(Turn("system", [("text", system_prompt(pair, offered, notes))]))
    opening: list[Part] = []
    if steps and steps[0].get("kind") == "observation":
        first = steps.pop(0)
        opening.append(("text", str(first.get("text") or "")))
        seen = _image(catalog, pair, first)
        if seen:
            opening.append(("image", seen))
        opening.extend(("image", name) for name in catalog.add_all(item_images[1:]))
    else:  # the solve failed before the canvas opened: the item's images as they are
        opening.extend(("image", name) for name in catalog.add_all(item_images))
    turns.append(Turn("user", [*opening, ("text", task)]))
    _rounds(pair, steps, catalog, turns)
    return Conversation(turns, offered, _unique(notes))


def _is_reply(step: dict[str, Any]) -> bool:
    """Return whether a trace step is a model reply (a failed model call is not: the model said nothing)."""
    if step.get("kind") != "model":
        return False
    return not (step.get("error") and not step.get("text") and not step.get("tool_calls"))


def _assistant(step: dict[str, Any]) -> Turn:
    calls = [
        ToolCallTurn(
            str(call.get("id") or f"call_{step.get('step')}_{k}"),
            str(call.get("name")),
            _arguments_text(call.get("arguments")),
        )
        for k, call in enumerate(step.get("tool_calls") or [])
    ]
    text = str(step.get("text") or "")
    return Turn("assistant", [("text", text)] if text or not calls else [], calls)


def _rounds(pair: Pair, steps: list[dict[str, Any]], catalog: ImageCatalog, turns: list[Turn]) -> None:
    """Append the assistant turns, tool results and canvas turns of the steps after the opening observation."""
    pending: list[ToolCallTurn] = []
    after: list[Part] = []  # what the next user turn shows: images returned by tools, then the canvas
    observed = False
    ran_tools = False

    def close_round(next_is_reply: bool) -> None:
        nonlocal after, observed, ran_tools
        for call in pending:  # calls the run never executed (it stopped on a budget or an error)
            reason = pair.error or "the run stopped before this call"
            turns.append(
                Turn("tool", [("text", f"not run: {reason}")], call_id=call.id, tool_name=call.name, is_error=True)
            )
        pending.clear()
        if ran_tools and not observed and next_is_reply:
            after.append(("text", UNCHANGED))
        if after:
            turns.append(Turn("user", after))
        after, observed, ran_tools = [], False, False

    for step in steps:
        kind = step.get("kind")
        if kind == "model":
            if not _is_reply(step):
                continue
            close_round(next_is_reply=True)
            turn = _assistant(step)
            turns.append(turn)
            pending = list(turn.tool_calls)
        elif kind == "tool":
            ran_tools = True
            call = _match(pending, str(step.get("tool")))
            text = step.get("result") if step.get("result") is not None else step.get("error")
            turns.append(
                Turn(
                    "tool",
                    [("text", str(text or ""))],
                    call_id=call.id if call else f"call_{step.get('step')}",
                    tool_name=str(step.get("tool")),
                    is_error=bool(step.get("error")),
                )
            )
            if isinstance(step.get("image"), str):
                name = catalog.add(pair.run.root / step["image"])
                if name:
                    after.append(("image", name))
        elif kind == "observation":
            observed = True
            after.append(("text", str(step.get("text") or "")))
            seen = _image(catalog, pair, step)
            if seen:
                after.append(("image", seen))
    close_round(next_is_reply=False)


def _match(pending: list[ToolCallTurn], name: str) -> ToolCallTurn | None:
    """Remove and return the first pending call to `name` (else the first pending call), or None."""
    for index, call in enumerate(pending):
        if call.name == name:
            return pending.pop(index)
    return pending.pop(0) if pending else None


def _unique(notes: list[str]) -> list[str]:
    return list(dict.fromkeys(notes))


def image_order(turns: list[Turn]) -> list[str]:
    """Return the export names of the conversation's images in the order they appear (repeats kept)."""
    return [value for turn in turns for kind, value in turn.parts if kind == "image"]
