"""The draw–observe–revise loop as a LangGraph StateGraph.

    prepare → model ─(tool calls)→ tools → observe → model …
                    └(answer, budget or error)→ END

The state holds control flow only (turn count, status, pending calls, last answer) and the sha256 of the
latest canvas snapshot; the conversation, the canvas and the image bytes live in the Session passed as
the graph's runtime context (and in the BlobStore), so no checkpoint ever copies an image.
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from mcot.agents.messages import ToolCall
from mcot.agents.session import Session


class LoopState(TypedDict):
    """The graph's state: small, JSON-friendly, no images."""

    turns: int
    status: str
    answer: str
    error: str | None
    pending: list[dict[str, str | None]]
    changed: list[str]
    canvas_sha: str | None


def initial_state() -> LoopState:
    """Return the state a solve starts from."""
    return {
        "turns": 0,
        "status": "running",
        "answer": "",
        "error": None,
        "pending": [],
        "changed": [],
        "canvas_sha": None,
    }


async def prepare(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """Open the canvas (when the arm offers tools) and build the opening messages."""
    await runtime.context.prepare()
    return {"canvas_sha": runtime.context.canvas_sha}


async def model(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """Ask the model for its next turn."""
    session = runtime.context
    status, error, calls = await session.call_model()
    return {
        "turns": session.turns,
        "status": status,
        "error": error,
        "answer": session.answer,
        "pending": [{"id": c.id, "name": c.name, "arguments": c.arguments, "problem": c.problem} for c in calls],
    }


async def tools(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """Run the pending tool calls on the canvas."""
    calls = tuple(
        ToolCall(str(c["id"]), str(c["name"]), str(c["arguments"]), c.get("problem")) for c in state["pending"]
    )
    changed = await runtime.context.run_tools(calls)
    return {"pending": [], "changed": changed}


async def observe(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """Render the canvas and attach it for the model's next turn."""
    await runtime.context.observe(state["changed"])
    return {"changed": [], "canvas_sha": runtime.context.canvas_sha}


async def after_model(state: LoopState) -> str:
    """Return the next node: tools while calls are pending, else the end (async: no executor hop)."""
    return "tools" if state["status"] == "running" and state["pending"] else END


async def run_text_loop(session: Session) -> LoopState:
    """Return the final state of the text loop (no tools): `prepare` then one `model` turn, run directly.

    The graph would end after that turn anyway (no tool calls are ever pending); its per-solve set-up (channels,
    configs, callback managers, one task a step) is about 1 ms of event-loop CPU, half of a text solve's.
    The steps, trace and outcome are the same as through `solver_graph()`.
    """
    state = initial_state()
    await session.prepare()
    status, error, _ = await session.call_model()
    state.update(turns=session.turns, status=status, error=error, answer=session.answer, canvas_sha=session.canvas_sha)
    return state


@cache
def solver_graph() -> CompiledStateGraph:
    """Return the compiled solver graph (built once, shared by all concurrent solves)."""
    graph = StateGraph(LoopState, context_schema=Session)
    graph.add_node("prepare", prepare)
    graph.add_node("model", model)
    graph.add_node("tools", tools)
    graph.add_node("observe", observe)
    graph.add_edge(START, "prepare")
    graph.add_edge("prepare", "model")
    graph.add_conditional_edges("model", after_model, ["tools", END])
    graph.add_edge("tools", "observe")
    graph.add_edge("observe", "model")
    return graph.compile()
