"""A user's strategy file is imported first in a child process, once per edit.

Importing a file runs it, and a file can end the process it runs in: ``os._exit(0)`` at
import made ``run``, ``strategies`` and ``check`` exit 0 with no output and no results.
No check inside the process can stop that, so the first import of
each edit of a file (its bytes, and its helper files') happens in a child: a child
that ends before it reports names the file in one line, and the command stops there.
A file that loads in the child is marked in mexsim's cache folder and imported in the
command's own process from then on, where its decide, compiled and vetted by the child,
loads from numba's cache. A file whose import behaves differently on purpose when it is
imported a second time is not stopped (nothing short of never importing it can be);
the marker makes the check cheap, not complete.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mexsim.errors import ConfigError

VERSION = "1"  # bump when what the child checks changes: every file is imported afresh
IN_CHILD = False  # true in the child: its own import of the file is the check

_CHILD = (
    "from mexsim.strategy.first_import import child_main\n"
    "from mexsim.strategy.registry import load_strategy_file\n"
    "child_main(load_strategy_file)"
)


class FirstImportError(ConfigError):
    """A strategy file refused by its import in the child; ``check`` is the contract's
    clause it breaks (as VettingError's), when vetting refused it there."""

    def __init__(self, message: str, check: str = "loads") -> None:
        super().__init__(message)
        self.check = check


def imported_in_child_first(path: Path) -> None:
    """Return when ``path`` loads as a strategy in a new process (or did, as it and its
    helper files are now); raise ConfigError naming the file when it does not."""
    marker = _marker(path)
    if marker is not None and _fresh(marker):
        return
    read, write = os.pipe()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path), str(write), json.dumps(sys.path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,  # what the file prints at import is said by the command's own
            pass_fds=(write,),
            check=False,
        )
        os.close(write)
        write = -1
        with os.fdopen(read, "rb") as pipe:
            read = -1
            report = pipe.read()
    finally:
        for fd in (read, write):
            if fd >= 0:
                os.close(fd)
    if not report:
        raise ConfigError(f"{path}: importing the strategy {_ended(done.returncode)}")
    outcome = json.loads(report)
    if "interrupted" in outcome:
        raise KeyboardInterrupt
    if "internal" in outcome:
        raise RuntimeError(f"importing {path} in a child process: {outcome['internal']}")
    if "error" in outcome:
        raise FirstImportError(outcome["error"], outcome.get("check") or "loads")
    if marker is not None:
        helpers = {p: _digest(Path(p)) for p in outcome["sources"][1:]}
        with contextlib.suppress(OSError):  # only saves the child next time
            marker.parent.mkdir(parents=True, exist_ok=True)
            temporary = marker.with_suffix(f".{os.getpid()}")
            temporary.write_text(json.dumps(helpers), encoding="utf-8")
            temporary.replace(marker)


def _ended(status: int) -> str:
    if status < 0:
        with contextlib.suppress(ValueError):
            how = f"killed its process ({signal.Signals(-status).name})"
            return f"{how}: a strategy file may not end or signal its process"
        return f"killed its process (signal {-status})"
    return (
        f"ended its process (exit status {status}) before the strategy was loaded: a "
        "strategy file may not exit (remove os._exit, sys.exit or the like)"
    )


def child_main(load_strategy_file: Callable[[Path], Any]) -> None:
    """In the child: import the file as the command would (the registry's loader),
    report on the pipe, end without waiting for anything the file started."""
    global IN_CHILD
    path, fd, search = Path(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
    sys.path[:] = search
    IN_CHILD = True
    try:
        info = load_strategy_file(path)
        outcome: dict[str, object] = {"sources": list(info.sources)}
    except ConfigError as exc:
        outcome = {"error": str(exc)[:4000], "check": getattr(exc, "check", None)}
    except KeyboardInterrupt:  # Ctrl-C, or the file raised it: the command's to answer
        outcome = {"interrupted": True}
    except BaseException as exc:  # mexsim's own fault: the command says so, exit 70
        outcome = {"internal": f"{type(exc).__name__}: {exc}"[:4000]}
    os.write(fd, json.dumps(outcome).encode())
    os._exit(0)


def _marker(path: Path) -> Path | None:
    import numba

    from mexsim.strategy.sources import edit_marker
    from mexsim.version import __version__

    return edit_marker("imported", (VERSION, __version__, numba.__version__, sys.version), path)


def _fresh(marker: Path) -> bool:
    """The marker exists and the helper files it lists are as they were then."""
    try:
        helpers = json.loads(marker.read_text(encoding="utf-8"))
        return all(_digest(Path(p)) == d for p, d in helpers.items())
    except (OSError, ValueError, AttributeError):
        return False


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
