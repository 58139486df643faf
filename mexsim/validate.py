"""The checks of a config's values, one home for every section that has them.

Each check returns the value when it is good and otherwise raises
:class:`~mexsim.errors.ConfigError` with one line: where (the file and section, or
"command line"), the key, what it got — spelled as TOML spells it — and what is
allowed. The rules (mexsim/game/rules.py) and the run config
(mexsim/tournament/config.py) both use them, so the same mistake reads the same
wherever it is made. Standard library only: ``mexsim --help`` stays light.
"""

from __future__ import annotations

from typing import Any

from mexsim.errors import ConfigError


def show(value: Any) -> str:
    """A value as the TOML file spells it, roughly (``true``, not ``True``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


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
        raise ConfigError(
            f"{where}: '{key}' = {show(value)} is not allowed (allowed: {allowed})"
        )
    return value
