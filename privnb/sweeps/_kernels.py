"""The kernels and processes a sweep starts: how each kernel is launched, how many BLAS / OpenMP threads it
may use, and how a worker process dies with the sweep that started it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

from privnb.sweeps._kernel_log import bounded_log

_UNIX_SOCKET_PATH_MAX = 100  # sun_path holds 108 bytes on Linux, 104 on macOS
_SOCKET_NAME = "/kernel-00000000-0000-0000-0000-000000000000-ipc-99"
_KERNEL_MANAGERS: dict[bool, type] = {}
RUNNING_KERNELS: dict[str, int] = {}  # a running kernel's log file -> its pid (one kernel per point)

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def kernel_options(log: Path | None = None) -> dict:
    """papermill/nbclient options for a sweep's kernel: its kernel manager class.

    The kernel runs over local IPC sockets instead of TCP where the socket paths fit (no ports open to the
    network, no "Kernel is running over TCP without encryption" warning per point); the sockets are
    ``<runtime dir>/kernel-<uuid>-ipc-<n>``. Where that path would be too long for a Unix socket (or off
    POSIX) the kernel runs over TCP. Either way the kernel is not sent SIGINT when it is shut down:
    jupyter_client interrupts a kernel before asking it to shut down, and an idle ipykernel logs
    "ERROR | KeyboardInterrupt caught in kernel" for it after every point.

    With ``log``, what the kernel process itself writes to its stdout and stderr (the notebook's output goes
    to the notebook) is appended to that file instead of the sweep's terminal: points running at once do
    not interleave there, and ipykernel's own shutdown noise (a traceback it logs when its IOPub socket
    closes under a last status message, a race in ipykernel 7) stays with the point it belongs to.

    Parameters
    ----------
    log : Path, optional
        The file for the kernel's own output; without it the kernel writes where this process does.
    """
    ipc = os.name == "posix" and _ipc_fits()
    if ipc not in _KERNEL_MANAGERS:
        _KERNEL_MANAGERS[ipc] = _kernel_manager_class(ipc)
    manager = _KERNEL_MANAGERS[ipc]
    if log is not None:
        manager = type(manager.__name__, (manager,), {"kernel_log": str(log)})
    return {"kernel_manager_class": manager}


def _ipc_fits() -> bool:
    from jupyter_core.paths import jupyter_runtime_dir

    return len(jupyter_runtime_dir()) + len(_SOCKET_NAME) <= _UNIX_SOCKET_PATH_MAX


def _kernel_manager_class(ipc: bool) -> type:
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class SweepKernelManager(AsyncKernelManager):
        kernel_log: str | None = None  # where the kernel process's own stdout and stderr go

        async def _async_interrupt_kernel(self) -> None:
            if not self.shutting_down:  # an interrupt only to stop code, never on the way to a shutdown
                await super()._async_interrupt_kernel()

        interrupt_kernel = _async_interrupt_kernel

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
            if self.kernel_log is None:
                return await super()._async_launch_kernel(kernel_cmd, **kw)
            with bounded_log(self.kernel_log) as log:  # the kernel keeps its own copy of the descriptor
                await super()._async_launch_kernel(kernel_cmd, **{"stdout": log, "stderr": log, **kw})
            RUNNING_KERNELS[self.kernel_log] = self.provisioner.pid

        _launch_kernel = _async_launch_kernel

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            RUNNING_KERNELS.pop(self.kernel_log, None)
            await super()._async_cleanup_resources(restart)

        cleanup_resources = _async_cleanup_resources

    if not ipc:
        return SweepKernelManager

    class IPCKernelManager(SweepKernelManager):
        @default("transport")
        def _default_transport(self):
            return "ipc"

        @default("ip")
        def _default_ip(self):  # a socket prefix of its own: never "kernel-ipc" in the notebook's folder
            import uuid

            from jupyter_core.paths import jupyter_runtime_dir

            os.makedirs(jupyter_runtime_dir(), mode=0o700, exist_ok=True)
            return os.path.join(jupyter_runtime_dir(), f"kernel-{uuid.uuid4()}-ipc")

    return IPCKernelManager


def stop_kernel(log: str | os.PathLike) -> bool:
    """Kill the kernel whose own output goes to ``log`` (one point's kernel), with whatever it started.

    Returns whether such a kernel was running. Used to stop one point among several running in one process
    (the threads of a dask worker), where :func:`privnb.sweeps._safety.stop_kernels` would stop them all.

    Parameters
    ----------
    log : path
        The kernel's log file (the ``log`` given to :func:`kernel_options`).
    """
    pid = RUNNING_KERNELS.get(str(log))
    if pid is None:
        return False
    try:
        if os.getpgid(pid) == pid:  # jupyter starts each kernel in a session of its own
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except OSError:  # it ended meanwhile
        pass
    return True


def kernel_problem(kernel_name: str) -> str | None:
    """Why ``kernel_name`` cannot run here (``no Jupyter kernel named ...``), or None when it is installed.

    Parameters
    ----------
    kernel_name : str
        The Jupyter kernel's name.
    """
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    manager = KernelSpecManager()
    try:
        manager.get_kernel_spec(kernel_name)
    except NoSuchKernel:
        installed = ", ".join(sorted(manager.find_kernel_specs())) or "none"
        return f"no Jupyter kernel named {kernel_name!r} (installed: {installed}); see `jupyter kernelspec list`"
    return None


def usable_cores() -> int:
    """The number of CPU cores this process may run on (its affinity mask where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def skip_iri_parser() -> None:
    """Let this process import nbformat and papermill without building rfc3987_syntax's IRI grammar (2.8 s).

    jsonschema, which nbformat validates notebooks with, imports that optional package (installed with
    jupyterlab) at its own import only to check the "iri" string format, which no notebook schema uses. Called
    where privnb owns the process (the ``privnb`` command, a sweep's worker processes), before either import;
    once jsonschema is loaded it changes nothing.
    """
    if "jsonschema._format" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # None: its import fails, and jsonschema goes on without


def limit_threads(workers: int) -> int:
    """Cap this process's BLAS / OpenMP threads, and those of the kernels it starts, at
    ``max(1, cores // workers)`` so that ``workers`` points running at once never oversubscribe the cores.

    Kernels are processes of their own: the cap reaches them through ``OMP_NUM_THREADS``,
    ``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS`` in this process's environment (a smaller value already
    set is kept). Returns the cap.

    Parameters
    ----------
    workers : int
        How many points run at once.
    """
    cap = max(1, usable_cores() // max(1, workers))
    for variable in THREAD_VARIABLES:
        current = os.environ.get(variable, "")
        if not (current.isdigit() and 0 < int(current) <= cap):
            os.environ[variable] = str(cap)
    from threadpoolctl import threadpool_limits

    threadpool_limits(cap)
    return cap


_PR_SET_PDEATHSIG = 1
_POLL_PARENT_S = 0.5


def die_with_parent(parent_pid: int, signum: int = signal.SIGTERM) -> None:
    """Have ``signum`` sent to this process when its parent (the sweep) dies, however it dies (kill -9 too).

    On Linux the kernel does it (``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread polls the parent's
    pid. A parent already gone when this is called sends the signal at once.

    Parameters
    ----------
    parent_pid : int
        The pid of the parent that started this process.
    signum : int
        The signal this process receives when the parent dies (its handler stops the kernels).
    """
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    else:

        def poll() -> None:
            while os.getppid() == parent_pid:
                threading.Event().wait(_POLL_PARENT_S)
            os.kill(os.getpid(), signum)

        threading.Thread(target=poll, name="privnb parent poller", daemon=True).start()
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os.kill(os.getpid(), signum)
