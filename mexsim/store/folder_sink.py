"""A results folder as a run's sink (mexsim/store/sink.py): the lock, what may be
replaced, the hidden work folder ``.NAME.tmp-PID`` that keeps every finished block
durably (a killed run's blocks are resumed), the results assembled in match order, and
the swap that puts them in place without ever losing both old and new results
(mexsim/store/results_folder.py)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from mexsim.analysis.accumulate import RunAccumulator, RunStatistics
from mexsim.analysis.designer import BASE
from mexsim.errors import ConfigError
from mexsim.store import decisions_file
from mexsim.store import results_folder as output
from mexsim.store.location import is_url
from mexsim.store.parts import Assembler, Block, WorkFolder, write_and_read
from mexsim.store.sink import Note
from mexsim.tournament.identity import differences


class FolderSink:
    """The results folder ``out`` (see the module docstring)."""

    remote_writes = False
    drain_on_stop = False

    def __init__(
        self,
        out: Path,
        names: list[str],
        players: int,
        luck: bool,
        variants: Sequence[str] = (BASE,),
    ) -> None:
        self.target = out
        self.names, self.players, self.luck = names, players, luck
        self.variants = variants
        self.lock = output.OutputLock(out)
        self.before: Any = None
        self.force = False
        self.stale: WorkFolder | None = None
        self.work: WorkFolder | None = None
        self.assembler: Assembler | None = None
        self.note: Note = lambda line: None

    def reserve(self) -> None:
        try:
            output.parent_of(self.target).mkdir(parents=True, exist_ok=True)
            self.lock.acquire()
        except (FileExistsError, NotADirectoryError):
            file = next(
                (p for p in reversed(self.target.parents) if p.exists() and not p.is_dir()),
                None,
            )
            if file is None:
                raise
            raise ConfigError(
                f"{self.target}: a parent of it, {file}, is a file, not a folder "
                "(choose another --out)"
            ) from None
        except OSError as exc:
            raise ConfigError(f"{self.target}: output path not writable ({exc.strerror})") from None

    def check(
        self, run_id: str, identity: dict[str, Any], resume: bool, force: bool, note: Note
    ) -> None:
        self.force = force
        self.note = note
        self.before = output.inspect(self.target, force)
        self.stale = _stale_work(self.target, run_id, identity, resume, force, note)

    def open(self, run_id: str, identity: dict[str, Any], total: int, note: Note) -> set[int]:
        self.work = _work_folder(self.target, self.stale, run_id, identity)
        kept = self.work.done()  # blocks are written in parallel: not always a prefix
        if kept:
            note(f"resuming {self.work.path}: {len(kept):,} of {total:,} blocks already played")
        self.assembler = Assembler(
            self.work, run_id, self.names, self.players, self.luck, self.variants
        )
        return kept

    @property
    def statistics(self) -> RunAccumulator:
        assert self.assembler is not None  # opened
        return self.assembler.fold.baseline

    def write_block(self, index: int, rounds: Any, matches: Any) -> Block:
        """Its parts written durably to the work folder and read back for the assembler."""
        assert self.work is not None and self.assembler is not None  # opened
        a = self.assembler
        return write_and_read(self.work, index, rounds, matches, a.run_id, a.names, a.players)

    def write_decisions(self, index: int, tables: Iterable[pa.Table]) -> None:
        """Block ``index``'s decisions part (before the block's own parts)."""
        assert self.work is not None  # opened
        decisions_file.write_part(self.work, index, tables)

    def join_decisions(self, folder: Path, blocks: int) -> None:
        """decisions.parquet in ``folder``, from the blocks' parts in match order."""
        assert self.work is not None  # opened
        decisions_file.join_parts(self.work, blocks, folder)

    def take(self, index: int, written: Block | None) -> None:
        assert self.assembler is not None  # opened
        self.assembler.add(index, written)  # None: a kept block, read from its parts

    def close(self) -> RunStatistics:
        assert self.assembler is not None  # opened
        return self.assembler.close()

    def publish(self, fill: Callable[[Path], None], finishing: Callable[[], None]) -> None:
        assert self.work is not None and self.assembler is not None  # opened
        fill(self.work.results)
        output.write_marker(self.work.results, self.assembler.run_id)
        finishing()
        kept = output.publish(self.work.results, self.target, self.before, self.force)
        self.work.remove()
        if kept:
            self.note(
                f"kept what you had put in {self.target} ({_listed(kept)}): mexsim replaces "
                "only the files it writes"
            )

    def stopped(self, what: str) -> str:
        return _kept_message(what, self.work)

    def failed(self, exc: OSError) -> str:
        return _kept_message(f"{exc.filename or self.target}: {exc.strerror or exc}", self.work)

    def discard(self) -> None:
        if self.work is not None:
            self.work.remove()

    def release(self) -> None:
        # anything else than a strategy's fault (OutputConflict, a bug) keeps the work
        # folder: the next run names it, --resume continues it
        if self.assembler is not None:
            self.assembler.abandon()  # closed already when the run succeeded
        self.lock.release()


