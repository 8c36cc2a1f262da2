"""mcot's canvas as a training environment: a TRL environment, verl tools, episodes written as runs.

- `CanvasEnv` (mcot.env.trl): TRL's `environment_factory` class; `CanvasEnv.with_toolset("tools")` for the
  domain tools too.
- `mcot.env.verl`: verl `BaseTool` subclasses over the same canvas, and the YAML tool config that verl's
  `initialize_tools_from_config` loads (`mcot env verl-config`).
- `remote_environment(servers)` (mcot.env.remote): the same TRL class over `mcot env serve` servers (OpenEnv), so
  that rollouts' canvases live on other machines; `mcot.env.openenv_server` is that server.
- `Episode` (mcot.env.episode): one item's canvas and the calls made on it, with the op log and trace steps of a
  run; `write_episodes` (mcot.env.runs) writes episodes as a run directory that `mcot view` opens.

Names are imported on first use, so that `import mcot.env` loads no trainer and no canvas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcot.lazy import lazy_exports

_EXPORTS = {
    "CanvasEnv": "mcot.env.trl",
    "CanvasEnvironment": "mcot.env.trl",
    "Episode": "mcot.env.episode",
    "EpisodeError": "mcot.env.episode",
    "write_episodes": "mcot.env.runs",
    "remote_environment": "mcot.env.remote",
}

if TYPE_CHECKING:
    from mcot.env.episode import Episode, EpisodeError
    from mcot.env.remote import remote_environment
    from mcot.env.runs import write_episodes
    from mcot.env.trl import CanvasEnv, CanvasEnvironment


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


__all__ = ["CanvasEnv", "CanvasEnvironment", "Episode", "EpisodeError", "remote_environment", "write_episodes"]
