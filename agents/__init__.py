"""The solver: a LangGraph draw–observe–revise loop, model backends, prompts and visual traces.

Public surface: `solve`, `Solver`, `ChatSolver`, `load_model`, `register_backend`, `backend_names`, `ask_text`,
`Budget`, `Prediction`, `Trace`, `Step`, `prompt_hashes`.
Names are imported on first use, so `import agents.trace` (what eval reads) does not load LangGraph or
the provider SDKs. See docs/agent.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "AgentError": "agents.errors",
    "ModelError": "agents.errors",
    "ModelSpecError": "agents.errors",
    "PromptError": "agents.errors",
    "Budget": "agents.budget",
    "ModelBackend": "agents.backends.base",
    "ModelRequest": "agents.backends.base",
    "ModelResponse": "agents.backends.base",
    "load_model": "agents.backends",
    "register_backend": "agents.backends",
    "backend_names": "agents.backends",
    "Registry": "agents.registry",
    "ask_text": "agents.ask",
    "prompt_hashes": "agents.prompts",
    "Prediction": "agents.solver",
    "solve": "agents.solver",
    "Solver": "agents.solver",
    "ChatSolver": "agents.solver",
    "Recorder": "agents.trace",
    "Step": "agents.trace",
    "Trace": "agents.trace",
}

if TYPE_CHECKING:
    from agents.ask import ask_text
    from agents.backends import backend_names, load_model, register_backend
    from agents.backends.base import ModelBackend, ModelRequest, ModelResponse
    from agents.budget import Budget
    from agents.errors import AgentError, ModelError, ModelSpecError, PromptError
    from agents.prompts import prompt_hashes
    from agents.registry import Registry
    from agents.solver import ChatSolver, Prediction, Solver, solve
    from agents.trace import Recorder, Step, Trace


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agents' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "AgentError",
    "Budget",
    "ChatSolver",
    "ModelBackend",
    "ModelError",
    "ModelRequest",
    "ModelResponse",
    "ModelSpecError",
    "Prediction",
    "PromptError",
    "Recorder",
    "Registry",
    "Solver",
    "Step",
    "Trace",
    "ask_text",
    "backend_names",
    "load_model",
    "prompt_hashes",
    "register_backend",
    "solve",
]
