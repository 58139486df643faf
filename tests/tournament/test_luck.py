"""`[analysis] luck = true` / `mexsim run --luck` (docs/luck.md): the luck columns, the
same bytes on any worker count, luck of mean zero, identical strategies centred on
zero, a planted skill difference recovered, `--until decided` on the adjusted
differences, `mexsim report` agreeing, a shared `--out URL` (threads, resumed, a
local cluster) writing the folder run's parts and tables, bad values refused in one
line, and a run without it unchanged."""

from __future__ import annotations

import filecmp
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from mexsim.analysis.accumulate import RunAccumulator
from mexsim.analysis.comparison import analyze_directory
from mexsim.analysis.sequential import verdict
from mexsim.analysis.summary import LUCK_COLUMNS
from mexsim.running.run_record import TIMING_FIELDS
from mexsim.tournament.luck import solve
from tests.tournament.runs import config_text, write_config
from tests.tournament.test_run import assert_ok, invoke_run

LUCK = "[analysis]\nluck = true\n"
TWO = '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'
TWINS = "".join('[[players]]\nstrategy = "greedy"\n' for _ in range(4))


def luck_run(
    folder: Path,
    name: str,
    *args: str,
    matches: int = 256,
    players: str | None = None,
    extra: str = LUCK,
    rotate: bool = True,
) -> Path:
    out = folder / name
    cfg = write_config(
        folder,
        config_text(out, matches=matches, players=players, rotate=rotate) + extra,
        f"{name}.toml",
    )
    assert_ok(invoke_run(cfg, "--quiet", *args))
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("luck")
    return (luck_run(base, "w2", "--workers", "2"), luck_run(base, "w1", "--workers", "1"))


def without_timing(path: Path) -> dict:
    data = json.loads(path.read_text())
    del data["config"]["run"]["out"]  # each run its own folder
    return {k: v for k, v in data.items() if k not in TIMING_FIELDS}


@pytest.mark.slow
def test_luck_runs_are_the_same_bytes_on_any_worker_count(runs: tuple[Path, Path]) -> None:
    two, one = runs
    for name in ("rounds.parquet", "matches.parquet", "summary.csv", "head_to_head.csv"):
        assert filecmp.cmp(two / name, one / name, shallow=False), name
    assert without_timing(two / "run.json") == without_timing(one / "run.json")


def test_the_luck_columns_and_the_model(runs: tuple[Path, Path]) -> None:
    folder = runs[0]
    rounds = pd.read_parquet(folder / "rounds.parquet")
    matches = pd.read_parquet(folder / "matches.parquet")
    assert {"deal_luck", "draw_luck"} <= set(rounds.columns)
    per_match = (
        rounds.assign(luck=rounds["deal_luck"] + rounds["draw_luck"])
        .groupby(["match", "seat"])["luck"]
        .sum()
    )
    assert np.allclose(
        matches.set_index(["match", "seat"])["luck"].sort_index(), per_match.sort_index()
    )
    summary = pd.read_csv(folder / "summary.csv")
    assert list(summary.columns[-4:]) == LUCK_COLUMNS
    adjusted = (matches["total"] - matches["luck"]).groupby(matches["player"]).mean()
    assert np.allclose(
        summary.set_index("player")["luck_adjusted_total"], adjusted.reindex(summary["player"])
    )
    run = json.loads((folder / "run.json").read_text())
    assert run["config"]["analysis"] == {"luck": True}
    model = run["luck"]
    assert model["pilot_matches"] == 512 and model["pilot_rows"] > 100_000
    assert 0 < model["r2"] < 1 and len(model["weights"]) == 10


def test_luck_has_mean_zero_in_a_run(runs: tuple[Path, Path]) -> None:
    matches = pd.read_parquet(runs[0] / "matches.parquet")
    for _, luck in matches.groupby("player")["luck"]:
        assert abs(luck.mean()) < 5 * luck.std(ddof=1) / np.sqrt(len(luck))


