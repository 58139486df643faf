"""The study's folder: made or taken only when it is new or holds a study of mexsim's
own, locked while a command plays the study, and where a study goes by default."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from mexsim.errors import ConfigError, OutputError
from mexsim.tune.names import DATABASE, LOCK, WRITTEN
from mexsim.tune.study import mexsim_study


def default_folder(out: str) -> Path:
    """A config's study folder: its results folder's name with ``-tune`` added, beside
    it (``results/x/`` -> ``results/x-tune``; ``.`` -> the working folder's name)."""
    base = Path(os.path.normpath(out))
    if base.name in ("", ".", ".."):
        base = Path(os.path.abspath(out))
    if not base.name:
        raise ConfigError(
            f"run.out = {out!r} has no name to give its study (its name + '-tune'): give "
            "[tune] out or --out"
        )
    return base.with_name(base.name + "-tune")


@contextlib.contextmanager
def claimed(folder: Path, fresh: bool) -> Iterator[bool]:
    """``folder`` made the study's and locked until the end; yields whether a study is
    there to continue. A folder holding anything but a study of mexsim's, or a
    ``study.db`` of another program's, is never written into, and ``fresh`` deletes
    only what mexsim tune wrote, once everything it would delete is known to be its."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder}: not a folder; choose another --out for the study")
    database = folder / DATABASE
    if folder.is_dir() and not database.exists() and any(p.name != LOCK for p in folder.iterdir()):
        raise ConfigError(
            f"{folder}: holds files but no study ({DATABASE}); mexsim tune writes only into "
            "a new folder or one of its own studies: choose another --out"
        )
    lock = folder / LOCK
    had_lock = lock.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        raise OutputError(
            f"{exc.filename or folder}: cannot make the study's folder or its lock "
            f"({exc.strerror or exc}); choose another --out"
        ) from None
    try:
        _take(fd, folder)
        if database.exists():  # under the lock: a study being made is not judged
            why = mexsim_study(database)
            if why is not None:
                if not had_lock:
                    lock.unlink(missing_ok=True)  # nothing of ours left in their folder
                raise ConfigError(
                    f"{database}: {why}; mexsim tune keeps a study only in a database of "
                    "its own: choose another --out"
                )
        if fresh:
            doomed = [folder / name for name in WRITTEN if (folder / name).exists()]
            odd = [p for p in doomed if p.is_dir() or p.is_symlink()]
            if odd:
                raise ConfigError(
                    f"{odd[0]}: not a file mexsim tune wrote; --fresh deletes only its own "
                    "files: move it away first"
                )
            for path in [*doomed, database]:  # the study last: a failure keeps it
                path.unlink(missing_ok=True)
        yield database.is_file()
    finally:
        os.close(fd)


def _take(fd: int, folder: Path) -> None:
    """The study's lock, or one line naming the command that holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        raise ConfigError(
            f"{folder}: another mexsim tune (pid {holder}) is playing this study; wait "
            "for it to end or choose another --out"
        ) from None
    except OSError as exc:
        raise OutputError(
            f"{folder / LOCK}: cannot lock the study ({exc.strerror or exc}); remove it if "
            "it is not a plain file, or choose another --out"
        ) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError as exc:
        raise OutputError(
            f"{folder / LOCK}: cannot write the study's lock ({exc.strerror or exc}); "
            "remove it if it is not a plain file, or choose another --out"
        ) from None


def held_by(folder: Path) -> str | None:
    """The pid of the command playing the study in ``folder``, if one is."""
    try:
        fd = os.open(folder / LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return None
    except BlockingIOError:
        return os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
    except OSError:
        return None
    finally:
        os.close(fd)
