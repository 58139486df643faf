"""Play a run's blocks on a Dask cluster: ``--cluster tcp://host:8786`` or ``local:N``.

Dask (``pip install 'mexsim[dask]'``) schedules the blocks as tasks on its workers
(several consecutive blocks a task when a small run's blocks are short:
block_tasks.py) and moves each block's results back; the client (``mexsim run``)
writes them in match order exactly as it writes blocks played on its own threads, so
the files are the same bytes whatever played them. What a worker needs travels with
each task: the config (a small dataclass) and the *source* of every strategy file the
run uses that is not built in, so workers need not share a filesystem; each worker
writes the sources into a folder of its own once and compiles them there (numba's
cache on the worker). A worker whose
mexsim is another version than the client's is refused before play, with one line.

When a worker dies, the scheduler runs its blocks elsewhere; a block's result is
written once, by the client, when its future completes, so nothing is lost or written
twice. With ``--out URL`` (a shared location: mexsim/store/location_sink.py) the workers
write the blocks' parts there themselves and send back only their match totals.

A local cluster's workers are forks of one process that loaded Dask, the kernels and
the built-in strategies once (worker_preload.py), started as soon as the command has
read its config (``start_workers_early``) so that it loads while the command prepares;
they end at once when the cluster closes (worker_exit.py) and leave Ctrl-C to the
command (worker_signals.py). Any worker loads only the strategy files the run uses,
once per process.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import hashlib
import importlib.util
import logging
import os
import shutil
import signal
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mexsim.errors import ConfigError, StrategyError
from mexsim.game.stall_watch import tagged
from mexsim.jit.ast_guard import serialise_ast_parse
from mexsim.running.dask.block_tasks import BlockTasks, blocks_per_task
from mexsim.running.dask.socket_folder import own_fork_server_folder
from mexsim.running.dask.stale_scratch import remove_stale_scratch, scratch_folder
from mexsim.running.dask.transfer import for_transfer
from mexsim.running.dask.worker_malloc import restore_mmap_threshold
from mexsim.running.dask.worker_signals import blocked_in_children, start_resource_tracker
from mexsim.running.machine_limits import (
    MEMORY_SHARE,
    WORKERS_PER_CORE,
    machine_memory,
    max_workers,
)
from mexsim.tournament.config import Config, played_strategies
from mexsim.version import __version__

if TYPE_CHECKING:  # pragma: no cover - typing only
    from mexsim.store.location_sink import Totals
    from mexsim.strategy.registry import StrategyInfo
    from mexsim.tournament.luck import LuckModel

LOCAL_PREFIX = "local:"
MAX_LOCAL_WORKERS = 256
# a local worker process's memory, measured: 0.28-0.3 GB resident (numba, the kernels,
# pandas and Dask), with room for its blocks; as --workers, local:N was unbounded,
# and 64 workers on 2 cores only thrashed
LOCAL_WORKER_MEMORY = 0.5 * 2**30


def max_local_workers() -> int:
    """The most worker processes ``local:N`` may start on this machine: as many as
    --workers threads (a few a core), and as fit in half its memory."""
    by_memory = int(machine_memory() * MEMORY_SHARE // LOCAL_WORKER_MEMORY)
    return max(1, min(MAX_LOCAL_WORKERS, max_workers(), by_memory))


# A local cluster's workers are forks of one process that has loaded Dask, the kernels
# and the built-in strategies once (worker_preload.py), rather than each a fresh Python
# that loads them all on its first task.
LOCAL_START = {"distributed.worker.multiprocessing-method": "forkserver"}
# worker_preload first: it makes the fork server ignore Ctrl-C before the long imports
LOCAL_PRELOAD = ["mexsim.running.dask.worker_preload", "distributed"]
# A local cluster's own processes, watched less often than Dask's defaults: its
# statistical profiler (a stack sample of the playing thread every 10 ms, for the
# dashboard's profile page), its memory and system monitors and its event-loop health
# check cost each worker ~7 % of a core beside play (measured with a 50,000-match run:
# 4.1 -> 2.3 CPU-s of housekeeping in the two workers). The dashboard's task stream and
# progress are unchanged. A remote cluster's workers keep their own settings.
LOCAL_HOUSEKEEPING = {
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "1s",
    "distributed.admin.tick.interval": "1s",
}


def parse_address(address: str) -> tuple[str, Any]:
    """('local', n) for ``local:N``, ('remote', address) for a scheduler address."""
    text = address.strip()
    if text.startswith(LOCAL_PREFIX):
        count = text[len(LOCAL_PREFIX) :]
        most = max_local_workers()
        if not count.isdigit() or not 1 <= int(count) <= most:
            raise ConfigError(
                f"--cluster {address!r}: local:N needs N in 1..{most} on this machine "
                f"({os.cpu_count() or 1} cores, at most {WORKERS_PER_CORE} worker processes "
                f"a core and {LOCAL_WORKER_MEMORY / 2**30:.1f} GiB each in half its memory)"
            )
        return "local", int(count)
    if "://" not in text or any(c.isspace() or not c.isprintable() for c in text):
        raise ConfigError(
            f"--cluster {address!r}: expected local:N or a scheduler address "
            "such as tcp://host:8786"
        )
    return "remote", text


def start_workers_early(address: str | None) -> None:
    """For a ``local:N`` address (anything else: nothing), start now the process the
    cluster's workers will be forked from (worker_preload.py), so that its loading
    overlaps the command's own work before the cluster starts. It starts no cluster,
    holds no file and ends with this process (it ignores Ctrl-C and exits when this
    process does), so a run refused after this leaves nothing behind."""
    try:
        if not address or parse_address(address)[0] != "local":
            return
    except ConfigError:
        return  # the run refuses the address, in its one line
    if importlib.util.find_spec("distributed") is None:
        return  # ClusterPlayer says what to install
    import multiprocessing
    from multiprocessing import forkserver

    remove_stale_scratch()  # what commands killed outright left (stale_scratch.py)
    own_fork_server_folder()  # named for us, its socket's path within AF_UNIX's limit
    multiprocessing.get_context("forkserver").set_forkserver_preload(LOCAL_PRELOAD)
    start_resource_tracker()  # before the fork server, which would start it otherwise
    # it and its forks, the workers, never take Ctrl-C or a hangup: blocked from its
    # start, ignored from its preload on (the tracker is up: ensure_running, which
    # would unblock SIGINT after starting one, leaves the mask alone)
    with blocked_in_children({signal.SIGINT, signal.SIGHUP}):
        forkserver.ensure_running()


def strategy_sources(config: Config) -> dict[str, tuple[str, str, str]]:
    """Strategy name -> (file name, source text, its path here) of every strategy the run
    uses that does not ship with mexsim (the built-ins are on every worker already),
    and ``HELPER_KEY`` + file name -> the same of each helper module of the user's they
    import (StrategyInfo.sources), written beside them; the path names the file in what
    a worker says of it."""
    from mexsim.strategy.origin import BUILTIN_FOLDER
    from mexsim.strategy.registry import available_strategies

    played = played_strategies(config.players)  # with those a parameter names
    known = available_strategies(config.strategy_dirs, played)
    sources: dict[str, tuple[str, str, str]] = {}
    placed: dict[str, Path] = {}  # file name in the workers' folder -> the file here
    for name in sorted(played):
        path = Path(known[name].path)
        if path.parent == BUILTIN_FOLDER:
            continue
        # the helper modules of the user's it imports go beside it: a
        # worker elsewhere has none of them, and one here would read them as they are
        # when it starts, not as the run's id says
        for index, file in enumerate(Path(f) for f in known[name].sources):
            if placed.setdefault(file.name, file) != file:
                raise ConfigError(
                    f"{file}: a cluster's workers get each strategy's files in one folder, "
                    f"and {placed[file.name]} has the same name: rename one"
                )
            key = name if index == 0 else f"{HELPER_KEY}{file.name}"
            sources[key] = (file.name, file.read_text(encoding="utf-8"), str(file))
    return sources


HELPER_KEY = "helper module "  # + its file name: a source that is no strategy of the run
_WORKER_FOLDERS: dict[str, Path] = {}
WORKER_COPIES = "worker-strategies"  # in this version's numba cache folder


def _worker_config(config: Config, sources: dict[str, tuple[str, str, str]]) -> Config:
    """The config as a worker plays it: strategies from its own copy of the sources."""
    if not sources:
        return dataclasses.replace(config, strategy_dirs=())
    key = hashlib.sha256(repr(sorted(sources.items())).encode()).hexdigest()[:16]
    folder = _WORKER_FOLDERS.get(key)
    if folder is None:
        folder = _lasting_copies(key, sources) or _temporary_copies(key, sources)
        _WORKER_FOLDERS[key] = folder
    return dataclasses.replace(config, strategy_dirs=(str(folder),))


def _lasting_copies(key: str, sources: dict[str, tuple[str, str, str]]) -> Path | None:
    """The sources at a path of their own content's, in this version's numba cache
    folder (None: it cannot be written). numba keys a cached function on its file's
    path and time stamp: copies at a new path each run (they were in temporary
    folders) compiled every strategy again on every worker, every run. A copy is
    written once, never over another (two workers of one machine may race to write
    it: the first one's stays, with its time stamp), and goes with the cache folder
    (mexsim/jit/cache_folders.py)."""
    folder = Path(os.environ["NUMBA_CACHE_DIR"]) / WORKER_COPIES / key
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for file_name, text, _ in sources.values():
            path = folder / file_name
            if not path.exists():
                fd, temporary = tempfile.mkstemp(dir=folder, prefix=".writing-")
                try:
                    with os.fdopen(fd, "w", encoding="utf-8") as out:
                        out.write(text)
                    with contextlib.suppress(FileExistsError):  # another worker's first
                        os.link(temporary, path)
                finally:
                    os.unlink(temporary)
            if path.read_text(encoding="utf-8") != text:
                return None  # not what it should hold (changed by hand): play a copy
    except OSError:
        return None
    return folder


def _temporary_copies(key: str, sources: dict[str, tuple[str, str, str]]) -> Path:
    """The sources in a folder of this worker's, removed when it exits: in a Dask
    worker's own scratch folder, which Dask removes with the worker (a local cluster's
    workers end without running atexit), else at exit."""
    folder = Path(tempfile.mkdtemp(prefix=f"mexsim-strategies-{key}-", dir=_worker_scratch()))
    atexit.register(shutil.rmtree, folder, True)
    for file_name, text, _ in sources.values():
        (folder / file_name).write_text(text, encoding="utf-8")
    return folder


def _worker_scratch() -> str | None:
    """The scratch folder of the Dask worker this runs in (None: not in a worker)."""
    try:
        from distributed import get_worker

        return get_worker().local_directory
    except (ImportError, ValueError):  # ValueError: no worker here
        return None


_WORKER_STRATEGIES: dict[Path, StrategyInfo] = {}


def _worker_strategies(
    config: Config, sources: dict[str, tuple[str, str, str]]
) -> dict[str, StrategyInfo]:
    """The strategies the run uses, each file loaded once per worker process: a
    built-in from mexsim's own folder, any other from the worker's copy of its source
    (``config`` is the worker's: ``_worker_config``). Only these: the registry loads
    every file of its folders (all the built-ins, longest_train's planner among them),
    which a remote worker did on its first task whatever the run's players."""
    from mexsim.strategy.registry import builtin_strategy_file, load_strategy_file

    _forget_other_runs_helpers(config, sources)
    known = {}
    for name in sorted(played_strategies(config.players)):
        path: Path | None
        if name in sources:
            path = Path(config.strategy_dirs[0]) / sources[name][0]
        else:
            path = builtin_strategy_file(name)
            if path is None:  # the client vetted the names: another mexsim's built-ins
                raise ConfigError(f"strategy {name!r} is not built into the worker's mexsim")
        if path not in _WORKER_STRATEGIES:
            try:
                _WORKER_STRATEGIES[path] = load_strategy_file(path)
            except ConfigError as exc:  # named as the command knows it, not by this copy
                if name not in sources:
                    raise
                raise ConfigError(str(exc).replace(str(path), sources[name][2])) from exc
        known[name] = _WORKER_STRATEGIES[path]
    return known


def _forget_other_runs_helpers(config: Config, sources: dict[str, tuple[str, str, str]]) -> None:
    """A long-lived worker imported a helper module of an earlier run under its name:
    the strategy importing this run's copy would get that module from sys.modules."""
    if not config.strategy_dirs:
        return
    folder = Path(config.strategy_dirs[0]).resolve()
    for key, (file_name, _, _) in sources.items():
        if key.startswith(HELPER_KEY):
            name = Path(file_name).stem
            module = sys.modules.get(name)
            where = getattr(module, "__file__", None)
            if module is not None and (where is None or Path(where).resolve().parent != folder):
                del sys.modules[name]


def load_builtin_strategies() -> None:
    """Load every built-in strategy into this process's cache of the worker's
    strategies (the fork server of a local cluster's workers: worker_preload.py)."""
    from mexsim.strategy.origin import BUILTIN_FOLDER
    from mexsim.strategy.registry import load_strategy_file

    for path in sorted(BUILTIN_FOLDER.glob("*.py")):
        if not path.name.startswith("_") and path not in _WORKER_STRATEGIES:
            _WORKER_STRATEGIES[path] = load_strategy_file(path)


def _worker_players(
    config: Config, sources: dict[str, tuple[str, str, str]], version: str
) -> tuple[Config, list]:
    """What every task does first on a worker: refuse another mexsim version, restore
    malloc's plain behaviour, and make the config and policies it plays."""
    from mexsim.tournament.lineup import player_policies

    if version != __version__:
        raise RuntimeError(f"worker runs mexsim {__version__}, the client {version}")
    serialise_ast_parse()  # Dask's threads parse too (mexsim/jit/ast_guard.py)
    restore_mmap_threshold()  # Dask's malloc settings halve the kernels' speed
    worker_config = _worker_config(config, sources)
    return worker_config, player_policies(worker_config, _worker_strategies(worker_config, sources))


def play_remote_blocks(
    config: Config,
    sources: dict[str, tuple[str, str, str]],
    version: str,
    tag: str,
    spans: list[tuple[int, int]],
) -> list[np.ndarray]:
    """A worker's task: for each (first, n) of ``spans``, the res array of matches
    first … first+n-1 of the config (mexsim/running/dask/block_tasks.py)."""
    from mexsim.running.block_play import play_block

    with tagged(tag):
        worker_config, players = _worker_players(config, sources, version)
        return [for_transfer(play_block(worker_config, players, first, n)) for first, n in spans]


def play_remote_luck_blocks(
    config: Config,
    sources: dict[str, tuple[str, str, str]],
    version: str,
    tag: str,
    model: LuckModel,
    spans: list[tuple[int, int]],
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """A worker's task in a luck-adjusted run: ``play_remote_blocks`` with each block's
    luck scored by the client's model (fitted once, before the run: docs/luck.md)."""
    from mexsim.running.block_play import play_luck_block

    with tagged(tag):
        worker_config, players = _worker_players(config, sources, version)
        return [
            (for_transfer(res), deal_luck, draw_luck)
            for res, deal_luck, draw_luck in (
                play_luck_block(worker_config, players, first, n, model) for first, n in spans
            )
        ]


def play_write_remote_blocks(
    config: Config,
    sources: dict[str, tuple[str, str, str]],
    version: str,
    tag: str,
    url: str,
    run_id: str,
    indices: list[int],
    spans: list[tuple[int, int]],
    model: LuckModel | None = None,
) -> list[Totals]:
    """A worker's task when ``--out`` is a shared location: play the blocks ``indices``
    (first match and count in ``spans``; their luck scored by the client's ``model``
    when given), write their parts there (mexsim/store/location_sink.py) and return only
    what the client's statistics fold of each block (location_sink.Totals)."""
    from mexsim.running.url_block import play_and_write

    with tagged(tag):
        worker_config, players = _worker_players(config, sources, version)
        return [
            play_and_write(url, run_id, worker_config, players, index, first, n, model)
            for index, (first, n) in zip(indices, spans, strict=True)
        ]


def _worker_version() -> str:
    return __version__


class ClusterPlayer:
    """Blocks played on a Dask cluster, several consecutive ones a task: ``tasks`` plans
    them, ``submit(spans)`` starts one."""

    def __init__(self, address: str, config: Config) -> None:
        try:
            import dask
            from distributed import Client, LocalCluster
            from distributed.utils import get_mp_context

            from mexsim.running.dask.worker_exit import QuickExit
            from mexsim.running.dask.worker_interrupts import IgnoreInterrupts
        except ImportError as exc:
            raise ConfigError("--cluster needs Dask: pip install 'mexsim[dask]'") from exc
        kind, where = parse_address(address)
        self._cluster = None
        self._scratch: str | None = None
        try:
            if kind == "local":
                # the fork server, if not started yet: its forks leave Ctrl-C to us
                start_workers_early(address)
                # the scheduler's and workers' scratch folders in one of our own,
                # removed with the cluster (Dask's default, dask-scratch-space in the
                # temporary folder, is left behind)
                self._scratch = scratch_folder()
                with dask.config.set(
                    LOCAL_HOUSEKEEPING | LOCAL_START | {"temporary-directory": self._scratch}
                ):
                    # Dask names its own preload (every package it can use, pandas
                    # among them) as it makes the context: ours replaces it (the same
                    # as start_workers_early's, when that started the fork server)
                    get_mp_context().set_forkserver_preload(LOCAL_PRELOAD)
                    # silence_logs: a worker logs every failed task with its traceback
                    # (a user's strategy that raised) on the terminal it shares with the
                    # command, which says it in one line itself
                    self._cluster = LocalCluster(
                        n_workers=where,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=":0",
                        silence_logs=logging.CRITICAL,
                        local_directory=self._scratch,
                    )
                # the blocks' results straight from the workers, not relayed by the
                # scheduler (Dask's default for a client outside the cluster)
                self.client = Client(self._cluster, direct_to_workers=True)
                self.client.register_plugin(QuickExit())  # our workers: ended at once
                # and any worker started later (after a crash) leaves Ctrl-C to us too
                self.client.register_plugin(IgnoreInterrupts())
            else:
                self.client = Client(where, timeout="10s")
        except (OSError, ValueError) as exc:  # ValueError: a scheme Dask does not speak
            self.close()
            raise ConfigError(f"--cluster {address}: cannot reach the scheduler ({exc})") from exc
        except BaseException:  # Ctrl-C while the cluster starts: nothing of it left
            self.close()
            raise
        versions = self.client.run(_worker_version)
        other = {w: v for w, v in versions.items() if v != __version__}
        if other:
            worker, version = next(iter(other.items()))
            self.close()
            raise ConfigError(
                f"--cluster {address}: worker {worker} runs mexsim {version}, "
                f"this client {__version__}; install the same version there"
            )
        if not versions:
            self.close()
            raise ConfigError(f"--cluster {address}: the scheduler has no workers")
        self.workers = sum(self.client.nthreads().values())
        self.dashboard = self.client.dashboard_link
        if kind == "local" and importlib.util.find_spec("bokeh") is None:
            # Dask serves only a page saying that bokeh is missing: say so here instead
            self.dashboard = "none (Dask's dashboard needs bokeh: pip install 'bokeh>=3.1')"
        self._config = config
        self._sources = strategy_sources(config)
        # this command's tasks: in their keys, since Dask takes a key for the task itself
        # (two commands on one cluster playing the same span of matches got one task:
        # one waited for the other's decide stuck in a worker, or could be handed its
        # results), and told from an earlier command's on a worker (worker_stall.py)
        self._tag = uuid.uuid4().hex
        self._stuck_told: set[str] = set()

    def submit(
        self,
        spans: list[tuple[int, int]],
        write: tuple[str, str, list[int]] | None = None,
        model: LuckModel | None = None,
        config: Config | None = None,
    ) -> Any:
        """One task that plays the blocks ``spans`` (first match, count), in order, of
        the cluster's config or of ``config`` (the same strategies; other parameters,
        seed or matches: `mexsim tune`'s trials); its
        future's result has one item per block: the block's res array, or with
        ``model`` (a luck-adjusted run) its (res, deal luck, draw luck); with ``write``
        = (url, run id, block indices) the worker also writes the blocks' parts to that
        shared location (with their luck scored by ``model`` when given) and each item
        is only what the statistics fold (shared.play_and_write)."""
        first, matches = spans[0][0], sum(n for _, n in spans)
        if write is not None:
            return self.client.submit(
                play_write_remote_blocks,
                self._config,
                self._sources,
                __version__,
                self._tag,
                *write,
                spans,
                model,
                pure=False,
                key=f"mexsim-parts-{first}-{matches}-{self._tag}",
            )
        if model is not None:
            return self.client.submit(
                play_remote_luck_blocks,
                self._config,
                self._sources,
                __version__,
                self._tag,
                model,
                spans,
                pure=False,
                key=f"mexsim-luck-blocks-{first}-{matches}-{self._tag}",
            )
        played = config or self._config
        return self.client.submit(
            play_remote_blocks,
            played,
            self._sources,
            __version__,
            self._tag,
            spans,
            pure=False,
            key=f"mexsim-blocks-{first}-{matches}-{self._tag}-{uuid.uuid4().hex[:8]}"
            if config is not None
            else f"mexsim-blocks-{first}-{matches}-{self._tag}",
        )

    def stalled(
        self, limit: float, note: Callable[[str], None] = lambda text: None
    ) -> StrategyError | None:
        """The error naming a decide of this command's tasks that has run ``limit``
        seconds or more on a worker, if one has (worker_stall.py); 0: none is watched. A
        worker still stuck in an earlier command's decide is ``note``d once: it holds
        one of the cluster's threads until restarted. A worker that cannot answer now
        (it died: the scheduler plays its blocks elsewhere) is asked next time."""
        if limit <= 0:
            return None
        from mexsim.game.stall_watch import StrategyStalled
        from mexsim.running.dask.worker_stall import stalled_here

        try:
            answers = self.client.run(stalled_here, limit, self._tag)
        except Exception:  # asked again at the next look
            return None
        for worker, (mine, earlier) in sorted(answers.items()):
            if mine is not None:
                if self._cluster is None:  # the user's own: its thread cannot be stopped
                    mine += f"; worker {worker} stays busy with it until restarted"
                return StrategyStalled(mine)
            if earlier is not None and worker not in self._stuck_told:
                self._stuck_told.add(worker)
                note(
                    f"worker {worker} is still stuck in an earlier run's decide "
                    f"({earlier.split(' has not returned')[0]}): it holds one of the "
                    "cluster's threads until it is restarted"
                )
        return None

    def tasks(
        self,
        all_blocks: list[tuple[int, int]],
        kept: set[int],
        model: LuckModel | None = None,
        write: tuple[str, str] | None = None,
    ) -> BlockTasks:
        """The run's blocks as tasks of consecutive blocks, sized for this cluster
        (mexsim/running/dask/block_tasks.py), each submitted as ``submit`` says, with
        ``write`` = (url, run id) for a shared location."""

        def submit(indices: list[int]) -> Any:
            return self.submit(
                [all_blocks[i] for i in indices],
                model=model,
                write=None if write is None else (*write, indices),
            )

        per_task = blocks_per_task(
            all_blocks[0][1] if all_blocks else 1, len(all_blocks), self.workers
        )
        return BlockTasks(len(all_blocks), kept, per_task, submit)

    def close(self) -> None:
        try:
            for closer in (getattr(self, "client", None), self._cluster):
                if closer is not None:
                    # closing a cluster that failed half-way: nothing useful to report
                    with contextlib.suppress(Exception):
                        closer.close()
        finally:  # whatever ended the closing: the scratch is ours alone
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
                self._scratch = None


def open_player(
    address: str | None, config: Config
) -> tuple[ClusterPlayer | None, Callable[[], None]]:
    """A cluster player for ``address`` (None: play on local threads) and its closer."""
    if not address:
        return None, lambda: None
    player = ClusterPlayer(address, config)
    return player, player.close
