"""`SolveRecipe`: everything a worker needs to build a run's chat solvers, small and picklable."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcot.agents.backends import load_model
from mcot.agents.cache import CachedBackend
from mcot.agents.limits import RateLimitedBackend
from mcot.agents.retry import RetryPolicy
from mcot.agents.solver import ChatSolver

if TYPE_CHECKING:
    from mcot.agents.backends.base import ModelBackend
    from mcot.agents.budget import Budget
    from mcot.agents.limits import RateLimits
    from mcot.agents.solver import Solver
    from mcot.arms import Arm
    from mcot.executors.base import Observer


@dataclass(frozen=True)
class SolveRecipe:
    """How to build a run's chat solvers: the model, its endpoints, the arms, the loop's budget, retries,
    rate limits, the response cache.

    `limits` are the run's limits in total: an executor gives each of its N workers `share(N)`. The directory the
    item images are in is the executors' own argument.
    """

    model: str
    arms: tuple[Arm, ...]
    budget: Budget
    base_urls: tuple[str, ...] = ()
    max_tries: int = 6
    timeout_s: float = 180.0
    limits: RateLimits | None = None
    cache_dir: Path | None = None

    def share(self, workers: int) -> SolveRecipe:
        """Return the recipe one of `workers` workers builds from: the same, with its share of the rate limits."""
        if self.limits is None or workers <= 1:
            return self
        return replace(self, limits=self.limits.split(workers))

    def build_backend(self, observer: Observer | None = None) -> ModelBackend:
        """Return the model backend: load_model with retries that tell `observer`, rate-limited, then cached.

        The cache wraps the limiter, so that a cached answer never waits for a request slot.
        """

        retry = RetryPolicy(max_tries=self.max_tries, observer=observer)
        backend: Any = load_model(self.model, base_url=_urls(self.base_urls), timeout_s=self.timeout_s, retry=retry)
        if self.limits is not None and self.limits.active:

            backend = RateLimitedBackend(backend, self.limits)
        if self.cache_dir is not None:

            backend = CachedBackend(backend, self.cache_dir)
        return backend

    def build_solvers(self, observer: Observer | None = None) -> dict[str, Solver]:
        """Return one ChatSolver per arm, by arm name, sharing one backend (see `build_backend`)."""

        backend = self.build_backend(observer)
        return {
            arm.name: ChatSolver(backend, arm.name, tuple(arm.tools), self.budget, sees_canvas=arm.sees_canvas)
            for arm in self.arms
        }


def _urls(base_urls: tuple[str, ...]) -> str | tuple[str, ...] | None:
    if not base_urls:
        return None
    return base_urls[0] if len(base_urls) == 1 else tuple(base_urls)
