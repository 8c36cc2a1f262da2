"""`replay:RUN` — replays a finished run's model turns, with no network and no key.

A request is matched to a recorded turn by its hints (the item id and the arm, `mode`) and its turn index (the
number of assistant messages it holds), and it must have the recorded request key: the same model spec, messages,
images, tools and sampling as the run sent. Then the recorded text, tool calls and token usage come back (cost 0).
A request that differs, or a turn the run never made, ends that item with a ModelError naming the item, the arm,
the turn and what differs — the first differing request of a changed pipeline says what changed.

RUN is read through the run-directory package (`mcot.rundir`, on the ground floor): the manifest and the results
ledger when the backend is built (a RUN made before request keys were recorded is refused there), each trace on
first use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcot.agents.backends.base import ModelRequest, ModelResponse, Usage
from mcot.agents.cache import differing_parts, digest_request
from mcot.agents.errors import ModelError, ModelSpecError
from mcot.agents.messages import ToolCall

from mcot.rundir import (
    MANIFEST,
    RESULTS,
    Manifest,
    Result,
    ResultsLedger,
    RunDirError,
    Step,
    TraceStore,
    latest_by_key,
    read_manifest,
)


class ReplayBackend:
    """A finished run's model turns behind the backend protocol; `model` is the run's model, `spec` `replay:RUN`.

    `key_spec` is the model spec the run's request keys were made with (the original model's, also when RUN was
    itself a replay), so requests are keyed as the run keyed them.
    """

    provider = "replay"

    def __init__(self, run: str | Path) -> None:
        if not str(run).strip():
            raise ModelSpecError("replay needs a run directory: replay:RUN (a finished `mcot run --out RUN`)")
        self.run = Path(run)
        self.spec = f"replay:{run}"
        manifest = self._manifest()
        original = manifest.model_spec
        if not original:
            raise ModelSpecError(f"{self.spec}: {self.run} is not a chat model run (its manifest names no model)")
        self.key_spec = original
        self.model = original.split(":", 1)[1] if ":" in original else original
        self.dataset_sha256 = str(manifest.dataset.sha256 or "")
        self._results = self._read_results()
        self._traces: dict[tuple[str, str], list[Step]] = {}
        self._check_keys_recorded(manifest)

    # --- loading ---------------------------------------------------------------------------------------
    def _manifest(self) -> Manifest:
        path = self.run / MANIFEST
        if not path.is_file():
            raise ModelSpecError(f"{self.spec}: {path} not found; replay needs the directory of a finished `mcot run`")
        try:
            return read_manifest(self.run)
        except RunDirError as exc:
            raise ModelSpecError(f"{self.spec}: {exc}") from None

    def _read_results(self) -> dict[tuple[str, str], Result]:
        path = self.run / RESULTS
        try:
            results = latest_by_key(ResultsLedger(self.run).records())
        except (OSError, RunDirError) as exc:
            raise ModelSpecError(
                f"{self.spec}: {path} cannot be read ({exc}); the run has no results to replay"
            ) from None
        if not results:
            raise ModelSpecError(f"{self.spec}: {path} holds no results; there is nothing to replay")
        return results

    def _check_keys_recorded(self, manifest: Manifest) -> None:
        """Refuse a run whose traces lack request keys; take the spec its keys were made with."""
        for pair in self._results:
            steps = self._steps(pair)
            if not steps:
                continue
            first = steps[0]
            if not first.request_key:
                version = manifest.mcot_version or "unknown"
                raise ModelSpecError(
                    f"{self.spec}: {self.run} was made before mcot recorded request keys (mcot {version}), so its "
                    "turns cannot be matched to requests; re-run it with this mcot to replay it later"
                )
            self.key_spec = (first.request_parts or {}).get("model") or self.key_spec
            return
        raise ModelSpecError(f"{self.spec}: {self.run} recorded no model turn; there is nothing to replay")

    def _steps(self, pair: tuple[str, str]) -> list[Step]:
        """Return the recorded model steps of one (item id, arm), failed calls included, in order."""
        steps = self._traces.get(pair)
        if steps is None:
            result = self._results.get(pair)
            relative = result.trace if result is not None else None
            steps = []
            if relative:
                try:
                    rows = TraceStore(self.run).read(relative, pair) or []
                except (OSError, ValueError) as exc:
                    raise ModelSpecError(f"{self.spec}: the trace {relative} cannot be read: {exc}") from None
                steps = [step for step in map(Step.from_dict, rows) if step.kind == "model"]
            self._traces[pair] = steps
        return steps

    # --- the backend protocol ----------------------------------------------------------------------------
    def sampling_support(self) -> dict[str, str]:
        """Return that temperature and seed are not sent: recorded turns are replayed."""
        said = f"replayed: the recorded turns of {self.run}"
        return {"temperature": said, "seed": said}

    def check_dataset(self, sha256: str) -> None:
        """Raise ModelSpecError unless `sha256` is the hash of the items RUN was made with."""
        if sha256 != self.dataset_sha256:
            raise ModelSpecError(
                f"{self.spec} was made with other items (dataset sha256 {self.dataset_sha256[:12]}… in {self.run}, "
                f"{sha256[:12]}… now); replay needs the same items (the same --data and --limit)"
            )

    async def generate(self, request: ModelRequest) -> ModelResponse:
        """Return the recorded turn this request matches; raise ModelError when it differs or was never made."""
        item, arm = request.hints.get("id"), request.hints.get("mode")
        if item is None or arm is None:
            raise ModelError(f"{self.spec}: the request carries no item id and arm (hints id, mode) to match a turn by")
        pair = (str(item), str(arm))
        turn = sum(1 for message in request.messages if message.role == "assistant")
        where = f"{self.spec}: item {item}, arm {arm}, model turn {turn + 1}"
        if pair not in self._results:
            raise ModelError(f"{where} was not recorded: the run has no result for this item and arm")
        steps = self._steps(pair)
        if turn >= len(steps):
            raise ModelError(f"{where} was not recorded: the run made {len(steps)} model turns here")
        step = steps[turn]
        if step.error is not None:
            raise ModelError(f"{where} failed in the run: {step.error}")
        digest = digest_request(self.key_spec, request)
        if digest.key != step.request_key:
            why = differing_parts(step.request_parts or {}, digest.parts) or ["the request differs"]
            raise ModelError(f"{where} differs from the recorded request ({'; '.join(why)})")
        usage = step.usage or {}
        return ModelResponse(
            text=step.text or "",
            tool_calls=tuple(_tool_call(call) for call in step.tool_calls or []),
            usage=Usage(int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)),
            stop_reason="tool_calls" if step.tool_calls else "stop",
            tool_calls_in_text=bool(step.tool_calls_in_text),
            request_key=digest.key,
        )


def _tool_call(call: dict[str, Any]) -> ToolCall:
    arguments = call.get("arguments")
    text = arguments if isinstance(arguments, str) else json.dumps(arguments if arguments is not None else {})
    return ToolCall(str(call.get("id") or ""), str(call.get("name") or ""), text)
