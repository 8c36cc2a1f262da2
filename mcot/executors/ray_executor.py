"""`RayExecutor`: pairs solved by async Ray actors on a cluster (or a local Ray instance), one ledger on the driver.

Each actor builds the run's solvers from the `SolveRecipe` and solves many pairs on its event loop. The driver
sends an item as its JSON line together with the bytes of its images (the actor may be on another machine);
the trace and the image blobs come back as bytes and the driver writes them, so the run directory lives on
the driver alone. Observer events are fetched from every actor a few times a second. `connect` reaches the
cluster first and fails in one line (UsageError) when nothing answers, before the runner writes anything.
`ray` is the optional extra `ray` (`pip install 'mcot[ray]'`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import tempfile
import time
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from mcot.core.errors import UsageError
from mcot.core.inputs import read_image_file
from mcot.core.item import Item, contained_path
from mcot.core.rundir import BlobStore
from mcot.core.rundir.results import Result
from mcot.executors.base import (
    ExecutorError,
    PairOutcome,
    add_counts,
    backend_endpoint_counts,
    solve_outcome,
    tell,
)
from mcot.executors.inprocess import as_run_dir
from mcot.executors.records import failure_record

if TYPE_CHECKING:
    from mcot.agents.retry import Failure
    from mcot.core.item import Item
    from mcot.core.rundir import RunDir
    from mcot.executors.base import Observer
    from mcot.executors.recipe import SolveRecipe

LOCAL_CPUS = 2
"""CPUs of the local Ray instance started when no address is given (and RAY_ADDRESS is unset)."""
PROBE_TIMEOUT_S = 3.0
DEFAULT_CLIENT_PORT = 10001
MAX_CONCURRENCY = 4096
"""Pairs one actor may have in flight; the runner's concurrency is the real bound."""
READY_TIMEOUT_S = 300.0
CLOSE_TIMEOUT_S = 10.0
"""Longest wait at close for the actors' last observer events and their own close (a loaded machine needs seconds)."""
EXTRA_HINT = "pip install 'mcot[ray]'"


def connect(address: str | None = None, *, local_cpus: int = LOCAL_CPUS) -> bool:
    """Connect this process to Ray; return whether this call started it (the caller then shuts it down).

    `address`: "auto" (the cluster this machine belongs to), "HOST:PORT" (a head node), "ray://HOST:PORT" (Ray
    Client), or None: RAY_ADDRESS when set, else a local instance with `local_cpus` CPUs. Raise UsageError in
    one line when the extra is missing or nothing answers at the address (a TCP probe first, so that a dead
    address fails in seconds, not after Ray's minutes of retries). A process already connected keeps its cluster.
    """
    target = reachable(address)
    import ray

    if ray.is_initialized():
        return False
    try:
        if target is None:
            ray.init(num_cpus=local_cpus, include_dashboard=False, logging_level=logging.ERROR)
        else:
            ray.init(address=target, logging_level=logging.ERROR)
    except Exception as exc:
        where = f"the Ray cluster at {target}" if target else "a local Ray instance"
        raise UsageError(f"cannot start or reach {where}: {_first_line(exc)}") from None
    return True


