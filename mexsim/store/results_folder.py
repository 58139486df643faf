"""The results folder, handled as something precious.

- A path mexsim can create (no NUL or control characters, names short enough for the
  file system with room for the work folder's suffix) is checked with the config's
  values: mexsim/validate.py, ``out_problem``.
- ``OutputLock``: one run at a time per results folder (``flock`` on ``.NAME.lock``
  beside it; the kernel drops the lock when a process dies, even by SIGKILL).
- ``inspect``: what is at ``out`` before the run, refusing a symbolic link, a file, a
  folder mexsim did not write (no ``MARKER``) and, without --force, any folder.
- ``publish``: the finished work folder replaces ``out`` with one atomic
  ``renameat2(RENAME_EXCHANGE)`` (Linux; elsewhere the old folder is renamed aside
  first), and only then is the old one removed: an interruption at any moment leaves
  the old or the new results complete. A path that appeared or changed at ``out``
  during the run is never replaced: the new results stay in the work folder.

Nothing here follows a symbolic link into deletion: ``shutil.rmtree`` unlinks links it
meets, and ``out`` itself may not be one.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from mexsim.errors import ConfigError, OutputConflict

MARKER = ".mexsim-results"  # in every results folder: {"format": ..., "run_id": ...}
MARKER_FORMAT = "mexsim results"
WORK_SUFFIX = ".tmp-"  # work folders: .NAME.tmp-PID beside the results folder
ASIDE_SUFFIX = ".old-"  # an old results folder moved aside while being replaced
#: what older mexsim versions wrote (no marker): such a folder may still be replaced
LEGACY_FILES = {
    "rounds.parquet",
    "matches.parquet",
    "run.json",
    "summary.csv",
    "head_to_head.csv",
    "sweeps.csv",
    "penalty_by_round.png",
    "totals.png",
    "win_share.png",
    "head_to_head.png",
    "ratings.png",
}


#: every name mexsim writes in a results folder; anything else in one is the user's
MEXSIM_FILES = LEGACY_FILES | {
    ".mexsim-results",
    "comparisons.csv",
    "variants.csv",
    "variants.png",
    "sweeps.png",
    "decisions.parquet",
}


def parent_of(out: Path) -> Path:
    return out.parent if str(out.parent) else Path(".")


def work_folders(out: Path, suffix: str = WORK_SUFFIX) -> list[Path]:
    """Work folders (or, with ``ASIDE_SUFFIX``, old results moved aside) that runs to
    ``out`` left beside it."""
    parent = parent_of(out)
    return sorted(
        p
        for p in parent.glob(f".{_glob_escape(out.name)}{suffix}*")
        if p.is_dir() and not p.is_symlink()
    )


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in name)


class OutputLock:
    """A lock on the results folder ``out``: exclusive, held by a run for the whole run;
    or shared, held by ``report`` while it reads the folder and writes its plots there
    (a ``run --force`` replacing the folder meanwhile had the report read the old
    files and write their plots into the new folder)."""

    def __init__(self, out: Path, reading: bool = False) -> None:
        self.path = parent_of(out) / f".{out.name}.lock"
        self.reading = reading
        self.fd: int | None = None

    def acquire(self) -> None:
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if self.reading else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            except BlockingIOError:
                held = os.pread(fd, 32, 0).decode(errors="replace").split()
                os.close(fd)
                raise ConfigError(self._busy(*(held or ["?"]))) from None
            # The previous holder may have unlinked the file after we opened it: lock
            # the file that is at the path now, or try again.
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()} {'report' if self.reading else 'run'}\n".encode(), 0)
                self.fd = fd
                return
            os.close(fd)

    def _busy(self, holder: str, command: str = "run") -> str:
        out = self.path.parent / self.path.name[1:-5]
        if command == "report":
            return (
                f"{out}: a mexsim report (pid {holder}) is reading this results directory; "
                "wait for it to end or choose another --out"
            )
        then = "report it once the run has ended" if self.reading else "wait for it to end"
        return (
            f"{out}: another mexsim run (pid {holder}) is writing this results "
            f"directory; {then}{'' if self.reading else ' or choose another --out'}"
        )

    def release(self) -> None:
        if self.fd is not None:
            # unlinked while held exclusively: no one can hold a stale inode (a report
            # sharing the lock leaves the file to whoever holds it last)
            if self.reading:
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held_alone = True
                except OSError:
                    held_alone = False
            if not self.reading or held_alone:
                with contextlib.suppress(OSError):
                    self.path.unlink()
            os.close(self.fd)
            self.fd = None


@dataclass(frozen=True)
class Snapshot:
    """What was at ``out`` when the run began: nothing, or a results folder."""

    exists: bool
    device: int = 0
    inode: int = 0


def inspect(out: Path, force: bool) -> Snapshot:
    """Check that ``out`` may be written (or, with --force, replaced)."""
    try:
        info = os.lstat(out)
    except FileNotFoundError:
        return Snapshot(False)
    except NotADirectoryError:
        raise ConfigError(f"{out}: a parent of it is a file, not a folder") from None
    if stat.S_ISLNK(info.st_mode):
        raise ConfigError(
            f"{out}: is a symbolic link; mexsim writes and replaces only a real folder "
            f"(give the path it points to, {os.readlink(out)!r}, or another --out)"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise ConfigError(
            f"{out}: exists and is not a directory (allowed: a new path or "
            "a results directory mexsim wrote)"
        )
    if not force:
        raise ConfigError(f"{out}: results directory exists (use --force to replace it)")
    here = Path.cwd().resolve()
    if out.resolve() == here or out.resolve() in here.parents:
        raise ConfigError(
            f"{out}: is the current directory or contains it (allowed: a "
            "results directory of its own)"
        )
    if not is_results_folder(out):
        raise ConfigError(
            f"{out}: not a results directory written by mexsim (no {MARKER} marker); "
            "--force replaces only those: move it away yourself or choose another --out"
        )
    odd = not_mexsims(out)
    if odd is not None:
        raise ConfigError(
            f"{odd}: not a file mexsim wrote, under one of the names of its results; "
            f"--force would replace it: move it out of {out} first"
        )
    return Snapshot(True, info.st_dev, info.st_ino)


def not_mexsims(folder: Path) -> Path | None:
    """An entry of ``folder`` under a name of mexsim's results that mexsim cannot have
    written (a folder, a link, anything but a plain file): the user's, however named."""
    for name in sorted(MEXSIM_FILES):
        path = folder / name
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode):
            return path
    return None