def test_report_gives_the_luck_columns_of_the_run(runs: tuple[Path, Path]) -> None:
    analysis, _ = analyze_directory(runs[0])
    written = pd.read_csv(runs[0] / "summary.csv")
    for column in LUCK_COLUMNS:
        assert np.allclose(analysis.summary[column], written[column], atol=1e-9), column
    assert "luck-adj." in analysis.format()
    from mexsim.cli import app
    from tests.tournament.runs import cli_runner

    printed = cli_runner.invoke(app, ["report", str(runs[0])])
    assert printed.exit_code == 0, printed.stderr
    assert analysis.format() in printed.stdout


def test_identical_strategies_have_adjusted_differences_centred_on_zero(tmp_path: Path) -> None:
    folder = luck_run(tmp_path, "twins", matches=400, players=TWINS)
    luck = analyze_directory(folder)[1].run.luck_adjusted
    assert luck is not None
    for a in range(4):
        for b in range(a + 1, 4):
            se = np.sqrt(luck.pairs.var[a, b] / luck.pairs.n[a, b])
            assert abs(luck.pairs.mean[a, b]) < 5 * se


def test_a_planted_skill_difference_is_recovered(tmp_path: Path) -> None:
    folder = luck_run(tmp_path, "skill", matches=300, players=TWO)
    row = pd.read_csv(folder / "summary.csv").set_index("player").loc["random"]
    assert row["luck_adjusted_diff_vs_best_lo"] > 0  # random is worse, and seen so
    # raw and adjusted estimate one difference: their intervals overlap
    assert row["luck_adjusted_diff_vs_best_lo"] < row["diff_vs_best_hi"]
    assert row["diff_vs_best_lo"] < row["luck_adjusted_diff_vs_best_hi"]


def test_the_flag_is_the_config_key(tmp_path: Path) -> None:
    flagged = luck_run(tmp_path, "flag", "--luck", matches=64, players=TWO, extra="")
    keyed = luck_run(tmp_path, "key", matches=64, players=TWO)
    for name in ("rounds.parquet", "matches.parquet", "summary.csv"):
        assert filecmp.cmp(flagged / name, keyed / name, shallow=False), name


def test_without_luck_nothing_changes(tmp_path: Path) -> None:
    off = luck_run(tmp_path, "off", matches=64, players=TWO, extra="[analysis]\nluck = false\n")
    plain = luck_run(tmp_path, "plain", matches=64, players=TWO, extra="")
    for name in ("rounds.parquet", "matches.parquet", "summary.csv"):
        assert filecmp.cmp(off / name, plain / name, shallow=False), name
    assert without_timing(off / "run.json") == without_timing(plain / "run.json")
    run = json.loads((plain / "run.json").read_text())
    assert "luck" not in run and "analysis" not in run["config"]
    assert "luck" not in pd.read_parquet(plain / "matches.parquet").columns


def test_until_decided_uses_the_luck_adjusted_differences(tmp_path: Path) -> None:
    folder = luck_run(
        tmp_path, "until", "--until", "decided", "--margin", "0.5", matches=20_000, players=TWO
    )
    run = json.loads((folder / "run.json").read_text())
    assert run["until"]["decided"] and run["matches"] < 20_000
    # the verdict at the stop: over every deal played (one match each here)
    deals = int(run["until"]["verdict"].split(" deals")[0].split()[-1].replace(",", ""))
    assert deals == run["matches"]
    matches = pd.read_parquet(folder / "matches.parquet").sort_values(["match", "player"])
    totals = matches.pivot(index="match", columns="player", values="total")
    luck = matches.pivot(index="match", columns="player", values="luck")
    names = list(totals.columns)
    assert names == ["greedy", "random"]
    acc = RunAccumulator(2, luck=True)
    ids = np.arange(deals)
    acc.add(totals.to_numpy(float)[:deals], ids, (totals - luck).to_numpy(float)[:deals])
    adjusted = acc.close()
    assert verdict(adjusted, names, 0.95, 0.5).describe() == run["until"]["verdict"]
    # said so: its best can differ from the table's star, which ranks by mean totals
    assert "(on the luck-adjusted totals, the table's luck-adj. column; " in run["until"]["verdict"]
    raw = RunAccumulator(2)
    raw.add(totals.to_numpy(float)[:deals], ids)
    assert verdict(raw.close(), names, 0.95, 0.5).describe() != run["until"]["verdict"]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ('[analysis]\nluck = "yes"\n', "'luck'"),
        ("[analysis]\nluk = true\n", "'luk'"),
        ("[analysis]\nluck = 1\n", "'luck'"),
    ],
)
def test_a_bad_luck_value_is_one_line(tmp_path: Path, extra: str, words: str) -> None:
    cfg = write_config(tmp_path, config_text(tmp_path / "r", matches=10, players=TWO) + extra)
    result = invoke_run(cfg, "--quiet")
    assert result.exit_code == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "[analysis]" in lines[0] and words in lines[0], lines
    assert not (tmp_path / "r").exists()