def reachable(address: str | None = None) -> str | None:
    """Return the Ray address `connect` would use (None: a local instance), after checking that the extra is
    installed and that something answers there; raise UsageError in one line otherwise. Starts nothing."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise UsageError(f"the Ray executor needs the optional extra `ray`: {EXTRA_HINT}") from None
    target = address or os.environ.get("RAY_ADDRESS") or None
    if target == "local":
        target = None
    if target is not None:
        probe(target)
    return target


def probe(address: str) -> None:
    """Raise UsageError unless something accepts a TCP connection at a Ray address (resolving "auto")."""
    host_port = address
    if address.startswith("ray://"):
        host_port = address[len("ray://") :]
        if ":" not in host_port.rsplit("]", 1)[-1]:
            host_port = f"{host_port}:{DEFAULT_CLIENT_PORT}"
    elif address == "auto":
        try:
            from ray._private.services import canonicalize_bootstrap_address

            resolved = canonicalize_bootstrap_address("auto")
        except Exception as exc:
            raise UsageError(f"--ray-address auto: {_first_line(exc)}") from None
        if resolved is None:
            raise UsageError("--ray-address auto: no running Ray cluster was found on this machine")
        host_port = resolved
    host, sep, port = host_port.rpartition(":")
    if not sep or not port.isdigit():
        raise UsageError(f"--ray-address {address!r} is not HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise UsageError(f"no Ray cluster answers at {address} ({reason}); start one or check --ray-address") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class RayPairWorker:
    """The body of one Ray actor: the run's solvers, a local copy of the images it was sent, pending events."""

    def __init__(self, recipe: SolveRecipe, relay: bool) -> None:
        self.events: list[Failure | None] = []
        self.solvers = recipe.build_solvers(self._observe if relay else None)
        self._images = tempfile.TemporaryDirectory(prefix="mcot-ray-items-")
        self.view_root = Path(self._images.name)

    def _observe(self, event: Failure | None) -> None:
        self.events.append(event)

    def ready(self) -> int:
        """Return the actor's process id once its solvers are built."""
        return os.getpid()

    async def solve(self, line: str, arm: str, images: dict[str, bytes]) -> PairOutcome:
        """Return the outcome of one pair: the item's images are written under a local root first."""

        for relative, data in images.items():
            target = self.view_root / PurePosixPath(relative)
            if not target.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        item = Item.model_validate_json(line)
        solver = self.solvers.get(arm)
        if solver is None:
            return PairOutcome(failure_record(item, arm, f"KeyError: {arm!r}", 0.0))
        return await solve_outcome(solver, item, arm, self.view_root)

    def drain(self) -> tuple[list[Failure | None], dict[str, dict[str, int]]]:
        """Return (and forget) the observer events so far, and the per-endpoint counts."""
        events, self.events = self.events, []
        return events, backend_endpoint_counts(self.solvers)

    def close(self) -> None:
        """Remove the local copy of the images."""
        self._images.cleanup()


