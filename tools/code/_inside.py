"""What runs first inside the sandbox: limits, a system-call filter, then the Jupyter kernel.

This file is run by path (`python _inside.py LIMITS_JSON CONNECTION_FILE PRELUDE`) inside bubblewrap, so it
imports nothing of mcot. It sets the resource limits (address space, CPU time, file size, open files, no core
dumps), installs a seccomp filter that refuses every new process (fork, vfork, clone without CLONE_THREAD,
clone3) and the calls a sandbox never needs (ptrace, mount, unshare, setns, keyctl, bpf, perf_event_open,
process_vm_writev), and then starts an ipykernel in this same process.
"""

from __future__ import annotations

import ctypes
import json
import platform
import resource
import struct
import sys

_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _ERRNO, _KILL = 0x7FFF0000, 0x00050000, 0x80000000
_EPERM, _ENOSYS = 1, 38
_CLONE_THREAD = 0x00010000
_X32_BIT = 0x40000000

# (audit arch, clone, clone3, the calls refused with EPERM)
_SYSCALLS = {
    "x86_64": (0xC000003E, 56, 435, (57, 58, 101, 165, 166, 272, 308, 250, 321, 298, 311)),
    "aarch64": (0xC00000B7, 220, 435, (117, 40, 39, 97, 268, 219, 280, 241, 271)),
}


def seccomp_program(machine: str | None = None) -> bytes:
    """Return the seccomp BPF program (struct sock_filter[] bytes) for this machine's architecture."""
    arch, clone, clone3, refused = _SYSCALLS[machine or platform.machine()]
    code: list[tuple[int, int, int, int]] = []  # (op, jt label or 0, jf label or 0, k); labels resolved below
    code.append((_LD_ABS_W, 0, 0, 4))  # seccomp_data.arch
    code.append((_JEQ, 1, 0, arch))
    code.append((_RET, 0, 0, _KILL))
    code.append((_LD_ABS_W, 0, 0, 0))  # seccomp_data.nr
    body: list[tuple[int, str | int, str | int, int]] = [(_JGE, "eperm", 0, _X32_BIT)]
    body += [(_JEQ, "eperm", 0, nr) for nr in refused]
    body += [(_JEQ, "enosys", 0, clone3), (_JEQ, 0, "allow", clone)]
    body += [(_LD_ABS_W, 0, 0, 16), (_JSET, "allow", "eperm", _CLONE_THREAD)]  # args[0], low word: flags
    labels = {"allow": len(body), "eperm": len(body) + 1, "enosys": len(body) + 2}
    tail = [(_RET, 0, 0, _ALLOW), (_RET, 0, 0, _ERRNO | _EPERM), (_RET, 0, 0, _ERRNO | _ENOSYS)]
    for index, (op, jt, jf, k) in enumerate(body):

        def offset(target: str | int, at: int = index) -> int:
            return target if isinstance(target, int) else labels[target] - at - 1

        code.append((op, offset(jt), offset(jf), k))
    code += tail
    return b"".join(struct.pack("HBBI", op, jt, jf, k) for op, jt, jf, k in code)


def install_filter(program: bytes) -> None:
    """Install the seccomp filter on this process and every thread it starts later; raise OSError on failure."""

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(program, len(program))
    prog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")


def set_limits(limits: dict[str, int | float]) -> None:
    """Set the resource limits of this process (inherited by nothing: it may start no process)."""
    mib = 1024 * 1024
    pairs = {
        resource.RLIMIT_AS: int(limits["memory_mb"]) * mib,
        resource.RLIMIT_CPU: int(limits["cpu_s"]),
        resource.RLIMIT_FSIZE: int(limits["file_mb"]) * mib,
        resource.RLIMIT_NOFILE: int(limits["open_files"]),
        resource.RLIMIT_CORE: 0,
    }
    for which, value in pairs.items():
        # CPU time: a hard limit one second past the soft one, so that SIGXCPU (which the parent names) comes
        # first; at equal limits the kernel sends SIGKILL, which reads as a process killed for its memory
        resource.setrlimit(which, (value, value + 1 if which == resource.RLIMIT_CPU else value))


def main(argv: list[str]) -> None:
    """Set the limits and the filter, then run an ipykernel on the connection file (never returns normally)."""
    limits, connection_file, prelude = json.loads(argv[1]), argv[2], argv[3]
    set_limits(limits)
    install_filter(seccomp_program())
    from ipykernel.kernelapp import IPKernelApp
    from traitlets.config import Config

    config = Config()
    config.IPKernelApp.exec_files = [prelude]
    config.HistoryManager.enabled = False  # no sqlite history in the scratch folder
    app = IPKernelApp.instance(config=config)
    app.initialize(["-f", connection_file])
    app.start()


if __name__ == "__main__":
    main(sys.argv)
