"""Checks that a results directory's files are mexsim results of one and the same run.

A results directory comes in two forms: the single files ``matches.parquet`` and
``rounds.parquet`` (``mexsim run --out DIR``), or parts — ``matches/NNNNNNNN.parquet``,
``rounds/NNNNNNNN.parquet``, one block each, listed in match order by ``manifest.json``
(``mexsim run --out file:///DIR``, mexsim/store/location_sink.py). :func:`results_files`
finds which, and the files to read in match order; a run in progress (``work.json``, no
manifest) or a manifest listing a missing part is refused.

``mexsim run`` stores its run id (mexsim/tournament/identity.py) in the key-value
metadata of every Parquet file, in run.json and (parts) in the manifest.
``check_results`` refuses a directory whose files name different runs (a
``matches.parquet`` copied from another run), or a Parquet file without the columns its
name promises (the two files swapped, another program's file). Results written before
run ids existed carry none and are checked by their columns only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from mexsim.errors import ConfigError
from mexsim.tournament.identity import RUN_ID_KEY

REQUIRED = {
    "matches": ("match", "seat", "player", "strategy", "total", "rank", "win"),
    "rounds": (
        "match",
        "round",
        "engine",
        "seat",
        "player",
        "strategy",
        "penalty",
        "tiles_left",
        "went_out",
        "blocked",
        "tiles_played",
        "draws",
    ),
}
MANIFEST = "manifest.json"  # as mexsim/store/location.py writes them
WORK_FILE = "work.json"
MANIFEST_FORMAT = "mexsim parts"
_PART = re.compile(r"^(rounds|matches)/[0-9]{8}\.parquet$")


@dataclass(frozen=True)
class ResultsFiles:
    """The Parquet files of a results directory, each kind in match order."""

    directory: Path
    parts: bool  # the parts form (manifest.json), else the single files
    files: dict[str, list[Path]]  # "matches" / "rounds" -> paths
    run_id: str | None = None  # the manifest's (parts form)


def local_folder(argument: str) -> Path:
    """The folder ``mexsim report`` reads: a path, or a ``file://`` URL (read as
    ``mexsim run --out`` writes it: what follows ``file://`` is the path). Other URLs
    are refused in one line saying what to do."""
    scheme, sep, rest = argument.partition("://")
    if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        return Path(argument)
    if scheme.lower() == "file" and rest:
        return Path(rest)
    raise ConfigError(
        f"{argument}: report reads a local folder: copy the results there "
        f"first (everything under the URL: manifest.json, run.json, rounds/, "
        f"matches/), then give the folder's path or file:// URL"
    )


def results_files(directory: Path) -> ResultsFiles:
    """The files of ``directory``'s results in either form; ConfigError (one line) when
    it holds none, a run in progress, or a manifest that does not match its parts."""
    manifest_path = directory / MANIFEST
    if not manifest_path.exists():
        if (directory / WORK_FILE).exists():
            raise ConfigError(
                f"{directory}: a run in progress or one that died ({WORK_FILE}, no "
                f"{MANIFEST}): no results yet; finish it with the same `mexsim run` "
                "command plus --resume"
            )
        for kind in REQUIRED:
            if not (directory / f"{kind}.parquet").exists():
                raise ConfigError(
                    f"{directory}: not a results directory (no {kind}.parquet, nor {MANIFEST})"
                )
        return ResultsFiles(
            directory, False, {kind: [directory / f"{kind}.parquet"] for kind in REQUIRED}
        )
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{manifest_path}: cannot be read ({_first_line(exc)})") from None
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    if (
        not isinstance(manifest, dict)
        or manifest.get("format") != MANIFEST_FORMAT
        or not isinstance(listed, dict)
        or not all(isinstance(listed.get(kind), list) for kind in REQUIRED)
    ):
        raise ConfigError(
            f"{manifest_path}: not mexsim's manifest (format "
            f"{MANIFEST_FORMAT!r} with files.rounds and files.matches)"
        )
    files: dict[str, list[Path]] = {}
    for kind in REQUIRED:
        names = listed[kind]
        bad = [
            n
            for n in names
            if not isinstance(n, str) or not _PART.match(n) or not n.startswith(f"{kind}/")
        ]
        if bad or not names:
            what = f"lists {bad[0]!r} under {kind}" if bad else f"lists no {kind} parts"
            raise ConfigError(f"{manifest_path}: {what}; expected {kind}/NNNNNNNN.parquet")
        files[kind] = [directory / n for n in names]
    if len(files["matches"]) != len(files["rounds"]):
        raise ConfigError(
            f"{manifest_path}: lists {len(files['matches']):,} matches parts "
            f"but {len(files['rounds']):,} rounds parts"
        )
    missing = [p for kind in REQUIRED for p in files[kind] if not p.is_file()]
    if missing:
        raise ConfigError(
            f"{directory}: {len(missing):,} part{'s' if len(missing) > 1 else ''} listed in "
            f"{MANIFEST} missing (first: {missing[0].relative_to(directory)}); copy every "
            "listed part into the folder"
        )
    rid = manifest.get("run_id")
    return ResultsFiles(directory, True, files, rid if isinstance(rid, str) else None)


def check_results(directory: Path) -> ResultsFiles:
    """Raise ConfigError (one line) unless ``directory`` holds the results of one run;
    returns its files."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    found = results_files(directory)
    ids: dict[str, str | None] = {}
    for kind, columns in REQUIRED.items():
        for path in found.files[kind]:
            if not path.is_file():  # a FIFO or a device would block the reading, or never end
                raise ConfigError(f"{path}: not a regular file, so not mexsim's {kind} table")
            try:
                schema = pq.read_schema(path)
            except (OSError, pa.ArrowException) as exc:
                raise ConfigError(
                    f"{path}: cannot be read as Parquet ({_first_line(exc)})"
                ) from None
            missing = [c for c in columns if c not in schema.names]
            if missing:
                raise ConfigError(
                    f"{path}: not mexsim's {kind} table (missing columns: {', '.join(missing)})"
                )
            raw = (schema.metadata or {}).get(RUN_ID_KEY)
            ids[str(path.relative_to(directory))] = raw.decode(errors="replace") if raw else None
    if found.parts:
        ids[MANIFEST] = found.run_id
    ids["run.json"] = _recorded_run_id(directory / "run.json")
    if any(ids.values()) and len(set(ids.values())) > 1:
        shown = ", ".join(
            f"{name} {rid[:12] if rid else 'none'}" for name, rid in _differing(ids).items()
        )
        raise ConfigError(
            f"{directory}: files of different runs (run ids: {shown}); "
            "keep each run's files together in its own folder"
        )
    return found