class RayExecutor:
    """Solves pairs on `workers` async Ray actors (default: one per CPU of the cluster); a PairExecutor."""

    poll_s: float = 0.2
    """How often the observer events and endpoint counts are fetched from the actors."""
    where = "a Ray actor"
    """Where a pair runs, for the runner's note on pairs that are slow to finish."""

    def __init__(
        self,
        run_dir: RunDir | Path,
        items_dir: Path,
        recipe: SolveRecipe,
        address: str | None = None,
        workers: int | None = None,
        observer: Observer | None = None,
    ) -> None:
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.run_dir = as_run_dir(run_dir)
        self.items_dir = Path(items_dir)
        self.recipe = recipe
        self.address = address
        self.workers = workers
        self.observer = observer
        self._actors: list[Any] = []
        self._in_flight: list[int] = []
        self._counts: list[dict[str, dict[str, int]]] = []
        self._owns_ray = False
        self._poller: asyncio.Task[None] | None = None
        self._stop_polling: asyncio.Event | None = None
        self._blobs: Any = None

    def connect(self) -> None:
        """Reach the Ray cluster (or start a local instance); raise UsageError in one line if it cannot."""
        if not self._owns_ray:
            self._owns_ray = connect(self.address)

    async def start(self) -> None:
        """Connect, start the actors and wait until each has built its solvers (ExecutorError if one cannot)."""
        if self._actors:
            return
        self.connect()
        import ray

        self._blobs = BlobStore(self.run_dir.blobs_dir)
        cpus = max(1.0, float(ray.cluster_resources().get("CPU", 1)))
        n = self.workers or int(cpus)
        actor_class = ray.remote(RayPairWorker).options(
            num_cpus=min(1.0, cpus / n), max_concurrency=MAX_CONCURRENCY, max_restarts=2
        )
        share = self.recipe.share(n)
        self._actors = [actor_class.remote(share, self.observer is not None) for _ in range(n)]
        self._in_flight = [0] * n
        self._counts = [{} for _ in range(n)]
        self.workers = n
        try:
            async with asyncio.timeout(READY_TIMEOUT_S):
                await asyncio.gather(*(actor.ready.remote() for actor in self._actors))
        except BaseException as exc:
            await self.close()
            if isinstance(exc, Exception):
                raise ExecutorError(f"the Ray workers could not start: {_first_line(exc)}") from None
            raise
        self._stop_polling = asyncio.Event()  # made in the loop that polls
        self._poller = asyncio.create_task(self._poll(self._stop_polling))

    async def solve(self, item: Item, arm: str) -> Result:
        """Return the ledger record of (item, arm) solved by the least busy actor; its trace and blobs written."""
        started = time.perf_counter()
        index = min(range(len(self._actors)), key=self._in_flight.__getitem__)
        self._in_flight[index] += 1
        try:
            images = {relative: read_image_file(contained_path(self.items_dir, relative)) for relative in item.images}
            ref = self._actors[index].solve.remote(item.to_json_line(), arm, images)
            try:
                outcome: PairOutcome = await ref
            except asyncio.CancelledError:
                import ray

                ray.cancel(ref)
                raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return failure_record(item, arm, _failure_reason(exc), time.perf_counter() - started)
        finally:
            self._in_flight[index] -= 1
        return self._keep(item, arm, outcome)

    def _keep(self, item: Item, arm: str, outcome: PairOutcome) -> Result:
        """Write an outcome's blobs and trace into the run directory; return its record with the trace path."""
        record = outcome.record
        try:
            for name, data in outcome.blobs.items():
                self._blobs.put(data, name[64:] or ".png")
            if outcome.trace_text is not None:
                record = record.with_fields({"trace": self.run_dir.traces.write_text(item.id, arm, outcome.trace_text)})
        except Exception as exc:
            return failure_record(item, arm, f"{type(exc).__name__}: {exc}", float(record.latency_s or 0.0))
        return record

    async def _poll(self, stop: asyncio.Event) -> None:
        """Relay the actors' observer events and keep their endpoint counts, every `poll_s` seconds until `stop`."""
        # never cancelled mid-drain: an actor forgets the events it hands over, so a reply dropped is events lost
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.poll_s)
            await self._drain()

    async def _drain(self) -> None:
        replies = await asyncio.gather(*(actor.drain.remote() for actor in self._actors), return_exceptions=True)
        for index, reply in enumerate(replies):
            if isinstance(reply, BaseException):
                continue
            events, counts = reply
            if counts:
                self._counts[index] = counts
            tell(self.observer, events)

    async def close(self) -> None:
        """Stop the actors (and the local Ray instance this executor started)."""
        if self._poller is not None:
            if self._stop_polling is not None:
                self._stop_polling.set()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await self._poller  # its last drain relays what the actors still hold
            self._poller.cancel()
            await asyncio.gather(self._poller, return_exceptions=True)
            self._poller = None
        if self._actors:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await asyncio.gather(*(actor.close.remote() for actor in self._actors), return_exceptions=True)
            import ray

            for actor in self._actors:
                with contextlib.suppress(Exception):
                    ray.kill(actor)
            self._actors = []
        if self._owns_ray:
            import ray

            ray.shutdown()
            self._owns_ray = False

    def describe(self) -> dict[str, Any]:
        """Return the manifest's executor entry: Ray, how many actors, the address (None: a local instance)."""
        return {"kind": "ray", "workers": self.workers, "address": self.address}

    def endpoint_counts(self) -> dict[str, dict[str, int]]:
        """Return the per-endpoint counts summed over the actors."""
        return add_counts(self._counts)


def _failure_reason(exc: Exception) -> str:
    """Return the ledger's reason for a pair the cluster lost: a dead actor, or the error as Ray reports it."""
    name = type(exc).__name__
    if name in ("RayActorError", "ActorDiedError", "ActorUnavailableError", "WorkerCrashedError"):
        return f"worker process died (Ray: {_first_line(exc)})"
    return f"{name}: {_first_line(exc)}"