URL_MATCHES, URL_BLOCKS = 320, 5  # blocks of 64 matches


@pytest.fixture(scope="module")
def folder_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A luck run into a results folder, to compare the shared location's runs with."""
    return luck_run(
        tmp_path_factory.mktemp("luck-url"),
        "folder",
        "--workers",
        "1",
        matches=URL_MATCHES,
        players=TWO,
    )


def url_run(folder: Path, out: Path, *args: str) -> Path:
    """The folder run's config run to ``out``'s ``file://`` URL with ``args``. On a
    loaded machine a local cluster's connection can drop mid-run: the run then stops,
    exit 4, keeping its parts and saying to rerun with --resume, which is what a user
    does; the parts must then be the folder run's all the same."""
    pytest.importorskip("fsspec")
    config = folder.parent / "folder.toml"
    result = invoke_run(config, "--quiet", "--out", out.as_uri(), *args)
    if result.exit_code == 4 and "--resume to continue" in result.stderr:
        result = invoke_run(config, "--quiet", "--out", out.as_uri(), *args, "--resume")
    assert_ok(result)
    return out


def same_as_the_folder_run(folder: Path, out: Path) -> None:
    """The parts hold the folder run's rows and row groups, luck columns included; the
    tables written at the location and the ones `mexsim report` computes from the parts
    are the folder run's; run.json records the same model."""
    from tests.tournament.test_shared_location import same_content

    same_content(folder, out, URL_BLOCKS)  # rows, row groups, summary.csv bytes
    rounds = pq.read_schema(next((out / "rounds").glob("*.parquet")))
    matches = pq.read_schema(next((out / "matches").glob("*.parquet")))
    assert {"deal_luck", "draw_luck"} <= set(rounds.names) and "luck" in matches.names
    assert without_timing(out / "run.json") == without_timing(folder / "run.json")
    assert "luck" in json.loads((out / "run.json").read_text())
    reported, _ = analyze_directory(out)  # the committed parts, as `mexsim report` reads
    assert set(LUCK_COLUMNS) <= set(reported.summary.columns)
    for name, analysis in (
        ("reported", reported),
        ("reported-folder", analyze_directory(folder)[0]),
    ):
        (out.parent / name).mkdir()
        analysis.write(out.parent / name)
    assert (out.parent / "reported" / "summary.csv").read_bytes() == (
        out.parent / "reported-folder" / "summary.csv"
    ).read_bytes()
    written = pd.read_csv(folder / "summary.csv")
    for column in LUCK_COLUMNS:
        assert np.allclose(reported.summary[column], written[column], atol=1e-9), column


def test_a_luck_run_at_a_url_writes_the_folder_runs_parts_and_tables(
    folder_run: Path, tmp_path: Path
) -> None:
    out = url_run(folder_run, tmp_path / "shared", "--workers", "2")
    same_as_the_folder_run(folder_run, out)


