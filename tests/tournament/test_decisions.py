"""decisions.parquet (`mexsim run --decisions`, ``[run] decisions``): a row for each legal
move of each recorded decision, byte-identical for any worker count, the run's own
results unchanged, and features that are weights' own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from mexsim.strategy.builtin.weights import PARAMS as WEIGHTS_PARAMS
from tests.tournament.runs import config_text, one_line_error, run_cli, write_config

PLAYERS = (
    '[[players]]\nstrategy = "weights"\n'
    '[[players]]\nstrategy = "longest_train"\n'
    '[[players]]\nstrategy = "greedy"\n'
)
FEATURES = list(WEIGHTS_PARAMS)


def config(tmp_path: Path, decisions: str = "", matches: int = 150) -> Path:
    text = config_text(tmp_path / "out", matches=matches, players=PLAYERS)
    if decisions:
        text = text.replace("[run]\n", f"[run]\ndecisions = {decisions}\n", 1)
    return write_config(tmp_path, text)


def read(folder: Path) -> pd.DataFrame:
    return pq.read_table(folder / "decisions.parquet").to_pandas()


def test_the_file_is_the_same_for_any_worker_count_and_the_results_are_the_runs(
    tmp_path: Path,
):
    cfg = config(tmp_path)
    outs = {}
    for name, extra in (("plain", []), ("w1", ["--decisions", "--workers", "1"])):
        outs[name] = tmp_path / name
        assert run_cli(cfg, "--out", outs[name], "--quiet", *extra).exit_code == 0
    w2 = tmp_path / "w2"
    assert run_cli(cfg, "--out", w2, "--quiet", "--decisions", "--workers", "2").exit_code == 0
    one = (outs["w1"] / "decisions.parquet").read_bytes()
    assert one == (w2 / "decisions.parquet").read_bytes()
    for name in ("rounds.parquet", "matches.parquet"):  # (the run id in them differs)
        plain, deciding = (pq.read_table(outs[k] / name) for k in ("plain", "w1"))
        assert plain.equals(deciding), name
    plain_summary = (outs["plain"] / "summary.csv").read_bytes()
    assert plain_summary == (outs["w1"] / "summary.csv").read_bytes()
    assert not (outs["plain"] / "decisions.parquet").exists()


def test_each_decision_has_one_chosen_move_and_the_rounds_penalty(tmp_path: Path):
    cfg = config(tmp_path, "true")
    out = tmp_path / "out"
    assert run_cli(cfg, "--quiet").exit_code == 0
    rows = read(out)
    assert set(rows["player"].astype(str)) == {"weights", "longest_train", "greedy"}
    per = rows.groupby(["match", "decision"])
    assert (per["chosen"].sum() == 1).all()
    assert (per.size() == per["n_moves"].first()).all()
    assert (per["n_moves"].first() >= 2).all()  # a forced move is no decision
    assert (rows["move"] < rows["n_moves"]).all()
    rounds = pd.read_parquet(out / "rounds.parquet")
    penalty = rounds.set_index(["match", "round", "seat"])["penalty"]
    keys = pd.MultiIndex.from_frame(rows[["match", "round", "seat"]].astype("int64"))
    assert (penalty.reindex(keys).to_numpy() == rows["round_penalty"].to_numpy()).all()
    kinds = rows["train_kind"].astype(str)
    assert ((kinds == "own") == (rows["train"] == rows["seat"])).all()
    assert ((kinds == "mexican") == (rows["train"] == 3)).all()
    assert rows[FEATURES].notna().all().all()


def test_the_features_give_weights_its_own_choices(tmp_path: Path):
    """weights chooses the highest dot product of these features with its parameters
    (ties: the heavier tile): recomputed from the rows, every one of its choices."""
    cfg = config(tmp_path, '["weights"]')
    assert run_cli(cfg, "--quiet").exit_code == 0
    rows = read(tmp_path / "out")
    assert set(rows["player"].astype(str)) == {"weights"}
    w = np.array([WEIGHTS_PARAMS[f][0] for f in FEATURES])
    f = rows[FEATURES].to_numpy(dtype=np.float64)
    score = f[:, 0] * w[0] - 1e-6 * rows["tile"].to_numpy()
    for k in range(1, len(FEATURES)):
        score += f[:, k] * w[k]
    rows["score"] = score
    best = rows.loc[rows.groupby(["match", "decision"])["score"].idxmax()]
    assert best["chosen"].all(), best.loc[~best["chosen"], ["match", "decision"]].head()
    assert len(best) > 500


@pytest.mark.parametrize(
    ("decisions", "says"),
    [
        ('["wieghts"]', "'decisions' names 'wieghts', not a player"),
        ("3", "'decisions' must be true, false or a list"),
    ],
)
def test_a_bad_decisions_key_is_one_line(tmp_path: Path, decisions: str, says: str):
    line = one_line_error(run_cli(config(tmp_path, decisions)), 2)
    assert says in line


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--out", "file:///tmp/nowhere-mexsim"], "not to a URL"),
        (["--until", "decided"], "drop --until"),
        (["--luck"], "[analysis] luck"),
    ],
)
def test_what_decisions_cannot_be_combined_with_is_refused(
    tmp_path: Path, extra: list[str], says: str
):
    line = one_line_error(run_cli(config(tmp_path, "true"), *extra), 2)
    assert says in line
    assert not (tmp_path / "out").exists()


def test_a_stopped_run_resumes_to_the_same_decisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Ctrl-C while block 3 plays, --resume on one worker: the same decisions.parquet
    as a run never stopped (the kept blocks' parts joined with the new ones)."""
    import time

    from mexsim.errors import Interrupted
    from mexsim.running import runner
    from mexsim.tournament.config import load_config, with_overrides
    from tests.tournament.runs import ctrl_c_once_written

    cfg = config(tmp_path, "true", matches=640)  # 10 blocks of 64
    whole = tmp_path / "whole"
    assert run_cli(cfg, "--out", whole, "--quiet", "--workers", "2").exit_code == 0
    original = runner.block_decisions

    def stop_at_block_three(config: object, players: object, first: int, n: int) -> object:
        if first == 3 * 64:
            ctrl_c_once_written(tmp_path, 3)  # blocks 0-2 on disk, then Ctrl-C
            time.sleep(0.5)
            raise RuntimeError("stopped")
        return original(config, players, first, n)

    monkeypatch.setattr(runner, "block_decisions", stop_at_block_three)
    out = tmp_path / "res"
    with pytest.raises(Interrupted):
        runner.run(
            with_overrides(load_config(cfg), out=str(out)), out, runner.RunOptions(workers=1)
        )
    monkeypatch.setattr(runner, "block_decisions", original)
    resumed = run_cli(cfg, "--out", out, "--quiet", "--workers", "1", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert "of 10 blocks already played" in resumed.stderr
    assert (out / "decisions.parquet").read_bytes() == (whole / "decisions.parquet").read_bytes()
