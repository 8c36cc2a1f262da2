"""`python mock_eval.py ITEMS ARM ANSWER LOGS [TASK]`: `inspect eval TASK` (default `mcot/games`) through inspect_ai's own `eval`, with its
mock model playing a drawing turn (in an arm with tools) and then `\\boxed{ANSWER}`; prints the samples as JSON.

Run from outside the repository (a checkout's mcot.egg-info hides the editable install from inspect_ai's
registry, which then names the tasks `games` rather than `mcot/games`).
"""

import json
import sys
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessageAssistant, ModelOutput, ModelUsage, get_model

DRAW = {"start": [10, 10], "end": [200, 150], "color": "red"}


def model(answer: str) -> Any:
    """Return inspect's mock model playing the script: a drawing turn where tools are offered, then the answer."""

    def play(messages: list[Any], tools: list[Any], tool_choice: Any, config: Any) -> ModelOutput:
        turn = sum(isinstance(message, ChatMessageAssistant) for message in messages)
        if turn == 0 and tools:
            output = ModelOutput.for_tool_call("mockllm/model", "draw_line", DRAW, content="drawing")
        else:
            output = ModelOutput.from_content("mockllm/model", f"The route is {answer}.\n\\boxed{{{answer}}}")
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)  # no tokenizer download
        return output

    return get_model("mockllm/model", custom_outputs=play)


def main() -> None:
    items, arm, answer, logs = sys.argv[1:5]
    name = sys.argv[5] if len(sys.argv) > 5 else "mcot/games"
    (log,) = inspect_eval(name, task_args={"data": items, "arm": arm}, model=model(answer), log_dir=logs,
                          display="none", max_samples=1)  # fmt: skip
    samples = []
    for sample in log.samples or []:
        tool = next((m for m in sample.messages if m.role == "tool"), None)
        samples.append({
            "id": str(sample.id),
            "correct": sample.scores["official"].value == "C" if sample.scores else None,
            "roles": [m.role for m in sample.messages],
            "system": sample.messages[0].text if sample.messages[0].role == "system" else None,
            "first": [part.type for part in sample.messages[0 if arm == "text" else 1].content],  # type: ignore[union-attr]
            "tool_content": [part.type for part in tool.content] if tool is not None and isinstance(tool.content, list) else [],
            "tool_text": tool.text if tool is not None else None,
        })  # fmt: skip
    accuracy = log.results.scores[0].metrics["accuracy"].value if log.results else None
    stderr = log.results.scores[0].metrics["stderr"].value if log.results else None
    print(json.dumps({"status": log.status, "task": log.eval.task, "accuracy": accuracy, "stderr": stderr,
                      "samples": samples}))  # fmt: skip


if __name__ == "__main__":
    main()
