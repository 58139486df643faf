"""What a cold cache compiles, cut into jobs that compiler processes take in parallel.

A job is the engine's kernels, one of the planner's paths, or a strategy file; some wait
for others, so that they load those from numba's cache rather than compile them again.
mexsim/running/warmup.py runs them. The planner's paths are jobs of their own because they are
most of longest_train's compile and no other job needs them:

- ``planner``: the dense path's counting form, which longest_train plans with at
  pip_weight 0 (the default);
- ``sparse-planner``: the sparse path's counting form, which every such plan tries
  first;
- ``weighted-planner``: the weighted forms of the dense and sparse paths, a job only
  when a run gives
  longest_train a pip_weight (``weighted-longest_train`` then compiles its decide for
  weights, after it) or a file of the user's calls the planner (``longest_chain``
  compiles both forms);
- ``longest_train-in-table``: longest_train as the kernel plays it on its private table
  (mexsim/game/kernel_longest_train.py), after the counting forms, unless the config's
  players name no longest_train.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

ENGINE = "engine"
PLANNER = "planner"
SPARSE_PLANNER = "sparse-planner"
WEIGHTED_PLANNER = "weighted-planner"
WEIGHTED_LONGEST_TRAIN = "weighted-longest_train"
LONGEST_TRAIN_IN_TABLE = "longest_train-in-table"
JOB_NAMES = (
    ENGINE,
    PLANNER,
    SPARSE_PLANNER,
    WEIGHTED_PLANNER,
    WEIGHTED_LONGEST_TRAIN,
    LONGEST_TRAIN_IN_TABLE,
)
LONGEST_TRAIN = "longest_train"  # the built-in that plans, and its file's stem
WEIGHTED_PARAM = "pip_weight"  # its parameter that asks for weighted plans


def warm_up_jobs(
    strategy_dirs: Sequence[str | Path] = (), players: Iterable[Mapping[str, Any]] = ()
) -> list[tuple[str, tuple[str, ...]]]:
    """(job, the jobs it waits for), in the order they should start: the engine and
    the planner's paths, then the strategy files of these folders, largest first (the
    longest compiles start first, so that they do not end last). ``players`` are the
    config's [[players]] tables: only the files of the strategies they play (and name,
    as search's rollout) are jobs, every file without players; one that gives a
    pip_weight other than 0 adds the weighted jobs; none of longest_train (when there
    are some) drops the kernel's."""
    from mexsim.strategy.origin import BUILTIN_FOLDER
    from mexsim.strategy.registry import strategy_dirs as folders

    players = list(players)  # read thrice
    played = _played_files(strategy_dirs, players)
    sizes = {
        path: size
        for folder in folders(strategy_dirs)
        if folder.is_dir()
        for path in folder.glob("*.py")
        if not path.name.startswith("_")
        if played is None or path in played
        if (size := _size(path)) is not None
    }
    files = sorted(sizes, key=lambda path: (-sizes[path], str(path)))
    builtin_planning = (PLANNER, SPARSE_PLANNER)
    users_planning = (WEIGHTED_PLANNER, *builtin_planning)
    waits = {
        path: (builtin_planning if path.parent == BUILTIN_FOLDER else users_planning)
        if _uses_planner(path)
        else ()
        for path in files
    }
    longest_train = BUILTIN_FOLDER / f"{LONGEST_TRAIN}.py"
    weighted_strategy = longest_train in waits and asks_for_weights(players)
    weighted = weighted_strategy or any(WEIGHTED_PLANNER in after for after in waits.values())
    first = (WEIGHTED_PLANNER,) if weighted else ()  # the longest first
    in_table = (
        [(LONGEST_TRAIN_IN_TABLE, builtin_planning)]
        if (not players or any(table.get("strategy") == LONGEST_TRAIN for table in players))
        else []
    )
    # the engine (~12 CPU-s) beside the planner's paths and longest_train as the kernel
    # plays it (~12 together, one after another): on 2 cores they end together. A
    # shipped decide the kernel plays itself compiles nothing now (mexsim/game/stand_in.py),
    # so longest_train's file no longer follows them (it was 4.6 s)
    jobs = [
        *((job, ()) for job in (*first, ENGINE, PLANNER, SPARSE_PLANNER)),
        *in_table,
        *((str(path), waits[path]) for path in files),
    ]
    if weighted_strategy:
        jobs.append((WEIGHTED_LONGEST_TRAIN, (WEIGHTED_PLANNER, str(longest_train))))
    return jobs


def _played_files(
    strategy_dirs: Sequence[str | Path], players: list[Mapping[str, Any]]
) -> set[Path] | None:
    """The files of the strategies the [[players]] tables name (a table's strategy, and
    a parameter's strategy name: search's rollout = "mine"), read without running any;
    None (every file) without tables, or where the folders cannot be read (the
    command reports that). A strategy no table names compiles when a command first
    plays it, with a notice of its own: the built-in search alone was a third of a
    cold start's compiling."""
    from mexsim.errors import ConfigError
    from mexsim.strategy.registry import strategy_files

    if not players:
        return None
    given: list[Any] = []
    for table in players:
        given.append(table.get("strategy"))
        params = table.get("params")
        for value in params.values() if isinstance(params, Mapping) else ():
            given.extend(value if isinstance(value, list) else [value])
    try:
        return set(strategy_files(strategy_dirs, {n for n in given if isinstance(n, str)}))
    except (ConfigError, OSError):
        return None


