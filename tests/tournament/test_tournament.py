"""Tournaments (issue 5): duplicate deals, balanced pools, head-to-head, ratings, sweeps.

Runs are tiny and use the fast strategies; the schedule's balance is checked by
hypothesis over pool sizes 3–12 and table sizes 2–min(pool, 10).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mexsim.analysis.adjusted import adjusted_differences, adjusted_effects
from mexsim.analysis.deals import unit_means, unit_starts
from mexsim.analysis.head_to_head import head_to_head
from mexsim.analysis.summary import summarize_totals, total_matrix
from mexsim.cli import app
from mexsim.errors import ConfigError
from mexsim.game.play import core_trace
from mexsim.game.referee import check_jsonl
from mexsim.running.runner import RunOptions, run
from mexsim.tournament.config import config_schedule, load_config, with_overrides
from mexsim.tournament.lineup import match_policies
from mexsim.tournament.schedule import Schedule, table_count
from tests.profiles import examples
from tests.tournament.test_config import players as players_toml
from tests.tournament.test_config import write

runner = CliRunner()
FAST = ("greedy", "random", "early_doubles", "mexican_first")


def toml(
    out: Path, matches: int, players: str, tournament: str = "", seed: int = 11, seating: str = ""
) -> str:
    return (
        f"[run]\nmatches = {matches}\nseed = {seed}\nout = {json.dumps(str(out))}\n"
        f"{seating}[tournament]\n{tournament}{players}"
    )


def play(folder: Path, text: str, workers: int = 1) -> tuple[Path, dict]:
    """Run a config in-process; returns the results folder and the match totals
    (totals[match, player], NaN where a player sat out) and deals it wrote."""
    cfg = load_config(write(folder, text))
    got: dict = {}
    run(cfg, Path(cfg.out), RunOptions(workers=workers, force=True))
    matches = pd.read_parquet(Path(cfg.out) / "matches.parquet").sort_values("match", kind="stable")
    totals, players = total_matrix(matches)
    order = [list(players).index(p.name) for p in cfg.players]
    got["totals"] = totals[:, order]
    got["deals"] = matches.drop_duplicates("match")["deal"].to_numpy()
    got["config"] = cfg
    return Path(cfg.out), got


# --- the schedule ---------------------------------------------------------------------


@settings(max_examples=examples(40), deadline=None)
@given(
    st.integers(3, 12).flatmap(
        lambda n: st.tuples(
            st.just(n), st.integers(2, min(n, 10)), st.integers(0, 2**64 - 1), st.booleans()
        )
    )
)
def test_pool_schedule_is_balanced(case: tuple[int, int, int, bool]) -> None:
    """Over one cycle every pair meets equally often and every player sits in every seat
    equally often; every table seats distinct players."""
    n, size, seed, duplicate = case
    schedule = Schedule.build(n, size, seed, duplicate=duplicate)
    assert schedule.cycle == table_count(n, size) * size
    seating = schedule.seating(0, schedule.cycle)
    assert (np.sort(seating, axis=1)[:, 1:] != np.sort(seating, axis=1)[:, :-1]).all()
    seat_counts = np.zeros((n, size), dtype=np.int64)
    np.add.at(seat_counts, (seating, np.broadcast_to(np.arange(size), seating.shape)), 1)
    assert (seat_counts == seat_counts[0, 0]).all()
    pair_counts = Counter()
    for row in seating.tolist():
        pair_counts.update(itertools.combinations(sorted(row), 2))
    assert len(pair_counts) == n * (n - 1) // 2
    assert len(set(pair_counts.values())) == 1
    # the next cycle repeats the first; the schedule depends on the seed only
    assert (schedule.seating(schedule.cycle, schedule.cycle) == seating).all()
    assert (Schedule.build(n, size, seed, duplicate=duplicate).tables == schedule.tables).all()


def test_pool_order_follows_the_seed() -> None:
    a = Schedule.build(8, 4, 1).tables
    b = Schedule.build(8, 4, 2).tables
    assert sorted(map(tuple, np.sort(a, axis=1))) == sorted(map(tuple, np.sort(b, axis=1)))
    assert not (a == b).all()


def test_duplicate_deals_rotate_one_deal_through_every_seat() -> None:
    schedule = Schedule.build(5, 3, 9, duplicate=True)
    deals = schedule.deals(0, 30)
    assert (deals == np.arange(30) // 3).all()
    seating = schedule.seating(0, 30)
    for d in range(10):
        rows = seating[3 * d : 3 * d + 3]
        assert len({frozenset(r) for r in rows.tolist()}) == 1  # one table per deal
        assert (np.sort(rows, axis=0) == np.sort(rows[0])[:, None]).all() or all(
            sorted(rows[:, s].tolist()) == sorted(rows[0].tolist()) for s in range(3)
        )


def test_plain_rotation_is_unchanged() -> None:
    """No pool: match k seats player i at seat (i + k) mod P, deal k (docs/interface.md)."""
    schedule = Schedule.build(4, 4, 123)
    seating = schedule.seating(0, 8)
    for k in range(8):
        assert seating[k].tolist() == [(s - k) % 4 for s in range(4)]
    assert (schedule.deals(0, 8) == np.arange(8)).all()
    assert (Schedule.build(4, 4, 1, rotate=False).seating(5, 2) == np.arange(4)).all()


# --- config ---------------------------------------------------------------------------


def test_sweep_expands_into_one_player_per_value(tmp_path: Path) -> None:
    text = toml(
        tmp_path / "o",
        10,
        players_toml("greedy") + "[[players]]\nstrategy = "
        '"longest_train"\nparams = { pip_weight = [0, 0.5, 1.0] }\n',
    )
    cfg = load_config(write(tmp_path, text))
    names = [p.name for p in cfg.players]
    assert names == [
        "greedy",
        "longest_train[pip_weight=0]",
        "longest_train[pip_weight=0.5]",
        "longest_train[pip_weight=1.0]",
    ]
    assert [p.params.get("pip_weight") for p in cfg.players[1:]] == [0.0, 0.5, 1.0]
    assert {p.sweep for p in cfg.players[1:]} == {"longest_train"}
    assert cfg.players[1].swept == ("pip_weight",)
    assert cfg.table_size == 4 and not cfg.pool


@pytest.mark.parametrize(
    ("tournament", "players", "message"),
    [
        ("", players_toml(*FAST, *FAST, *FAST[:3]), ["11 players", "table_size"]),
        ("table_size = 5\n", players_toml(*FAST), ["'table_size' = 5", "2..4"]),
        ("table_size = 1\n", players_toml(*FAST), ["'table_size' = 1", "2..4"]),
        ("duplicate = 1\n", players_toml(*FAST), ["'duplicate'", "true or false"]),
        ("dupliate = true\n", players_toml(*FAST), ["'dupliate'", "did you mean 'duplicate'"]),
        (
            "",
            players_toml("greedy") + '[[players]]\nstrategy = "longest_train"\n'
            "params = { pip_weight = [] }\n",
            ["params.pip_weight", "non-empty list"],
        ),
        (
            "",
            players_toml("greedy") + '[[players]]\nstrategy = "longest_train"\n'
            'params = { pip_weight = [1, "a"] }\n',
            ["params.pip_weight", "list of numbers"],
        ),
        (
            "",
            players_toml("greedy") + '[[players]]\nstrategy = "longest_train"\n'
            "params = { pip_weight = [1, 1.0] }\n",
            ["params.pip_weight", "twice"],
        ),
        (
            "table_size = 10\n",
            "".join(f'[[players]]\nstrategy = "greedy"\nname = "g{i}"\n' for i in range(40)),
            ["distinct tables", "200,000"],
        ),
    ],
)
def test_bad_tournament_configs(
    tmp_path: Path, tournament: str, players: str, message: list[str]
) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, toml(tmp_path / "o", 10, players, tournament)))
    text = str(err.value)
    assert "\n" not in text and "cfg.toml" in text
    for part in message:
        assert part in text, text


@pytest.mark.parametrize("tournament", ["duplicate = true\n", "table_size = 3\n"])
def test_pools_and_duplicates_need_rotation(tmp_path: Path, tournament: str) -> None:
    text = toml(
        tmp_path / "o", 10, players_toml(*FAST), tournament, seating="[seating]\nrotate = false\n"
    )
    with pytest.raises(ConfigError, match="'rotate' = false cannot be combined"):
        load_config(write(tmp_path, text))


def test_duplicate_rounds_matches_up_to_whole_deals(tmp_path: Path) -> None:
    text = toml(tmp_path / "o", 10, players_toml(*FAST[:3]), "duplicate = true\n")
    cfg = load_config(write(tmp_path, text))
    assert (cfg.matches, cfg.deals, cfg.requested_matches) == (12, 4, 10)
    bigger = with_overrides(cfg, matches=100)
    assert (bigger.matches, bigger.requested_matches) == (102, 100)
    assert with_overrides(cfg, matches=99).requested_matches is None
    result = runner.invoke(app, ["run", str(tmp_path / "cfg.toml"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "duplicate deals: 10 matches rounded up to 12 = 4 deals x 3 seat rotations" in (
        result.stdout
    )


# --- duplicate deals ------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["greedy", "random"])
def test_identical_players_have_paired_differences_of_exactly_zero(
    tmp_path: Path, strategy: str
) -> None:
    """Every player got the same hands from the same seats (and, for random, the same
    random stream with them), so per deal every total is the same."""
    _, got = play(
        tmp_path, toml(tmp_path / "o", 60, players_toml(*[strategy] * 4), "duplicate = true\n")
    )
    units = unit_means(got["totals"], unit_starts(got["deals"]))
    assert (units == units[:, :1]).all()
    names = [p.name for p in got["config"].players]
    summary = summarize_totals(got["totals"], names, [strategy] * 4, 13, got["deals"])
    assert (summary["diff_vs_best"] == 0).all()
    assert (summary["deals"] == 15).all() and (summary["matches"] == 60).all()
    # ... while the deals themselves differ
    assert len(set(units[:, 0].tolist())) > 1


def test_rotations_of_a_deal_replay_the_same_shuffle(tmp_path: Path) -> None:
    cfg = load_config(
        write(tmp_path, toml(tmp_path / "o", 9, players_toml(*FAST[:3]), "duplicate = true\n"))
    )
    schedule = config_schedule(cfg)

    def deals_of(match: int) -> list:
        trace = core_trace(
            cfg.rules, match_policies(cfg, match), cfg.seed, match, deal=schedule.deal_of(match)
        )
        return [(e["hands"], e["boneyard"]) for e in trace if e["event"] == "deal"]

    first = deals_of(3)
    assert deals_of(4) == first and deals_of(5) == first
    assert deals_of(6) != first


def test_duplicate_deals_narrow_the_interval(tmp_path: Path) -> None:
    """At an equal number of matches the interval on the difference between two
    strategies is narrower with duplicate deals than with independent deals."""
    table = players_toml("greedy", "early_doubles")
    widths = {}
    for label, tournament in (("independent", ""), ("duplicate", "duplicate = true\n")):
        _, got = play(tmp_path, toml(tmp_path / label, 600, table, tournament))
        summary = summarize_totals(
            got["totals"],
            ["greedy", "early_doubles"],
            ["greedy", "early_doubles"],
            13,
            got["deals"],
            ratings=False,
        )
        worse = summary.iloc[1]
        widths[label] = worse["diff_vs_best_hi"] - worse["diff_vs_best_lo"]
    assert widths["duplicate"] < 0.95 * widths["independent"], widths


# --- pools ----------------------------------------------------------------------------


def test_pool_run_matches_the_schedule_and_replays(tmp_path: Path) -> None:
    players = players_toml(*FAST) + '[[players]]\nstrategy = "greedy"\nname = "g2"\n'
    out, got = play(
        tmp_path, toml(tmp_path / "o", 40, players, "table_size = 3\nduplicate = true\n"), workers=2
    )
    matches = pd.read_parquet(out / "matches.parquet")
    cfg = got["config"]
    schedule = config_schedule(cfg)
    names = [p.name for p in cfg.players]
    for k in (0, 7, 38):
        rows = matches[matches["match"] == k].sort_values("seat")
        assert list(rows["player"].astype(str)) == [names[i] for i in schedule.seats_of(k)]
        assert (rows["deal"] == k // 3).all()
        # the replayed trace's totals are the file's
        trace = runner.invoke(
            app, ["replay", str(tmp_path / "cfg.toml"), "--match", str(k), "--format", "jsonl"]
        )
        assert trace.exit_code == 0, trace.output
        events = [json.loads(line) for line in trace.stdout.splitlines()]
        assert events[0].get("deal", k) == k // 3  # present when it differs from k
        check_jsonl(trace.stdout)  # the referee accepts it
        text = runner.invoke(app, ["replay", str(tmp_path / "cfg.toml"), "--match", str(k)])
        assert f"Match {k} (seed 11" in text.stdout
        assert (f", deal {k // 3})" in text.stdout) == (k // 3 != k)
        assert events[-1]["totals"] == rows["total"].tolist()
    # absent players are NaN in the totals, and each match seats exactly 3
    assert (np.isfinite(got["totals"]).sum(axis=1) == 3).all()
    _, again = play(
        tmp_path / "..",
        toml(tmp_path / "o1", 40, players, "table_size = 3\nduplicate = true\n"),
        workers=1,
    )
    assert np.array_equal(again["totals"], got["totals"], equal_nan=True)


# --- head to head, ratings ------------------------------------------------------------


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_head_to_head_matches_a_direct_count(seed: int, pooled: bool) -> None:
    rng = np.random.default_rng(seed)
    totals = rng.integers(0, 6, size=(30, 4)).astype(float)
    if pooled:
        totals[rng.random((30, 4)) < 0.3] = np.nan
    names = ["a", "b", "c", "d"]
    table = head_to_head(totals, names).set_index(["player", "opponent"])
    for i, j in itertools.permutations(range(4), 2):
        both = ~np.isnan(totals[:, i]) & ~np.isnan(totals[:, j])
        if not both.any():
            assert (names[i], names[j]) not in table.index
            continue
        row = table.loc[(names[i], names[j])]
        x, y = totals[both, i], totals[both, j]
        assert row["matches"] == both.sum()
        assert row["ahead"] == (x < y).sum() and row["tied"] == (x == y).sum()
        assert row["share"] == pytest.approx(((x < y) + 0.5 * (x == y)).mean())
        assert row["share"] + table.loc[(names[j], names[i]), "share"] == pytest.approx(1)
        assert row["share_lo"] <= row["share"] <= row["share_hi"]


def test_cli_writes_tournament_tables_and_plots(tmp_path: Path) -> None:
    players = (
        players_toml("random", "greedy") + '[[players]]\nstrategy = "longest_train"\n'
        "params = { pip_weight = [0.0, 2.0] }\n"
    )
    cfg = write(tmp_path, toml(tmp_path / "o", 24, players, "table_size = 3\n"))
    result = runner.invoke(app, ["run", str(cfg)])
    assert result.exit_code == 0, result.output
    assert "head to head" in result.stdout and "sweep longest_train: best" in result.stdout
    assert "pool: 4 players at tables of 3" in result.stdout
    out = tmp_path / "o"
    h2h = pd.read_csv(out / "head_to_head.csv")
    assert len(h2h) == 4 * 3
    sweeps = pd.read_csv(out / "sweeps.csv")
    assert sorted(sweeps["value"]) == ["pip_weight=0.0", "pip_weight=2.0"]
    assert sweeps["best"].sum() == 1
    summary = pd.read_csv(out / "summary.csv")
    assert summary["rating"].notna().all() and (summary["rating_sigma"] > 0).all()
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["config"]["tournament"]["table_size"] == 3
    report = runner.invoke(app, ["report", str(out)])
    assert report.exit_code == 0, report.output
    assert (out / "head_to_head.png").stat().st_size > 0
    assert (out / "ratings.png").stat().st_size > 0
    assert "sweep longest_train: best" in report.stdout
    # the report recomputes the same tables from the files
    assert report.stdout.split("\nwrote")[0].strip() in result.stdout


def test_ratings_order_clearly_different_strategies(tmp_path: Path) -> None:
    names = ["random", "greedy", "early_doubles"]
    _, got = play(tmp_path, toml(tmp_path / "o", 120, players_toml(*names)))
    summary = summarize_totals(got["totals"], names, names, 13).set_index("player")
    assert summary.loc["random", "rating"] < summary.loc["greedy", "rating"]
    assert summary.loc["random", "rating"] < summary.loc["early_doubles", "rating"]


def test_shipped_tournament_config() -> None:
    cfg = load_config(Path(__file__).resolve().parents[2] / "configs" / "tournament.toml")
    assert cfg.duplicate and cfg.pool and cfg.table_size == 4 and len(cfg.players) == 6
    assert cfg.matches % config_schedule(cfg).cycle == 0  # whole balanced cycles
    assert [p.name for p in cfg.players if p.sweep] == [
        "longest_train[pip_weight=0.0]",
        "longest_train[pip_weight=0.5]",
        "longest_train[pip_weight=1.0]",
    ]


# --- comparing a pool's players -------------------------------------------------------


def test_adjusted_differences_reduce_to_paired_at_a_full_table() -> None:
    rng = np.random.default_rng(3)
    units = rng.normal(100, 20, size=(50, 4)) + np.array([0, 5, 9, -3])
    diff, _, _, _ = adjusted_differences(units, np.arange(4), 3)
    paired = (units - units[:, [3]]).mean(axis=0)
    assert np.allclose(diff, paired)


def test_adjusted_effects_recover_a_pool_with_table_effects() -> None:
    """Totals = deal effect (which carries the table's composition) + player effect +
    noise: the intra-block estimate finds the player effects, raw means do not."""
    schedule = Schedule.build(6, 3, 5, duplicate=True)
    seating = schedule.seating(0, 6000)
    effect = np.array([-30.0, -10.0, 0.0, 5.0, 10.0, 25.0])
    rng = np.random.default_rng(8)
    units = np.full((2000, 6), np.nan)
    for d in range(2000):
        table = seating[3 * d]
        # a strong table makes everyone's total lower: a block effect
        block = rng.normal(300, 60) + 2.0 * effect[table].sum()
        units[d, table] = block + effect[table] + rng.normal(0, 15, size=3)
    beta, _, _ = adjusted_effects(units)
    assert np.allclose(beta - beta.mean(), effect - effect.mean(), atol=2.0)
    diff, lo, hi, p = adjusted_differences(units, np.arange(6), 0)
    assert np.isnan(p[0]) and (lo[1:] <= diff[1:]).all() and (diff[1:] <= hi[1:]).all()
    assert (lo[1:] < (effect - effect[0])[1:]).all() and ((effect - effect[0])[1:] < hi[1:]).all()
    raw = np.nanmean(units, axis=0)
    assert not np.allclose(raw - raw.mean(), effect - effect.mean(), atol=2.0)


def test_pool_summary_ranks_by_adjusted_total(tmp_path: Path) -> None:
    players = players_toml(*FAST) + '[[players]]\nstrategy = "greedy"\nname = "g2"\n'
    _, got = play(tmp_path, toml(tmp_path / "o", 200, players, "table_size = 3\n"))
    names = [p.name for p in got["config"].players]
    summary = summarize_totals(
        got["totals"], names, [p.strategy for p in got["config"].players], 13
    )
    assert summary["adjusted_total"].is_monotonic_increasing
    assert summary.loc[0, "diff_vs_best"] == 0
    assert summary.iloc[-1]["player"] == "random"
