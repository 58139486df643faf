"""A shared location (``mexsim run --out URL``): its layout, its parts, its commit.

With a large cluster one client cannot receive, convert and compress every block
(docs/speed-history.md: the writer's ceiling), so when ``out`` is an fsspec URL
(``file:///…``, ``s3://…``, ``gs://…``; fsspec comes with ``mexsim[dask]``) whoever
plays a block — a Dask worker or, without ``--cluster``, a thread of this process —
also converts it and writes it to the location itself, and returns only its match
totals (a few numbers per match) for the statistics the client gathers. A
luck-adjusted run (``[analysis] luck = true``) ships the client's value model with
every block: the parts carry the luck columns and the totals come back with their
luck-adjusted twins, as a folder run's blocks do (mexsim/store/parts.py). Layout::

    URL/work.json                       run id and identity: a run in progress
    URL/rounds/00000000.parquet …       one file per block, one row group each
    URL/matches/00000000.parquet …
    URL/run.json, summary.csv, comparisons.csv, head_to_head.csv [, sweeps.csv]
    URL/manifest.json                   written last: the commit

A part is written under a temporary name and moved into place, so it is complete or
absent (a move on an object store is a copy of a whole object); the rounds part before
the matches part, so a block counts as done once its matches part exists. A block
written twice (a worker died after writing it, the scheduler ran it again) is the same
bytes written again. The parts hold the rows and row groups of a local run's
``rounds.parquet`` and ``matches.parquet`` (the same blocks, at the same match
boundaries, with the run id in their schema metadata). ``manifest.json`` lists them
in match order; until it exists the location holds no results, only a run that
``--resume`` continues. Results already committed at a URL are never replaced: there is
no atomic swap on an object store, and a user's results are precious.
"""

from __future__ import annotations

import contextlib
import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from mexsim.analysis.designer import MatchFacts
from mexsim.errors import ConfigError
from mexsim.store.parts import block_facts, block_statistics, check_stamp, parquet_options
from mexsim.store.results_folder import fsync_file

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "mexsim parts"
WORK_FILE = "work.json"
KINDS = ("rounds", "matches")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(out: str | Path) -> bool:
    """Whether ``out`` names a shared location (``scheme://…``) rather than a folder."""
    return isinstance(out, str) and bool(_URL.match(out))


def part_name(kind: str, index: int) -> str:
    return f"{kind}/{index:08d}.parquet"


def open_location(url: str) -> tuple[Any, str]:
    """(fsspec file system, root path) of ``url``; ConfigError when it cannot be used."""
    try:
        import fsspec
    except ImportError:
        raise ConfigError(f"--out {url}: a URL needs fsspec: pip install 'mexsim[dask]'") from None
    if url.lower().startswith("memory://"):
        raise ConfigError(
            f"--out {url}: memory:// lives inside one process and vanishes "
            f"when it ends: give a folder or a shared location's URL"
        )
    try:
        fs, root = fsspec.core.url_to_fs(url)
    except Exception as exc:
        # any file system plug-in's own failure (a missing package, an unknown host,
        # refused credentials) is the URL's fault
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise ConfigError(f"--out {url}: cannot open it: {reason}") from None
    return fs, root.rstrip("/")


def write_part(fs: Any, root: str, kind: str, index: int, table: pa.Table) -> None:
    """One block's part, complete or absent (temporary name, then moved into place)."""
    final = f"{root}/{part_name(kind, index)}"
    tmp = _temporary(final)
    with fs.open(tmp, "wb") as handle:
        pq.write_table(
            table, handle, **parquet_options(table.schema), row_group_size=max(1, table.num_rows)
        )
    _sync(fs, tmp)
    fs.mv(tmp, final)


def is_local(fs: Any) -> bool:
    """Whether ``fs`` is this machine's file system (file://)."""
    protocols = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    return "file" in protocols


def _sync(fs: Any, path: str) -> None:
    """On a local file system, the file's bytes on disk before it is moved into place
    (as the local parts are: a power cut leaves a block complete or absent); an object
    store's put is durable when it returns."""
    if is_local(fs):
        fsync_file(Path(path))


def _temporary(path: str) -> str:
    """A unique name beside ``path`` that readers of the folder skip: pyarrow and
    pandas ignore names that start with a dot, and it does not end in ``.parquet``."""
    folder, _, name = path.rpartition("/")
    return f"{folder}/.{name}.tmp-{uuid.uuid4().hex}"


