"""numba's cache: a folder per version of mexsim's sources, the long-unused ones removed.

mexsim/jit/__init__.py keys the cache folder on a digest of mexsim's sources, so every
upgrade (and every edit of a source checkout) starts a new ``numba-<digest>`` folder,
~10 MB, and nothing ever read the old ones again: they piled up. Each command that
loads compiled code marks its folder used; the first run of a new version (a cold
cache) removes the folders of versions no command used for KEEP_DAYS days. Only
folders named as mexsim names them are touched; a version still in use elsewhere (a
second environment) marks its folder whenever it runs, and so keeps it.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import time
from pathlib import Path

KEEP_DAYS = 30
MARKER = ".last-used"  # touched by each command that uses the folder
VERSION_FOLDER = re.compile(r"numba-[0-9a-f]{16}")  # mexsim/jit/__init__.py's names


def mark_used(folder: Path) -> None:
    """Record that a command uses this version's folder (once numba made it)."""
    with contextlib.suppress(OSError):  # a read-only cache: nothing to prune either
        if folder.is_dir():
            (folder / MARKER).touch()


def prune_unused(
    folder: Path, keep_days: float = KEEP_DAYS, now: float | None = None
) -> list[Path]:
    """Remove the other versions' folders beside ``folder`` unused for ``keep_days``
    days (last marked, or last changed if never marked); returns those removed."""
    cutoff = (time.time() if now is None else now) - keep_days * 86400
    removed: list[Path] = []
    try:
        siblings = list(folder.parent.iterdir())
    except OSError:
        return removed
    for other in siblings:
        if (
            other == folder
            or not VERSION_FOLDER.fullmatch(other.name)
            or other.is_symlink()
            or not other.is_dir()
        ):
            continue
        if _last_used(other) < cutoff:
            shutil.rmtree(other, ignore_errors=True)  # another process's removal too
            removed.append(other)
    return removed


def _last_used(folder: Path) -> float:
    for path in (folder / MARKER, folder):
        with contextlib.suppress(OSError):
            return path.stat().st_mtime
    return float("inf")  # gone meanwhile: nothing to remove
