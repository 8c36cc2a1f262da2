"""The solver: a LangGraph draw–observe–revise loop, model backends, prompts and visual traces.

Public surface: `solve`, `Solver`, `ChatSolver`, `load_model`, `register_backend`, `backend_names`, `ask_text`,
`Budget`, `Prediction`, `Trace`, `Step`, `prompt_hashes`; image generators: `load_generator`,
`register_generator`, `generator_names`, `ImageSolver`, `ImageOptions`, `ImageRequest`, `ImageResponse`.
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
    "GeneratedImage": "agents.generators",
    "GeneratorError": "agents.generators",
    "ImageGenerator": "agents.generators",
    "ImageRequest": "agents.generators",
    "ImageResponse": "agents.generators",
    "generator_names": "agents.generators",
    "load_generator": "agents.generators",
    "register_generator": "agents.generators",
    "ImageOptions": "agents.generators.solver",
    "ImageSolver": "agents.generators.solver",
}

if TYPE_CHECKING:
    from agents.ask import ask_text
    from agents.backends import backend_names, load_model, register_backend
    from agents.backends.base import ModelBackend, ModelRequest, ModelResponse
    from agents.budget import Budget
    from agents.errors import AgentError, ModelError, ModelSpecError, PromptError
    from agents.generators import (
        GeneratedImage,
        GeneratorError,
        ImageGenerator,
        ImageRequest,
        ImageResponse,
        generator_names,
        load_generator,
        register_generator,
    )
    from agents.generators.solver import ImageOptions, ImageSolver
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
    "GeneratedImage",
    "GeneratorError",
    "ImageGenerator",
    "ImageOptions",
    "ImageRequest",
    "ImageResponse",
    "ImageSolver",
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
    "generator_names",
    "load_generator",
    "load_model",
    "prompt_hashes",
    "register_backend",
    "register_generator",
    "solve",
]
