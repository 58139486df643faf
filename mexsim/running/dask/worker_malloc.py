"""A Dask worker's malloc, made to allocate as a plain process does.

Dask's nanny starts every worker process with ``MALLOC_TRIM_THRESHOLD_=65536`` (its
``distributed.nanny.pre-spawn-environ``), so that freed memory goes back to the system.
Setting any glibc malloc threshold also switches off glibc's *dynamic* mmap threshold,
which otherwise rises to the size of the blocks a program frees: it stays at 128 KiB, so
every larger array the kernels allocate while playing is a fresh ``mmap``, faulted in
page by page and unmapped when freed. Measured here: the kernels
played a block in 2.0 x the CPU time of the same block in a plain process, and
``--cluster local:2`` took 2.1 x the time of two threads.

``restore_mmap_threshold`` fixes the mmap threshold at the ceiling the dynamic one
reaches (32 MiB on 64-bit glibc), which plays at a plain process's speed; the trim
threshold Dask chose stays. A worker whose environment names an mmap threshold itself
(``MALLOC_MMAP_THRESHOLD_``) keeps it: someone chose it. Without glibc (macOS, musl)
nothing is done.
"""

from __future__ import annotations

import ctypes
import os

M_MMAP_THRESHOLD = -3  # mallopt's parameter number, from glibc's <malloc.h>
PLAIN_MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's DEFAULT_MMAP_THRESHOLD_MAX, 64-bit

_done = False


def restore_mmap_threshold() -> bool:
    """Once per process: when a fixed malloc threshold is in the environment and the
    mmap threshold is not, set the mmap threshold to glibc's dynamic ceiling. Returns
    whether it was set (now or by an earlier call)."""
    global _done
    if _done:
        return True
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or not any(
        name.startswith("MALLOC_") and name.endswith("_THRESHOLD_") for name in os.environ
    ):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):  # not glibc
        return False
    _done = bool(mallopt(M_MMAP_THRESHOLD, PLAIN_MMAP_THRESHOLD))
    return _done