def interrupted_seed(out: str) -> int | None:
    """The seed of the interrupted run whose work folder ``out`` has, if one has
    (the newest): what ``--resume`` continues when the config draws its seed."""
    if is_url(out):
        return None
    found = [WorkFolder(p) for p in output.work_folders(Path(out))]
    seeds = []
    for work in found:
        seed = (work.info() or {}).get("identity", {}).get("config", {}).get("run", {}).get("seed")
        if isinstance(seed, int):
            seeds.append((work.path.stat().st_mtime, seed))
    return max(seeds)[1] if seeds else None


def _stale_work(
    out: Path,
    rid: str,
    identity: dict[str, Any],
    resume: bool,
    force: bool,
    note: Callable[[str], None],
) -> WorkFolder | None:
    """The work folders dead runs to ``out`` left (the lock is ours: every one is
    stale): the one to resume, or None; the others are discarded (--force) or
    refused."""
    for aside in output.work_folders(out, output.ASIDE_SUFFIX):  # never removed for you
        note(
            f"{aside} holds old results of {out} that a run moved aside before it died; "
            "move them back or delete them"
        )
    found = [WorkFolder(p) for p in output.work_folders(out)]
    ours = next((w for w in found if (w.info() or {}).get("run_id") == rid), None)
    if resume and ours is not None:
        others = [w for w in found if w is not ours]
    else:
        ours, others = None, found
    # a dead run's work folder of this mexsim that played no block: nothing to resume
    # or lose, taken over whatever the flags; any other is refused before anything goes
    empty = [w for w in others if w.info() and not w.done()]
    others = [w for w in others if w not in empty]
    if resume and ours is None:
        other = next((w for w in others if w.info()), None)
        if other is not None and not force:
            theirs = other.info() or {}
            raise ConfigError(
                f"{out}: cannot resume: the interrupted run in {other.path} had another "
                f"config ({differences(theirs['identity'], identity)}); run it with "
                "that config, or add --force to discard it and start afresh"
            )
        note(f"nothing to resume for {out}: starting afresh")
    if others and not force:
        stale = others[0]
        what = (
            "of this config: add --resume to continue it"
            if (stale.info() or {}).get("run_id") == rid
            else "of another config or mexsim version"
        )
        raise ConfigError(
            f"{out}: a run that died left {len(stale.done()):,} played blocks in "
            f"{stale.path} ({what}, or --force to discard it)"
        )
    for stale in empty:
        stale.remove()
        note(f"removed {stale.path}, left by a run that died before it played a block")
    for stale in others:
        blocks_kept = len(stale.done())
        stale.remove()
        note(f"removed {stale.path}, left by a run that died ({blocks_kept:,} blocks)")
    return ours


def _work_folder(
    out: Path, stale: WorkFolder | None, rid: str, identity: dict[str, Any]
) -> WorkFolder:
    path = output.parent_of(out) / f".{out.name}{output.WORK_SUFFIX}{os.getpid()}"
    if stale is None:
        return WorkFolder.create(path, rid, identity)
    if stale.path != path:
        os.rename(stale.path, path)
    return WorkFolder(path)


def _listed(names: list[str], most: int = 3) -> str:
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most:,} more"


def _kept_message(what: str, work: WorkFolder | None) -> str:
    """What an interrupted or failed run left: nothing, or its finished blocks."""
    if work is None:
        return f"{what}: no results written"
    try:
        kept = len(work.seal())
    except OSError:  # not counted: kept all the same, never removed unseen
        return (
            f"{what}: finished blocks kept in {work.path}; rerun the same command "
            "with --resume to continue"
        )
    if kept == 0:
        work.remove()
        return f"{what}: no results written"
    return (
        f"{what}: {kept:,} finished blocks kept in {work.path}; rerun the same command "
        "with --resume to continue"
    )
