"""Strategy plug-ins: find the strategy files, load and check them.

A strategy is a Python file in a strategies folder — the built-ins shipped in
``mexsim/strategy/builtin/``, a ``strategies/`` folder in the working directory (the
drop-in folder), the folders a config names, ``--strategies DIR`` — that defines NAME,
DESCRIPTION, PARAMS and ``decide``, compiled with ``mexsim.strategy.api.strategy`` (see
that module). Adding one never touches ``mexsim/``. Loading imports numba, so this module is only
imported by commands that need strategies (``mexsim --help`` stays light).
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from mexsim.errors import ConfigError
from mexsim.strategy.limits import MAX_MEMORY, MAX_PARAMS

BUILTIN_STRATEGIES = Path(__file__).resolve().parent / "builtin"
DROP_IN_FOLDER = "strategies"  # looked for in the working directory
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class StrategyInfo:
    """A loaded strategy: its metadata and its compiled ``decide`` function."""

    name: str
    description: str
    params: dict[str, float] = field(default_factory=dict)
    memory: int = 0  # words of the view's MEMORY block kept between decisions
    path: str = ""
    decide: Any = field(default=None, compare=False, repr=False)


def strategy_dirs(extra: Iterable[str | Path] = ()) -> tuple[Path, ...]:
    """The built-ins, the working directory's ``strategies/`` (when there is one), then
    the extra folders, without repeats."""
    dirs: list[Path] = []
    drop_in = Path(DROP_IN_FOLDER)
    for d in (BUILTIN_STRATEGIES, *((drop_in,) if drop_in.is_dir() else ()), *extra):
        resolved = Path(d).expanduser().resolve()
        if resolved not in dirs:
            dirs.append(resolved)
    return tuple(dirs)


def available_strategies(extra_dirs: Sequence[str | Path] = ()) -> dict[str, StrategyInfo]:
    """Every strategy found, by name (see :func:`strategy_dirs`)."""
    return dict(_load_all(strategy_dirs(extra_dirs)))


@cache
def _load_all(dirs: tuple[Path, ...]) -> tuple[tuple[str, StrategyInfo], ...]:
    found: dict[str, StrategyInfo] = {}
    for folder in dirs:
        if not folder.is_dir():
            if folder != BUILTIN_STRATEGIES:
                raise ConfigError(f"{folder}: strategies folder not found")
            continue
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith("_"):
                continue
            info = load_strategy_file(path)
            if info.name in found:
                raise ConfigError(
                    f"{path}: strategy '{info.name}' is already defined in "
                    f"{found[info.name].path} (names must be unique)"
                )
            found[info.name] = info
    return tuple(found.items())


def load_strategy_file(path: Path) -> StrategyInfo:
    """Import one strategy file and check what it defines; ConfigError names the file."""
    from mexsim.strategy.api import DECIDE_SIGNATURE

    # A name stable across processes: numba's on-disk cache refers to it when loading.
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:12]
    module_name = f"mexsim_strategy_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{path}: cannot be imported as a strategy")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a user's file: report it in one line, whatever it raised
        del sys.modules[module_name]
        raise ConfigError(f"{path}: importing the strategy failed: "
                          f"{type(exc).__name__}: {exc}") from exc

    name = getattr(module, "NAME", None)
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ConfigError(f"{path}: NAME must be a lower-case identifier string, got {name!r}")
    description = getattr(module, "DESCRIPTION", None)
    if not isinstance(description, str) or not description.strip():
        raise ConfigError(f"{path}: DESCRIPTION must be a non-empty one-line string")
    params = getattr(module, "PARAMS", {})
    if not isinstance(params, dict) or len(params) > MAX_PARAMS or not all(
        isinstance(k, str) and isinstance(v, int | float) and not isinstance(v, bool)
        for k, v in params.items()
    ):
        raise ConfigError(
            f"{path}: PARAMS must be a dict of at most {MAX_PARAMS} names to numbers")
    memory = getattr(module, "MEMORY", 0)
    if isinstance(memory, bool) or not isinstance(memory, int) or not 0 <= memory <= MAX_MEMORY:
        raise ConfigError(f"{path}: MEMORY must be an integer 0..{MAX_MEMORY}, got {memory!r}")
    decide = getattr(module, "decide", None)
    signatures = getattr(decide, "signatures", None)
    if not signatures or list(signatures) != [DECIDE_SIGNATURE.args]:
        raise ConfigError(
            f"{path}: 'decide' must be compiled with @mexsim.strategy.api.strategy "
            "(signature int64(int64[::1], float64[::1]))")
    return StrategyInfo(
        name=name, description=" ".join(description.split()),
        params={k: float(v) for k, v in params.items()}, memory=memory, path=str(path),
        decide=decide,
    )