class Location:
    """The shared location of one run: its state, its parts, its commit."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.fs, self.root = open_location(url)

    def path(self, name: str) -> str:
        return f"{self.root}/{name}"

    def read_json(self, name: str) -> dict | None:
        try:
            with self.fs.open(self.path(name), "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write_bytes(self, name: str, data: bytes) -> None:
        tmp = _temporary(self.path(name))
        self.fs.pipe_file(tmp, data)
        _sync(self.fs, tmp)
        self.fs.mv(tmp, self.path(name))

    def names(self, folder: str) -> list[str]:
        try:
            return [Path(p).name for p in self.fs.ls(self.path(folder), detail=False)]
        except FileNotFoundError:
            return []

    def done(self) -> set[int]:
        """The blocks with both parts in place (written in parallel: not always the
        first ones)."""
        have = [{name for name in self.names(kind) if not name.startswith(".")} for kind in KINDS]
        both = set.intersection(*have)
        return {int(name.split(".")[0]) for name in both if name.endswith(".parquet")}

    def prepare(
        self,
        run_id: str,
        identity: dict,
        resume: bool,
        force: bool,
        note: Callable[[str], None],
        alone: bool = False,
    ) -> set[int]:
        """Check what is at the location and make it ours; the blocks kept (resume).
        ``alone``: this run holds the location's lock, so a work file there is a dead
        run's (an object store has no lock: it may be a run still starting)."""
        if self.read_json(MANIFEST) is not None or self.fs.exists(self.path(MANIFEST)):
            raise ConfigError(
                f"{self.url}: holds committed results ({MANIFEST}); mexsim never replaces "
                "results on a shared location: delete them yourself or choose another --out"
            )
        work = self.read_json(WORK_FILE)
        present = self.fs.exists(self.root) and bool(self.fs.ls(self.root, detail=False))
        if present and work is None:
            raise ConfigError(
                f"{self.url}: exists and was not written by mexsim (no "
                f"{WORK_FILE} or {MANIFEST}): choose another --out"
            )
        if work is not None:
            done = self.done()
            kept = len(done)
            if work.get("run_id") == run_id and resume:
                note(f"resuming {self.url}: {kept:,} blocks already played")
                return done
            if kept == 0 and alone:  # a dead run's, with nothing to resume or lose
                note(f"{self.url}: the run that died there had played no block: starting afresh")
            elif not force:
                what = (
                    "of this config: add --resume to continue it"
                    if work.get("run_id") == run_id
                    else "of another config or mexsim version"
                )
                raise ConfigError(
                    f"{self.url}: a run that died left {kept:,} played blocks "
                    f"there ({what}, or --force to discard them)"
                )
            else:
                self.fs.rm(self.root, recursive=True)
                note(f"removed the {kept:,} blocks a run that died left at {self.url}")
        elif resume:
            note(f"nothing to resume at {self.url}: starting afresh")
        for kind in KINDS:
            self.fs.makedirs(self.path(kind), exist_ok=True)
        self.write_bytes(
            WORK_FILE, json.dumps({"run_id": run_id, "identity": identity}, indent=1).encode()
        )
        return set()

    def kept_totals(
        self, index: int, run_id: str, names: list[str], players: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, MatchFacts | None]:
        """What the statistics fold of a kept block (its luck and designer facts too),
        from its parts."""
        tables = {}
        for kind in KINDS:  # each checked as a folder run's parts are (store/parts.py)
            name = part_name(kind, index)
            with self.fs.open(self.path(name), "rb") as handle:
                tables[kind] = pq.read_table(handle, page_checksum_verification=True)
            check_stamp(
                tables[kind],
                f"{self.url}/{name}",
                run_id,
                index,
                "move it away, or rerun without --resume and with --force",
            )
        return (
            *block_statistics(tables["matches"], names, players),
            block_facts(tables["rounds"]),
        )

    def commit(self, blocks_in: int, run_id: str, matches: int, tables: Path) -> None:
        """Remove what is not the run's (parts beyond a stop, temporary files), copy
        the tables up, then write the manifest."""
        files = {kind: [part_name(kind, i) for i in range(blocks_in)] for kind in KINDS}
        for kind in KINDS:
            keep = {Path(f).name for f in files[kind]}
            for name in self.names(kind):
                if name not in keep:
                    self.fs.rm(self.path(f"{kind}/{name}"))
        for path in sorted(tables.iterdir()):
            self.write_bytes(path.name, path.read_bytes())
        self.write_bytes(
            MANIFEST,
            (
                json.dumps(
                    {
                        "format": MANIFEST_FORMAT,
                        "run_id": run_id,
                        "matches": matches,
                        "files": files,
                    },
                    indent=1,
                )
                + "\n"
            ).encode(),
        )
        with contextlib.suppress(FileNotFoundError):
            self.fs.rm(self.path(WORK_FILE))
