"""The draw–observe–revise loop: four nodes and their edges, run directly or as a LangGraph StateGraph.

    prepare → model ─(tool calls)→ tools → observe → model …
                    └(answer, budget or error)→ END

The state holds control flow only (turn count, status, pending calls, last answer) and the sha256 of the
latest canvas snapshot; the conversation, the canvas and the image bytes live in the Session passed as
the graph's runtime context (and in the BlobStore), so no checkpoint ever copies an image.

The nodes and edges are declared once (`NODES`, `EDGES`, `BRANCHES`). `run_loop` walks them in order, one node
a step, as LangGraph's engine would for this graph (each step here is one of its supersteps), without the
engine's per-step set-up: channels, configs, callback managers and one task a step cost more event-loop CPU
than a model call, and importing LangGraph is half a second of a run's start-up. `solver_graph()` builds the
same tables into a LangGraph `StateGraph` for whoever wants the engine (checkpointers, streaming, LangGraph
tooling); tests/agents/test_loop.py checks that both give the same predictions and traces.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, cast

from mcot.agents.messages import ToolCall
from mcot.agents.session import Session

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

END = "__end__"
"""The name of the loop's end (LangGraph's `END`)."""


class StepLimitError(RecursionError):
    """The loop ran more steps than its limit (LangGraph's GraphRecursionError, for the direct loop)."""


class NodeRuntime(Protocol):
    """What a node is given: the Session it works on (LangGraph's `Runtime[Session]` is one)."""

    @property
    def context(self) -> Session:
        """Return the Session of the solve."""
        ...


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


async def prepare(state: LoopState, runtime: NodeRuntime) -> dict[str, Any]:
    """Open the canvas (when the arm offers tools) and build the opening messages."""
    await runtime.context.prepare()
    return {"canvas_sha": runtime.context.canvas_sha}


async def model(state: LoopState, runtime: NodeRuntime) -> dict[str, Any]:
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


async def tools(state: LoopState, runtime: NodeRuntime) -> dict[str, Any]:
    """Run the pending tool calls on the canvas."""
    calls = tuple(
        ToolCall(str(c["id"]), str(c["name"]), str(c["arguments"]), c.get("problem")) for c in state["pending"]
    )
    changed = await runtime.context.run_tools(calls)
    return {"pending": [], "changed": changed}


async def observe(state: LoopState, runtime: NodeRuntime) -> dict[str, Any]:
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
    state["turns"], state["status"], state["error"] = session.turns, status, error
    state["answer"], state["canvas_sha"] = session.answer, session.canvas_sha
    return state


Node = Callable[[Any, NodeRuntime], Awaitable[dict[str, Any]]]

NODES: dict[str, Node] = {"prepare": prepare, "model": model, "tools": tools, "observe": observe}
"""The loop's nodes by name, in the order a solve first reaches them."""

EDGES: dict[str, str] = {"prepare": "model", "tools": "observe", "observe": "model"}
"""Each node's fixed successor."""

BRANCHES: dict[str, tuple[Callable[[Any], Awaitable[str]], tuple[str, ...]]] = {"model": (after_model, ("tools", END))}
"""Each node whose successor its state decides: the function that names it, and the names it may return."""

START_NODE = "prepare"


@dataclass(frozen=True)
class _Runtime:
    context: Session


async def run_loop(session: Session, step_limit: int) -> LoopState:
    """Return the final state of the loop run directly, one node a step from `prepare` to the end.

    More than `step_limit` steps raise StepLimitError (as LangGraph's `recursion_limit` would raise
    GraphRecursionError); whatever a node raises propagates.
    """
    state = initial_state()
    runtime = _Runtime(session)
    node, steps = START_NODE, 0
    while node != END:
        steps += 1
        if steps > step_limit:
            raise StepLimitError(f"Recursion limit of {step_limit} reached without hitting a stop condition.")
        update = await NODES[node](state, runtime)
        state.update(update)  # type: ignore[typeddict-item]  # a node returns some of the state's keys
        branch = BRANCHES.get(node)
        node = await branch[0](state) if branch is not None else EDGES[node]
    return state


@cache
def solver_graph() -> CompiledStateGraph[LoopState, Session, LoopState, LoopState]:
    """Return the loop's nodes and edges compiled as a LangGraph graph (built once, shared by concurrent solves)."""
    # imported here: a run walks the same tables with `run_loop` and never loads LangGraph (half a second)
    from langgraph.graph import END as GRAPH_END
    from langgraph.graph import START, StateGraph

    graph = StateGraph(LoopState, context_schema=Session)
    for name, node in NODES.items():
        graph.add_node(name, cast(Any, node))  # LangGraph's overloads name Runtime[Session]; NodeRuntime is its shape
    graph.add_edge(START, START_NODE)
    for name, successor in EDGES.items():
        graph.add_edge(name, successor)
    for name, (decide, targets) in BRANCHES.items():
        graph.add_conditional_edges(name, decide, [GRAPH_END if t == END else t for t in targets])
    return graph.compile()
