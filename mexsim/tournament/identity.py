"""A run's identity: one hash of everything its results depend on.

The results of ``mexsim run`` are a function of the resolved config (rules, players,
parameters, seating, schedule, matches), the seed, the version of mexsim and the source
of each strategy played. The run id hashes exactly those, so two runs with the same id
write the same bytes: a killed run may be resumed by a run with its id (and by no
other), and ``mexsim report`` can check that every file of a results directory came
from one run. Where the results go (``out``) and where strategies were found (folder
paths) are not part of it: moving a config or a strategies folder changes nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mexsim.strategy.sources import sources_digest
from mexsim.version import __version__

RUN_ID_KEY = b"mexsim.run_id"  # Parquet key-value metadata holding the run id


def run_identity(
    resolved: dict[str, Any], strategy_files: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """What the run id hashes: the resolved config without paths, mexsim's version, and
    a digest of each strategy's source files (by strategy name): its own file, then the
    helper files of the user's it imports (StrategyInfo.sources)."""
    config = json.loads(json.dumps(resolved))  # a deep copy
    config["run"].pop("out", None)
    config["run"].pop("strategies", None)
    sources = {name: _digest(paths) for name, paths in sorted(strategy_files.items())}
    return {"config": config, "mexsim_version": __version__, "strategy_sources": sources}


def _digest(paths: Sequence[str]) -> str:
    """One file's SHA-256 (as run ids were before helper files counted); several
    files' digest of their digests."""
    if len(paths) == 1:
        return hashlib.sha256(Path(paths[0]).read_bytes()).hexdigest()
    return sources_digest(paths)


def run_id(identity: dict[str, Any]) -> str:
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def differences(old: dict[str, Any], new: dict[str, Any], limit: int = 3) -> str:
    """What changed between two identities, e.g. ``run.seed 7 -> 8`` (at most ``limit``
    items, then a count)."""
    a, b = _flatten(old), _flatten(new)
    changed = [
        f"{key} {_show(a.get(key))} -> {_show(b.get(key))}"
        for key in sorted(set(a) | set(b))
        if a.get(key) != b.get(key)
    ]
    if len(changed) > limit:
        changed = [*changed[:limit], f"and {len(changed) - limit} more"]
    return "; ".join(changed) or "nothing visible (a different mexsim build)"


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    items: Iterable[tuple[Any, Any]]
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        items = ((str(i + 1), v) for i, v in enumerate(value))
    else:
        return {prefix: value}
    flat: dict[str, Any] = {}
    for key, inner in items:
        name = f"{prefix}.{key}" if prefix else str(key)
        if name.startswith("config."):
            name = name[len("config.") :]
        flat |= _flatten(inner, name)
    return flat


def _show(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value)