def test_a_resumed_luck_run_at_a_url_reads_the_kept_parts_luck(
    folder_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks kept at the location are folded with their luck (read from their
    matches parts): the resumed run's tables are the folder run's."""
    pytest.importorskip("fsspec")
    from mexsim.errors import Interrupted
    from mexsim.running import runner
    from mexsim.store import location
    from mexsim.store.location_sink import LocationSink
    from mexsim.tournament.config import load_config, with_overrides
    from tests.tournament.runs import ctrl_c

    out = tmp_path / "shared"
    original = LocationSink.write_block

    def ctrl_c_after_block_three(*args: object) -> object:
        result = original(*args)
        if args[1] == 3:  # (sink, index, rounds, matches)
            ctrl_c()
        return result

    monkeypatch.setattr(LocationSink, "write_block", ctrl_c_after_block_three)
    config = with_overrides(load_config(folder_run.parent / "folder.toml"), out=out.as_uri())
    with pytest.raises(Interrupted):
        runner.run(config, out.as_uri(), runner.RunOptions())
    monkeypatch.setattr(LocationSink, "write_block", original)
    assert not (out / location.MANIFEST).exists() and len(list(out.glob("matches/*"))) >= 3
    url_run(folder_run, out, "--workers", "1", "--resume")
    assert json.loads((out / "run.json").read_text())["resumed_blocks"] >= 3
    same_as_the_folder_run(folder_run, out)


@pytest.mark.slow
@pytest.mark.processes
def test_a_cluster_luck_run_at_a_url_writes_the_folder_runs_parts(
    folder_run: Path, tmp_path: Path
) -> None:
    """The workers score the luck with the client's model and write the parts."""
    pytest.importorskip("distributed")
    out = url_run(folder_run, tmp_path / "shared", "--cluster", "local:2")
    same_as_the_folder_run(folder_run, out)


@pytest.mark.processes
def test_a_cluster_luck_run_writes_the_bytes_of_a_threaded_one(tmp_path: Path) -> None:
    """The model is fitted once by the client and shipped with every block."""
    pytest.importorskip("distributed")
    threads = luck_run(tmp_path, "threads", "--workers", "1", matches=192, players=TWO)
    dask = luck_run(tmp_path, "dask", "--cluster", "local:1", matches=192, players=TWO)
    for name in ("rounds.parquet", "matches.parquet", "summary.csv"):
        assert filecmp.cmp(threads / name, dask / name, shallow=False), name


def test_the_model_is_the_least_squares_fit() -> None:
    """solve() on exact sums of a known linear relation gives its weights back."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 20, size=(5000, 10))
    x[:, 9] = 0  # a feature that never varies gets weight 0
    y = 7 + x @ np.array([2, -1, 0, 3, 1, 0, -2, 0, 1, 0])
    v = np.column_stack([np.ones(len(x), dtype=np.int64), x, y])
    model = solve(v.T @ v)
    assert np.allclose(model.weights, [2, -1, 0, 3, 1, 0, -2, 0, 1, 0], atol=1e-3)
    assert abs(model.intercept - 7) < 0.05 and model.r2 > 0.999999


def test_a_resumed_luck_run_is_the_uninterrupted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks kept by a killed run are read back with their luck (the adjusted totals
    come from the parts): --resume gives the files of a run never stopped."""
    import os
    import signal
    import time

    from mexsim.errors import Interrupted
    from mexsim.running import preparation, runner
    from mexsim.tournament.config import load_config, with_overrides

    whole = luck_run(tmp_path, "whole", "--workers", "1", matches=320, players=TWO)
    cfg = tmp_path / "whole.toml"
    original = preparation.play_luck_block

    def ctrl_c_at_block_three(
        config: object, players: object, first: int, n: int, model: object
    ) -> object:
        if first == 3 * 64:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)  # the main thread stops meanwhile
            raise RuntimeError("stopped")  # this block is never written
        return original(config, players, first, n, model)

    monkeypatch.setattr(preparation, "play_luck_block", ctrl_c_at_block_three)
    out = tmp_path / "res"
    with pytest.raises(Interrupted):
        runner.run(with_overrides(load_config(cfg), out=str(out)), out, runner.RunOptions())
    monkeypatch.setattr(preparation, "play_luck_block", original)
    result = invoke_run(cfg, "--out", str(out), "--workers", "1", "--quiet", "--resume")
    assert_ok(result)
    assert "already played" in result.stderr
    for name in ("rounds.parquet", "matches.parquet", "summary.csv"):
        assert filecmp.cmp(whole / name, out / name, shallow=False), name
