"""What a run may ask of this machine, checked before anything is played.

Play itself needs little memory: a few blocks of results per worker. What grows with
the match count is the summary, which holds every match's totals (a match × player
matrix and its statistics' temporaries: measured at 4 + 51 bytes a cell for 1M
matches of 4 players, so ``BYTES_PER_CELL`` = 64 with room to spare), so
``matches`` is bounded by half this machine's memory. Threads beyond a few per core
only cost memory and make Ctrl-C slower, so ``--workers`` is bounded by the cores.
"""

from __future__ import annotations

import errno
import os

from mexsim.errors import ConfigError, ResourceShortage

BYTES_PER_CELL = 64
WORKERS_PER_CORE = 4
MEMORY_SHARE = 0.5


def machine_memory() -> int:
    """Physical memory in bytes (a generous guess where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not Linux/macOS
        return 16 * 2**30


def max_workers() -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def max_matches(players: int) -> int:
    return int(machine_memory() * MEMORY_SHARE) // (BYTES_PER_CELL * players)


def check_resources(where: str, matches: int, players: int, workers: int) -> None:
    """Raise ConfigError if the run cannot fit this machine."""
    most = max_workers()
    if not 1 <= workers <= most:
        raise ConfigError(
            f"--workers {workers} is more threads than this machine can use (allowed: "
            f"1..{most}, {WORKERS_PER_CORE} per core on {os.cpu_count() or 1} cores)"
        )
    limit = max_matches(players)
    if matches > limit:
        need = matches * players * BYTES_PER_CELL / 2**30
        have = machine_memory() / 2**30
        raise ConfigError(
            f"{where}: 'matches' = {matches:,} needs about {need:,.0f} GiB for the summary "
            f"of {players} players, more than half of this machine's {have:,.0f} GiB "
            f"(allowed: at most {limit:,}; split it into runs with different seeds)"
        )


# The address space each command reserves, measured (VmPeak on Linux, mexsim 0.2.0): a
# run 2.48 GB at 1 worker, 2.67 at 2, 2.91 at 8 (a thread's stack and malloc arena,
# ~70 MB each); report 1.79 GB; check 0.72; replay 0.64; strategies 0.61. It uses far
# less memory (a run: ~280 MB resident): numba's compiler, the libraries' allocators and
# the threads reserve it. Under a lower `ulimit -v` each command failed in its own
# way: an LLVM abort (134), OpenBLAS giving up (1), Arrow unable to
# start a thread (70), each leaving a work folder; now it is refused before it starts.
ADDRESS_SPACE = {
    "run": 2.7 * 2**30,
    "report": 2.0 * 2**30,
    "check": 0.9 * 2**30,
    "replay": 0.8 * 2**30,
    "strategies": 0.8 * 2**30,
}
ADDRESS_SPACE_PER_WORKER = 80 * 2**20


def check_address_space(command: str, workers: int = 0) -> None:
    """Raise ResourceShortage if this process may not reserve what ``command`` needs."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not a Unix
        return
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    need = ADDRESS_SPACE[command] + ADDRESS_SPACE_PER_WORKER * workers
    if soft == resource.RLIM_INFINITY or soft >= need:
        return
    fewer = " or use fewer --workers" if workers > 1 else ""
    raise ResourceShortage(
        f"this process may reserve {soft / 2**30:.2f} GiB of address space (ulimit -v), "
        f"and `mexsim {command}` reserves about {need / 2**30:.1f} GiB (numba's compiler, "
        f"the libraries' allocators and a stack per thread; it uses far less memory): "
        f"raise the limit (ulimit -v unlimited){fewer}"
    )


SHORTAGE_ADVICE = "use fewer --workers, or raise the limits (ulimit -v, -u)"
_THREAD_REFUSED = ("can't start new thread", "Failed to launch worker thread")


def resource_shortage(exc: BaseException) -> str | None:
    """What the system refused, if ``exc`` says memory or a thread was refused."""
    if isinstance(exc, MemoryError):
        return f"out of memory ({type(exc).__name__}: {exc})" if str(exc) else "out of memory"
    text = str(exc)
    if any(refusal in text for refusal in _THREAD_REFUSED):
        return f"the system refused a new thread ({text})"
    if isinstance(exc, OSError) and exc.errno in (errno.ENOMEM, errno.EAGAIN):
        return f"the system refused memory or a thread ({text})"
    return None
