"""The scratch folders a killed command left, removed by the next local cluster run.

A ``--cluster local:N`` run keeps its cluster's scratch (``mexsim-dask-<pid>-*``,
cluster.py) and its fork server's socket folder (``mexsim-fork-<pid>-*``,
socket_folder.py) in folders of its own, removed when it ends, Ctrl-C included. A
command killed outright (``kill -9``, the OOM killer, a closed terminal's SIGKILL) runs
nothing, and those stayed in the temporary folder.

So the command holds a lock (``flock``) on a file in each folder while it runs, which
the system releases when the process ends, however it ends; the next local cluster run
removes the folders of exactly these names, owned by the user, whose lock it can take.
A lock is seen across process-id namespaces (a container sharing /tmp) where a process
id is not. A folder without the lock (a command killed in the instant between making
the folder and locking it, or a file system without locks) goes when the process id
in its name is gone and the folder is a minute old.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

SCRATCH_PREFIX = "mexsim-dask-"
FORK_FOLDER_PREFIX = "mexsim-fork-"
SHORT_FOLDERS = ("/tmp", "/var/tmp", "/usr/tmp")  # where a fork server's folder may go
OWNER_FILE = ".mexsim-owner"  # locked by the command that made the folder, while it runs
UNLOCKED_AGE = 60.0  # seconds: a folder with no owner file younger than this is kept
# the names mkdtemp gives for these prefixes: the command's pid, then 8 random letters
_NAMES = re.compile(rf"(?:{SCRATCH_PREFIX}|{FORK_FOLDER_PREFIX})([0-9]+)-[a-z0-9_]{{8}}")
_held: list[int] = []  # the owner files' descriptors: open, and locked, until the end


def scratch_folder() -> str:
    """A new local cluster scratch folder in the temporary folder, this command's."""
    folder = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")
    claim(folder)
    return folder


def claim(folder: str) -> None:
    """Hold ``folder``'s owner file locked until this process ends (the system lets go
    of the lock then, even after kill -9)."""
    fd = os.open(
        os.path.join(folder, OWNER_FILE),
        os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW,
        0o600,
    )
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # a file system without locks: the process id in the name decides
        os.close(fd)
        return
    _held.append(fd)


def remove_stale_scratch() -> list[Path]:
    """Remove the scratch and fork server folders of commands that are gone, in the
    temporary folder and the short system folders a fork server may have used; returns
    what it removed."""
    removed = []
    for base in dict.fromkeys([tempfile.gettempdir(), *SHORT_FOLDERS]):
        try:
            entries = list(os.scandir(base))
        except OSError:
            continue
        for entry in entries:
            match = _NAMES.fullmatch(entry.name)
            if match is None:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                continue
            if _remove_if_abandoned(entry.path, int(match.group(1)), info.st_mtime):
                removed.append(Path(entry.path))
    return removed


def _remove_if_abandoned(folder: str, pid: int, made: float) -> bool:
    try:
        fd = os.open(os.path.join(folder, OWNER_FILE), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:  # not locked yet, or never: the process id decides
        return _gone(pid, made) and _remove(folder)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # held: its command runs
            return False
        except OSError:  # a file system without locks (claim could not lock it either)
            return _gone(pid, made) and _remove(folder)
        return _remove(folder)  # under the lock: no one claims it meanwhile
    finally:
        os.close(fd)


def _gone(pid: int, made: float) -> bool:
    """Whether the command of a folder that carries no lock has ended: its process is
    gone, and the folder is older than the instant between making and locking it."""
    return not _alive(pid) and time.time() - made >= UNLOCKED_AGE


def _remove(folder: str) -> bool:
    shutil.rmtree(folder, ignore_errors=True)
    return not os.path.lexists(folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process, or not a pid: not ours to judge
    return True