def _recorded_run_id(run_json: Path) -> str | None:
    """The run id run.json records (None: a run of mexsim before run ids). A missing or
    damaged run.json was reported as "files of different runs"."""
    if run_json.exists() and not run_json.is_file():  # a FIFO would block the reading
        raise ConfigError(f"{run_json}: not a regular file, so not the run.json mexsim wrote")
    try:
        record = json.loads(run_json.read_bytes())
    except FileNotFoundError:
        raise ConfigError(
            f"{run_json}: missing; a results folder keeps the run.json its run wrote "
            "(put it back, or run the config again)"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{run_json}: cannot be read ({exc.strerror or exc})") from None
    except ValueError:
        raise ConfigError(
            f"{run_json}: damaged (not the JSON mexsim wrote: truncated or edited); "
            "run the config again"
        ) from None
    recorded = record.get("run_id") if isinstance(record, dict) else None
    return recorded if isinstance(recorded, str) else None


def _differing(ids: dict[str, str | None]) -> dict[str, str | None]:
    """The files to name when run ids differ: all of them for the single files; for
    parts, the first of each id (hundreds of parts would not fit one line)."""
    if len(ids) <= 3:
        return ids
    first: dict[str | None, str] = {}
    for name, rid in ids.items():
        first.setdefault(rid, name)
    return {name: rid for rid, name in first.items()}


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
