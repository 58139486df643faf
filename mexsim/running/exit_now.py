"""End the process at once, leaving nothing in the temporary folder.

An interrupted run ends with ``os._exit`` (mexsim/cli.py: a worker thread may be stuck
in a strategy's compiled code, which nothing can interrupt or join), and ``os._exit``
runs no exit handler: multiprocessing's folder (mexsim's ``mexsim-fork-*``, else its own
``pymp-*``), made in the temporary folder for a local cluster's fork server (its
socket), which an exit handler of
multiprocessing removes, stayed behind after every Ctrl-C of a ``--cluster local:N``
run. This removes it first; the fork server ends with this process either way.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import NoReturn


def exit_now(status: int) -> NoReturn:
    """``os._exit(status)``, multiprocessing's temporary folder removed first."""
    process = sys.modules.get("multiprocessing.process")  # not imported: nothing made
    if process is not None:
        # where multiprocessing.util.get_temp_dir keeps the folder it made, if it did
        folder = process.current_process()._config.get("tempdir")
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    os._exit(status)
