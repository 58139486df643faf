"""The local cluster's fork server listens on a socket whose path fits AF_UNIX's limit.

multiprocessing puts the fork server's socket (``listener-XXXXXXXX``) in a folder it
makes in the temporary folder (``pymp-XXXXXXXX``). A socket's path holds at most ~107
bytes, so a long ``$TMPDIR`` (a test's, a job scheduler's per-job folder) made
``--cluster local:N`` end with ``OSError: AF_UNIX path too long``. Python 3.12 falls
back to a short system folder then; this does the same on 3.11, before the fork server
starts, through the same record multiprocessing keeps (its process config's
``tempdir``) and with the same clean-up at exit (mexsim/exit_now.py removes it too).
"""

from __future__ import annotations

import os
import shutil
import tempfile

SOCKET_PATH_MAX = 107  # sockaddr_un's sun_path, less its terminating zero
LONGEST_TAIL = len("/pymp-XXXXXXXX/listener-XXXXXXXX")  # what multiprocessing appends
SHORT_FOLDERS = ("/tmp", "/var/tmp", "/usr/tmp")  # where Python 3.12 falls back to


def keep_socket_paths_short() -> None:
    """If multiprocessing has no folder yet and the temporary folder's path is too long
    for its sockets, give it one in the first writable short system folder (nothing
    when none is: the fork server's error is then the user's to see)."""
    from multiprocessing import process, util

    config = process.current_process()._config
    if config.get("tempdir") is not None:
        return  # made already: its sockets have worked or failed by now
    if len(tempfile.gettempdir()) + LONGEST_TAIL <= SOCKET_PATH_MAX:
        return
    for base in SHORT_FOLDERS:
        if os.path.isdir(base) and os.access(base, os.W_OK | os.X_OK):
            folder = tempfile.mkdtemp(prefix="pymp-", dir=base)
            util.Finalize(None, shutil.rmtree, args=(folder, True), exitpriority=-100)
            config["tempdir"] = folder
            return