def is_results_folder(folder: Path) -> bool:
    """A folder mexsim wrote: it holds the marker, or (results of mexsim before the
    marker) a run.json by mexsim and nothing but the files mexsim writes."""
    try:
        marker = json.loads((folder / MARKER).read_text())
        return marker.get("format") == MARKER_FORMAT and isinstance(marker.get("run_id"), str)
    except (OSError, ValueError, AttributeError):
        pass
    try:
        names = {p.name for p in folder.iterdir()}
        legacy = json.loads((folder / "run.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(legacy, dict) and "mexsim_version" in legacy and names <= LEGACY_FILES


def write_marker(folder: Path, run_id: str) -> None:
    (folder / MARKER).write_text(json.dumps({"format": MARKER_FORMAT, "run_id": run_id}) + "\n")


def users_entries(folder: Path) -> list[str]:
    """The names in a results folder that mexsim did not write, sorted."""
    try:
        return sorted(p.name for p in folder.iterdir() if p.name not in MEXSIM_FILES)
    except OSError:
        return []


def publish(work: Path, out: Path, before: Snapshot, force: bool) -> list[str]:
    """Put the finished ``work`` folder at ``out`` (see the module docstring). What the
    user put in the old results folder is kept in the new one (--force
    deleted it): files are linked into ``work`` before the exchange, so they are in one
    folder or the other at every moment; folders move across after it. Returns their
    names."""
    now = _snapshot_now(out)
    if now != before:
        what = (
            "was replaced or removed during the run" if before.exists else "appeared during the run"
        )
        if not (
            force
            and now.exists
            and not out.is_symlink()
            and out.is_dir()
            and is_results_folder(out)
        ):
            raise OutputConflict(
                f"{out}: {what}, and mexsim did not touch it; the new results are "
                f"complete in {work}: move them yourself, or rerun with --resume (and "
                f"--force to replace what is at {out}, if mexsim wrote it)"
            )
    _fsync_tree(work)
    if not now.exists:
        if not _renameat2(work, out, _RENAME_NOREPLACE):
            if os.path.lexists(out):
                raise OutputConflict(
                    f"{out}: appeared while the results were being put in "
                    f"place; they are complete in {work}"
                )
            os.rename(work, out)
        _fsync_dir(parent_of(out))
        return []
    odd = not_mexsims(out)
    if odd is not None:  # put there during the run
        raise OutputConflict(
            f"{odd}: appeared during the run under a name of mexsim's results and is not "
            f"its file; the new results are complete in {work}: move them yourself"
        )
    kept = users_entries(out)
    folders = []
    for name in kept:
        if (out / name).is_dir() and not (out / name).is_symlink():
            folders.append(name)
        else:
            try:
                os.link(out / name, work / name, follow_symlinks=False)
            except OSError:  # a file system without hard links: a copy, as safe
                shutil.copy2(out / name, work / name, follow_symlinks=False)
    if _renameat2(work, out, _RENAME_EXCHANGE):
        old = work  # the old results now sit where the work folder was
    else:
        old = parent_of(out) / f".{out.name}{ASIDE_SUFFIX}{os.getpid()}"
        os.rename(out, old)
        os.rename(work, out)
    for name in folders:
        os.rename(old / name, out / name)
    _fsync_dir(out)
    _fsync_dir(parent_of(out))
    shutil.rmtree(old)
    return kept


def _snapshot_now(out: Path) -> Snapshot:
    try:
        info = os.lstat(out)
    except FileNotFoundError:
        return Snapshot(False)
    return Snapshot(True, info.st_dev, info.st_ino)


_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """Linux's renameat2; False where the system has none (the caller falls back)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    if function(at_fdcwd, os.fsencode(src), at_fdcwd, os.fsencode(dst), flags) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(dst))


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # some file systems cannot sync a folder
        fsync_file(folder)


def _fsync_tree(folder: Path) -> None:
    for path in folder.iterdir():
        if path.is_file():
            fsync_file(path)
    _fsync_dir(folder)
