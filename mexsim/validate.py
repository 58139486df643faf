"""The checks of a config's values, one home for every section that has them.

Each check returns the value when it is good and otherwise raises
:class:`~mexsim.errors.ConfigError` with one line: where (the file and section, or
"command line"), the key, what it got — spelled as TOML spells it — and what is
allowed. The rules (mexsim/game/rules.py) and the run config
(mexsim/tournament/config.py) both use them, so the same mistake reads the same
wherever it is made. Standard library only: ``mexsim --help`` stays light.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mexsim.errors import ConfigError

# the bytes a results folder's name must leave free: its work folder is ".NAME.tmp-PID"
# beside it (mexsim/store/results_folder.py, WORK_SUFFIX)
RESULTS_NAME_ROOM = len(".") + len(".tmp-") + 12


def show(value: Any) -> str:
    """A value as the TOML file spells it, roughly (``true``, not ``True``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def suggest(word: Any, choices: Iterable[str]) -> str:
    """ "; did you mean 'x'?" for the choice closest to a mistyped ``word`` (else "")."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def need_int(where: str, key: str, value: Any, lo: int, hi: int | None) -> int:
    """An integer in lo..hi (no upper bound when hi is None); a bool is not one."""
    allowed = f"{lo}..{hi}" if hi is not None else f">= {lo}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(
            f"{where}: '{key}' must be an integer, got {show(value)} (allowed: {allowed})"
        )
    if value < lo or (hi is not None and value > hi):
        raise ConfigError(f"{where}: '{key}' = {value} is out of range (allowed: {allowed})")
    return value


def need_bool(where: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: '{key}' must be true or false, got {show(value)}")
    return value


def need_str(where: str, key: str, value: Any) -> str:
    """A string with something in it besides white space."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: '{key}' must be a non-empty string, got {show(value)}")
    return value


def need_choice(where: str, key: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        allowed = ", ".join(f'"{c}"' for c in choices)
        raise ConfigError(f"{where}: '{key}' = {show(value)} is not allowed (allowed: {allowed})")
    return value


def out_problem(out: str) -> str | None:
    """Why ``out`` cannot be a results folder's path, or None."""
    return path_problem(out, RESULTS_NAME_ROOM)


def path_problem(out: str, room: int = 0) -> str | None:
    """Why ``out`` cannot be a path mexsim uses, or None (``room``: bytes its last name
    must leave free for a suffix)."""
    if not out.strip():
        return "is empty (allowed: a folder path)"
    bad = next((c for c in out if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        return f"contains the control character {bad!r} (allowed: printable text)"
    try:
        encoded = os.fsencode(out)
    except UnicodeError:
        return "cannot be encoded for the file system"
    name_max, path_max = 255, 4096
    with contextlib.suppress(OSError, ValueError):
        name_max = os.pathconf(".", "PC_NAME_MAX")
        path_max = os.pathconf(".", "PC_PATH_MAX")
    longest = max((len(os.fsencode(p)) for p in Path(out).parts), default=0)
    if longest + room > name_max:
        spare = ", leaving room for the work folder's suffix" if room else ""
        return f"has a name of {longest} bytes (allowed: at most {name_max - room}{spare})"
    if len(encoded) + room >= path_max:
        return f"is {len(encoded)} bytes long (allowed: under {path_max - room})"
    return None
