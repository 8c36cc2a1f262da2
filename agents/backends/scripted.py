"""`scripted:FILE` — replays assistant turns from a JSON file (format in DESIGN.md), for tests and docs.

The turn to play is the number of assistant turns already in the conversation, so one backend serves
any number of concurrent items, each from the file's first turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcot.agents.backends.base import DETERMINISTIC, ModelRequest, ModelResponse, Usage
from mcot.agents.errors import ModelError, ModelSpecError
from mcot.agents.messages import ToolCall
from mcot.benchmarks.inputs import InputFileError, read_regular

SCRIPTED_MAX_BYTES = 64 * 1024 * 1024
"""The largest scripted file read (turns of text and tool calls: a few kilobytes in practice)."""


class ScriptedBackend:
    """Plays `[{"text": ..., "tool_calls": [{"name": ..., "arguments": {...}}]}, ...]` in order.

    The file may instead hold `{"text": [turns], "canvas": [turns], ...}` to script each arm separately (keys
    are arm names); an arm without its own list plays "text" when no tools are offered, else "canvas".
    """

    provider = "scripted"

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.spec = f"scripted:{path}"
        self.model = self.path.name
        try:
            text = read_regular(self.path, what="scripted file", max_bytes=SCRIPTED_MAX_BYTES).decode("utf-8")
            turns = json.loads(text)
        except InputFileError as exc:  # a FIFO, a device, a folder, or too large: refused without blocking
            raise ModelSpecError(str(exc)) from None
        except OSError as exc:
            raise ModelSpecError(f"scripted file {self.path} cannot be read: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise ModelSpecError(f"scripted file {self.path} is not JSON: {exc}") from None
        if isinstance(turns, dict):
            self.by_arm = {str(arm): self._check_list(value) for arm, value in turns.items()}
        else:
            self.by_arm = {"text": self._check_list(turns), "canvas": self._check_list(turns)}
        if not self.by_arm:
            raise ModelSpecError(f"scripted file {self.path} scripts no arm")

    def sampling_support(self) -> dict[str, str]:
        """Return that temperature and seed are ignored: the turns are fixed."""
        return dict(DETERMINISTIC)

    def _turns(self, request: ModelRequest) -> list[dict[str, Any]]:
        arm = str(request.hints.get("mode", ""))
        if arm in self.by_arm:
            return self.by_arm[arm]
        preferred = ("text", "canvas") if request.tools is None else ("canvas", "text")
        return next((self.by_arm[a] for a in preferred if a in self.by_arm), next(iter(self.by_arm.values())))

    def _check_list(self, turns: Any) -> list[dict[str, Any]]:
        if not isinstance(turns, list):
            raise ModelSpecError(
                f"scripted file {self.path} must hold a list of turns, "
                'or one list per arm: {"text": [...], "canvas": [...]}'
            )
        return [self._check(turn, i) for i, turn in enumerate(turns)]

    def _check(self, turn: Any, index: int) -> dict[str, Any]:
        if not isinstance(turn, dict) or not isinstance(turn.get("text", ""), str):
            raise ModelSpecError(
                f"scripted file {self.path}: turn {index} must be an object "
                '{"text": str, "tool_calls": [{"name": str, "arguments": {...}}]}'
            )
        for call in turn.get("tool_calls") or []:
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                raise ModelSpecError(f"scripted file {self.path}: turn {index} has a tool call without a name")
        return turn

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the next scripted turn of this conversation."""
        turns = self._turns(request)
        index = sum(1 for m in request.messages if m.role == "assistant")
        if index >= len(turns):
            raise ModelError(f"scripted file {self.path} has {len(turns)} turns; turn {index + 1} was asked for")
        turn = turns[index]
        calls = tuple(
            ToolCall(
                id=f"scripted_{index}_{n}",
                name=call["name"],
                arguments=call["arguments"]
                if isinstance(call.get("arguments"), str)
                else json.dumps(call.get("arguments", {})),
            )
            for n, call in enumerate(turn.get("tool_calls") or [], start=1)
        )
        text = turn.get("text", "")
        return ModelResponse(text=text, tool_calls=calls, usage=Usage(0, 0), stop_reason="tool_use" if calls else "end")
