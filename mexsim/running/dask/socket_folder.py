"""The local cluster's fork server listens in a folder of mexsim's own, named for the
command's process, on a socket path that fits AF_UNIX's limit.

multiprocessing puts the fork server's socket (``listener-XXXXXXXX``) in a folder it
makes in the temporary folder (``pymp-XXXXXXXX``) and removes at exit. Two faults came
of it:

* a socket's path holds at most ~107 bytes, so a long ``$TMPDIR`` (a test's, a job
  scheduler's per-job folder) made ``--cluster local:N`` end with ``OSError: AF_UNIX
  path too long``. Python 3.12 falls back to a short system folder then; this does the
  same on 3.11;
* a command killed outright (``kill -9``, the OOM killer) runs no exit handler, and its
  ``pymp-*`` folder stayed, with nothing in its name to say whose it was.

So the folder is made here, before the fork server starts, through the record
multiprocessing keeps (its process config's ``tempdir``), with the same clean-up at exit
(mexsim/running/exit_now.py removes it too), named ``mexsim-fork-<pid>-XXXXXXXX`` and claimed
by this command's lock: the next local cluster run removes those whose command is gone
(stale_scratch.py).
"""

from __future__ import annotations

import os
import shutil
import tempfile

from mexsim.running.dask.stale_scratch import FORK_FOLDER_PREFIX, SHORT_FOLDERS, claim

SOCKET_PATH_MAX = 107  # sockaddr_un's sun_path, less its terminating zero


def own_fork_server_folder() -> None:
    """Unless multiprocessing has its folder already, make it: in the temporary folder
    when the socket's path fits there, else in the first writable short system folder
    (none: multiprocessing makes its own, and the fork server's error, if any, is the
    user's to see)."""
    from multiprocessing import process, util

    config = process.current_process()._config  # type: ignore[attr-defined]  # private
    if config.get("tempdir") is not None:
        return  # made already: its sockets have worked or failed by now
    prefix = f"{FORK_FOLDER_PREFIX}{os.getpid()}-"
    tail = len(f"/{prefix}XXXXXXXX/listener-XXXXXXXX")  # what mkdtemp and it append
    temporary = tempfile.gettempdir()
    bases = [temporary] if len(temporary) + tail <= SOCKET_PATH_MAX else []
    bases += [b for b in SHORT_FOLDERS if len(b) + tail <= SOCKET_PATH_MAX]
    for base in bases:
        try:
            folder = tempfile.mkdtemp(prefix=prefix, dir=base)
        except OSError:  # not writable: the next one
            continue
        claim(folder)
        util.Finalize(None, shutil.rmtree, args=(folder, True), exitpriority=-100)
        config["tempdir"] = folder
        return