def asks_for_weights(players: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a [[players]] table gives longest_train's pip_weight a value that plans
    with weights (a positive number, or a list of them for a sweep); what is no such
    value is the config check's to report, after the strategies load."""
    for table in players:
        params = table.get("params")
        if table.get("strategy") != LONGEST_TRAIN or not isinstance(params, Mapping):
            continue
        value = params.get(WEIGHTED_PARAM, 0)
        values = value if isinstance(value, list) else [value]
        if any(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v > 0
            for v in values
        ):
            return True
    return False


def _size(path: Path) -> int | None:
    """The file's size; None for a name that is not a file to compile (a broken
    symbolic link, a file removed meanwhile), left to the command to report."""
    try:
        return path.stat().st_size if path.is_file() else None
    except OSError:
        return None


def _uses_planner(path: Path) -> bool:
    """Whether the file calls the planner, itself or through longest_train's decide
    (search's rollouts): its job waits for the planner's, not compile it again."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "mexsim.planner" in text or "mexsim.strategy.builtin.longest_train" in text


def run_job(job: str) -> None:
    """Compile (or load from the cache) what the job names."""
    if job == ENGINE:
        compile_engine()
    elif job in (PLANNER, WEIGHTED_PLANNER, SPARSE_PLANNER):
        compile_planner(job)
    elif job == LONGEST_TRAIN_IN_TABLE:
        from mexsim.game.kernel_longest_train import in_table_decide

        in_table_decide()
    elif job == WEIGHTED_LONGEST_TRAIN:
        from mexsim.strategy.origin import BUILTIN_FOLDER
        from mexsim.strategy.registry import load_strategy_file

        info = load_strategy_file(BUILTIN_FOLDER / f"{LONGEST_TRAIN}.py")
        info.decide_with(tuple(1.0 for _ in info.params))
    else:
        from mexsim.game.enums import IN_KERNEL_CALLINGS
        from mexsim.game.signature import ready
        from mexsim.strategy.registry import load_strategy_file

        info = load_strategy_file(Path(job))  # a user's decide compiles as it loads
        if info.calling not in IN_KERNEL_CALLINGS:  # a shipped one, when first needed
            ready(info.decide)


def compile_engine() -> None:
    """Compile (or load) the kernels a run plays, with a built-in strategy: their
    machine code is the same whatever the strategies (mexsim/game/play.py)."""
    import numpy as np

    from mexsim.game.play import play_scheduled
    from mexsim.game.rules import resolve_rules
    from mexsim.strategy.origin import BUILTIN_FOLDER
    from mexsim.strategy.policy import Policy
    from mexsim.strategy.registry import load_strategy_file

    greedy = load_strategy_file(BUILTIN_FOLDER / "greedy.py")
    rules = resolve_rules({}, 2)
    no_matches = np.zeros(0, dtype=np.int64)
    play_scheduled(
        rules,
        [Policy(greedy, ())] * 2,
        0,
        no_matches,
        no_matches.copy(),
        np.zeros((0, 2), dtype=np.int64),
    )


def compile_planner(job: str) -> None:
    """Compile (or load) one of the planner's paths for the argument types the router
    passes (mexsim/planner/router.py; the hand's size is a popcount's uint64, the
    sparse path's budget an int64): the same types, or longest_train would compile it
    again."""
    import numpy as np

    from mexsim.game.tiles import tile_set
    from mexsim.planner.dense import dense_chain, weighted_dense_chain
    from mexsim.planner.limits import SWITCH_STEPS
    from mexsim.planner.sparse import sparse_chain, sparse_count_chain

    tiles = tile_set(6)
    # writable copies: longest_train passes slices of the view, and numba compiles
    # read-only arrays (the tile set's) apart
    lo, hi, pips = (np.array(a, dtype=np.int64) for a in (tiles.lo, tiles.hi, tiles.pips))
    hand = np.arange(10, dtype=np.int64)
    chain = np.zeros(10, dtype=np.int64)
    start, n, max_pip = np.int64(0), np.uint64(10), np.int64(6)
    if job == WEIGHTED_PLANNER:
        weighted_dense_chain(start, hand, n, lo, hi, pips, 0.5, max_pip, chain)
        sparse_chain(start, hand, n, lo, hi, pips, 0.5, max_pip, chain, np.int64(SWITCH_STEPS))
    elif job == SPARSE_PLANNER:
        sparse_count_chain(start, hand, n, lo, hi, max_pip, chain, np.int64(SWITCH_STEPS))
    else:
        dense_chain(start, hand, n, lo, hi, max_pip, chain)
