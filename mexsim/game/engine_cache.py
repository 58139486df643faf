"""Whether the engine is compiled for this version and place of mexsim: what the compile
notice and the warm-up ask before a command plays (mexsim/jit/compile_notice.py)."""

from __future__ import annotations

from pathlib import Path

from mexsim.jit.compile_notice import cache_is_cold


def engine_index() -> Path | None:
    """numba's index file of the run's kernel in this process's cache folder."""
    from mexsim.game import kernel  # numba, no compile
    from mexsim.jit.options import cache_index

    return cache_index(kernel.play_matches)


def engine_is_cold() -> bool:
    """The engine was never compiled here: the first run after installing or upgrading."""
    return cache_is_cold(engine_index())
