"""The solver: a LangGraph draw–observe–revise loop, model backends, prompts and visual traces.

Public surface: `solve`, `Solver`, `ChatSolver`, `load_model`, `backend_names`, `ask_text`,
`Budget`, `Prediction`, `Trace`, `Step`, `prompt_hashes`; image generators: `load_generator`,
`generator_names`, `ImageSolver`, `ImageOptions`, `ImageRequest`, `ImageResponse`.
Names are imported on first use, so `import mcot.agents.trace` (what eval reads) does not load LangGraph or
the provider SDKs. See docs/agent.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcot.core.lazy import lazy_exports

_EXPORTS = {
    "AgentError": "mcot.agents.errors",
    "ModelError": "mcot.agents.errors",
    "ModelSpecError": "mcot.agents.errors",
    "PromptError": "mcot.agents.errors",
    "Budget": "mcot.agents.budget",
    "ModelBackend": "mcot.agents.backends.base",
    "ModelRequest": "mcot.agents.backends.base",
    "ModelResponse": "mcot.agents.backends.base",
    "load_model": "mcot.agents.backends",
    "backend_names": "mcot.agents.backends",
    "ask_text": "mcot.agents.ask",
    "prompt_hashes": "mcot.agents.prompts",
    "Prediction": "mcot.agents.solver",
    "solve": "mcot.agents.solver",
    "Solver": "mcot.agents.solver",
    "ChatSolver": "mcot.agents.solver",
    "Recorder": "mcot.agents.trace",
    "Step": "mcot.core.rundir.traces",
    "Trace": "mcot.core.rundir.traces",
    "GeneratedImage": "mcot.agents.generators",
    "GeneratorError": "mcot.agents.generators",
    "ImageGenerator": "mcot.agents.generators",
    "ImageRequest": "mcot.agents.generators",
    "ImageResponse": "mcot.agents.generators",
    "generator_names": "mcot.agents.generators",
    "load_generator": "mcot.agents.generators",
    "ImageOptions": "mcot.agents.generators.solver",
    "ImageSolver": "mcot.agents.generators.solver",
}

if TYPE_CHECKING:
    from mcot.agents.ask import ask_text
    from mcot.agents.backends import backend_names, load_model
    from mcot.agents.backends.base import ModelBackend, ModelRequest, ModelResponse
    from mcot.agents.budget import Budget
    from mcot.agents.errors import AgentError, ModelError, ModelSpecError, PromptError
    from mcot.agents.generators import (
        GeneratedImage,
        GeneratorError,
        ImageGenerator,
        ImageRequest,
        ImageResponse,
        generator_names,
        load_generator,
    )
    from mcot.agents.generators.solver import ImageOptions, ImageSolver
    from mcot.agents.prompts import prompt_hashes
    from mcot.agents.solver import ChatSolver, Prediction, Solver, solve
    from mcot.agents.trace import Recorder

    from mcot.core.rundir.traces import Step, Trace


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


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
    "Solver",
    "Step",
    "Trace",
    "ask_text",
    "backend_names",
    "generator_names",
    "load_generator",
    "load_model",
    "prompt_hashes",
    "solve",
]
