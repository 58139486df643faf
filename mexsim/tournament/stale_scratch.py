"""The scratch folders a killed command left, removed by the next local cluster run.

A ``--cluster local:N`` run keeps its cluster's scratch (``mexsim-dask-<pid>-*``,
cluster.py) and its fork server's socket folder (``mexsim-fork-<pid>-*``,
socket_folder.py) in folders of its own, removed when it ends, Ctrl-C included. A
command killed outright (``kill -9``, the OOM killer, a closed terminal's SIGKILL) runs
nothing, and those stayed in the temporary folder. Each name carries the process id of
the command that made it, so the next local cluster run removes those of commands that
no longer exist: only folders of exactly these names, owned by the user, whose process
is gone. A folder whose process id is alive is kept, even if the id was reused.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from mexsim.tournament.socket_folder import FORK_FOLDER_PREFIX, SHORT_FOLDERS

SCRATCH_PREFIX = "mexsim-dask-"
# the names mkdtemp gives for these prefixes: the command's pid, then 8 random letters
_NAMES = re.compile(rf"^(?:{SCRATCH_PREFIX}|{FORK_FOLDER_PREFIX})(\d+)-[a-z0-9_]{{8}}$")


def scratch_folder() -> str:
    """A new local cluster scratch folder in the temporary folder, named for this
    process."""
    return tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")


def remove_stale_scratch() -> list[Path]:
    """Remove the scratch and fork server folders of commands that are gone, in the
    temporary folder and the short system folders a fork server may have used; returns
    what it removed."""
    removed = []
    bases = dict.fromkeys([tempfile.gettempdir(), *SHORT_FOLDERS])
    for base in bases:
        try:
            entries = list(os.scandir(base))
        except OSError:
            continue
        for entry in entries:
            match = _NAMES.match(entry.name)
            if match is None or _alive(int(match.group(1))):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process, or not a pid: not ours to judge
    return True
