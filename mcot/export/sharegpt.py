"""The `sharegpt` view: LLaMA-Factory's sharegpt format with tools and images (LLaMA-Factory 0.9.5, data/README.md).

`{"conversations": [{"from": "human"|"gpt"|"function_call"|"observation", "value"}], "system", "tools", "images"}`:
human and observation turns at odd positions (1st, 3rd, …), gpt and function_call at even ones, an even count
(the last turn is the model's); one `<image>` token per entry of `images`, in order; `tools` the JSON text of
the function definitions. A turn with tool calls is a `function_call` whose value keeps the model's text before
the calls in LLaMA-Factory's tool-call words (`text\\n<tool_call>\\n[{"name", "arguments"}, …]\\n</tool_call>`: its
FunctionFormatter keeps the text as the turn's thought); the results of one round are one `observation` (joined
by `</tool_response>\\n<tool_response>` as LLaMA-Factory's own OpenAI converter joins them) followed by the
canvas the model was shown next. A conversation that ends on an observation (a budget stop) loses that last
turn, which has no answer to learn.
"""

from __future__ import annotations

import json
from typing import Any

from mcot.export.conversation import Conversation, Turn, conversation
from mcot.export.images import ImageCatalog
from mcot.export.records import Pair
from mcot.export.views import IMAGE_TOKEN, human_value, text_value, tool_definitions

HUMAN, GPT, FUNCTION_CALL, OBSERVATION = "human", "gpt", "function_call", "observation"
TOOL_RESPONSE_JOIN = "\n</tool_response>\n<tool_response>\n"
"""How LLaMA-Factory's OpenAI-format converter joins the tool results of one round into one observation."""
TOOL_CALL_OPEN, TOOL_CALL_CLOSE = "<tool_call>", "</tool_call>"
"""LLaMA-Factory's default tool-call words (every template's): the text around them is kept as the thought."""


def function_call_value(turn: Turn) -> str:
    """Return the value of a function_call turn: the model's text, then its calls in LLaMA-Factory's tool-call words."""
    calls = []
    for call in turn.tool_calls:
        try:
            arguments: Any = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            arguments = call.arguments
        calls.append({"name": call.name, "arguments": arguments})
    text = "\n".join(text_value(value) for kind, value in turn.parts if kind == "text" and value)
    body = text_value(json.dumps(calls, ensure_ascii=False))
    block = f"{TOOL_CALL_OPEN}\n{body}\n{TOOL_CALL_CLOSE}"
    return f"{text}\n{block}" if text else block


def sharegpt_turns(talk: Conversation) -> tuple[str | None, list[dict[str, str]]]:
    """Return (system prompt, sharegpt turns) of a conversation, alternating as LLaMA-Factory requires."""
    system: str | None = None
    turns: list[dict[str, str]] = []
    results: list[str] = []

    def add(speaker: str, value: str) -> None:
        side = speaker in (HUMAN, OBSERVATION)
        if turns and (turns[-1]["from"] in (HUMAN, OBSERVATION)) == side:
            turns[-1]["value"] += "\n" + value  # the canvas shown after a round joins that round's observation
        else:
            turns.append({"from": speaker, "value": value})

    def flush() -> None:
        if results:
            add(OBSERVATION, TOOL_RESPONSE_JOIN.join(results))
            results.clear()

    for turn in talk.turns:
        if turn.role == "system":
            system = "\n".join(value for kind, value in turn.parts if kind == "text")
        elif turn.role == "tool":
            results.append(human_value(turn.parts))
        elif turn.role == "user":
            flush()
            add(HUMAN, human_value(turn.parts))
        else:
            flush()
            add(FUNCTION_CALL if turn.tool_calls else GPT, function_call_value(turn) if turn.tool_calls else _gpt(turn))
    flush()
    while turns and turns[-1]["from"] in (HUMAN, OBSERVATION):
        turns.pop()
    return system, turns


def _gpt(turn: Turn) -> str:
    return "\n".join(text_value(value) for kind, value in turn.parts if kind == "text" and value)


def sharegpt_view(pair: Pair, catalog: ImageCatalog, notes: list[str]) -> dict[str, Any]:
    """Return the `sharegpt` view: the flags, `conversations`, `system`, `tools` (JSON text) and `images` in token
    order (only the images of the turns kept)."""
    talk = conversation(pair, catalog)
    notes.extend(talk.notes)
    system, turns = sharegpt_turns(talk)
    tokens = sum(turn["value"].count(IMAGE_TOKEN) for turn in turns)
    images = [value for turn in talk.turns for kind, value in turn.parts if kind == "image"][:tokens]
    definitions = [entry["function"] for entry in tool_definitions(pair, talk.tools, notes)]
    return {
        **pair.flags(),
        "system": system or "",
        "tools": json.dumps(definitions, ensure_ascii=False) if definitions else "",
        "images": images,
        "conversations": turns,
    }
