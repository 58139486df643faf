"""`mexsim run` end to end: the results directory (docs/interface.md), determinism across
worker counts, agreement with the replay trace, seat rotation, the summary, bad input,
--force, `mexsim report` and Ctrl-C.

Runs are tiny (4 fast strategies, a few dozen matches) and shared by module fixtures, so
the engine is compiled (or loaded from numba's cache) once per test process.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from mexsim.cli import app
from tests.tournament.runs import (
    MATCHES,
    SEED,
    STRATEGIES,
    assert_no_crash,
    cli_runner,
    config_text,
    finish,
    interrupt,
    mexsim,
    parts_done,
    temp_folders,
    wait_until,
    write_config,
)

P = len(STRATEGIES)
MAX_PIP = 12
ROUNDS = MAX_PIP + 1

ROUNDS_COLUMNS = [
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
]
MATCHES_COLUMNS = ["match", "seat", "player", "strategy", "total", "rank", "win"]
SUMMARY_COLUMNS = [
    "player",
    "strategy",
    "matches",
    "wins",
    "win_rate",
    "win_rate_lo",
    "win_rate_hi",
    "mean_total",
    "mean_total_lo",
    "mean_total_hi",
    "mean_round_penalty",
]
NAME_TYPE = pa.dictionary(pa.int8(), pa.string())
ROUNDS_TYPES = {
    "match": pa.int64(),
    "round": pa.int8(),
    "engine": pa.int8(),
    "seat": pa.int8(),
    "player": NAME_TYPE,
    "strategy": NAME_TYPE,
    "penalty": pa.int16(),
    "tiles_left": pa.int16(),
    "went_out": pa.bool_(),
    "blocked": pa.bool_(),
    "tiles_played": pa.int16(),
    "draws": pa.int16(),
    "first": pa.bool_(),
    "turns": pa.int16(),
    "passes": pa.int16(),
    "deal": pa.int64(),
}
MATCHES_TYPES = {
    "match": pa.int64(),
    "seat": pa.int8(),
    "player": NAME_TYPE,
    "strategy": NAME_TYPE,
    "total": pa.int32(),
    "rank": pa.int8(),
    "win": pa.float64(),
    "deal": pa.int64(),
}
RULE_OPTIONS = {
    "preset",
    "max_pip",
    "first_turn",
    "engine",
    "draw_to_start",
    "double_blank_points",
    "hand_size",
    "draw_limit",
    "mexican_train",
}
RESULT_FILES = {"rounds.parquet", "matches.parquet", "run.json", "summary.csv", "head_to_head.csv"}


def invoke_run(cfg: Path, *args: str) -> Any:
    result = cli_runner.invoke(app, ["run", str(cfg), *args])
    assert_no_crash(result)
    return result


def assert_ok(result: Any) -> None:
    assert result.exit_code == 0, (result.stdout, result.stderr)


# --- shared runs ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("run")


@pytest.fixture(scope="module")
def cfg(base: Path) -> Path:
    return write_config(base, config_text(base / "unused"))


@pytest.fixture(scope="module")
def results(base: Path, cfg: Path) -> Path:
    """The reference run: rotate = true, MATCHES matches, 2 workers."""
    out = base / "w2"
    result = invoke_run(cfg, "--out", str(out), "--workers", "2", "--quiet")
    assert_ok(result)
    assert str(out) in result.stdout
    return out


@pytest.fixture(scope="module")
def results_w1(base: Path, cfg: Path) -> Path:
    out = base / "w1"
    assert_ok(invoke_run(cfg, "--out", str(out), "--workers", "1", "--quiet"))
    return out


@pytest.fixture(scope="module")
def rounds(results: Path) -> pd.DataFrame:
    return pd.read_parquet(results / "rounds.parquet")


@pytest.fixture(scope="module")
def matches(results: Path) -> pd.DataFrame:
    return pd.read_parquet(results / "matches.parquet")


# --- 1. files, schemas, dtypes --------------------------------------------------------


def test_results_directory_holds_the_four_files(results: Path, base: Path) -> None:
    assert {p.name for p in results.iterdir()} >= RESULT_FILES
    assert temp_folders(base) == []


@pytest.mark.parametrize(
    ("name", "types", "rows"),
    [
        ("rounds.parquet", ROUNDS_TYPES, MATCHES * ROUNDS * P),
        ("matches.parquet", MATCHES_TYPES, MATCHES * P),
    ],
)
def test_parquet_schema(results: Path, name: str, types: dict[str, pa.DataType], rows: int) -> None:
    table = pq.read_table(results / name)
    assert table.schema.names == list(types)  # docs/interface.md's names in order, then deal
    for column, expected in types.items():
        assert table.schema.field(column).type == expected, column
    for column in ("player", "strategy"):
        assert pa.types.is_dictionary(table.schema.field(column).type)
    assert table.num_rows == rows
    frame = pd.read_parquet(results / name)  # pandas reads it as well
    assert list(frame.columns) == list(types)
    assert len(frame) == rows
    assert frame["match"].dtype == np.int64
    assert isinstance(frame["player"].dtype, pd.CategoricalDtype)
    assert set(frame["player"].astype(str)) == set(STRATEGIES)
    assert set(frame["strategy"].astype(str)) == set(STRATEGIES)


@pytest.mark.parametrize("name", ["rounds.parquet", "matches.parquet"])
def test_row_groups_say_which_matches_they_hold(results: Path, name: str) -> None:
    """A reader selects matches by row group from match's and deal's min/max (duckdb,
    polars and pyarrow's filters skip the rest); the names stay dictionary-encoded and
    the numbering columns plain (docs/interface.md)."""
    meta = pq.ParquetFile(results / name).metadata
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    assert meta.num_row_groups > 1
    first = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        columns = {name: group.column(i) for i, name in enumerate(names)}
        size = group.num_rows // (P if name == "matches.parquet" else ROUNDS * P)
        for column in ("match", "deal"):
            stats = columns[column].statistics
            assert stats is not None and stats.has_min_max, (g, column)
            assert (stats.min, stats.max) == (first, first + size - 1), (g, column)
        for column in ("player", "strategy"):
            assert "RLE_DICTIONARY" in columns[column].encodings
        for column in ("match", "deal", "seat"):
            assert "RLE_DICTIONARY" not in columns[column].encodings, column
        first += size
    assert first == MATCHES
    only = pq.read_table(results / name, filters=[("match", ">=", MATCHES - 3)])
    assert sorted(set(only.column("match").to_pylist())) == list(range(MATCHES - 3, MATCHES))
    file = next(ds.dataset(results / name).get_fragments())
    assert len(file.split_by_row_group(ds.field("match") >= MATCHES - 3)) == 1  # the last


def test_rounds_rows_are_complete_and_consistent(rounds: pd.DataFrame) -> None:
    keys = rounds[["match", "round", "seat"]].to_numpy()
    expected = np.array(
        [(k, r, s) for k in range(MATCHES) for r in range(ROUNDS) for s in range(P)]
    )
    assert (keys == expected).all()  # ordered by match, round, seat; nothing missing
    assert (rounds["engine"] == MAX_PIP - rounds["round"]).all()
    assert (rounds["penalty"] >= 0).all() and (rounds["tiles_left"] >= 0).all()
    assert (rounds.loc[rounds["tiles_left"] == 0, "penalty"] == 0).all()
    per_round = rounds.groupby(["match", "round"])
    went_out = per_round["went_out"].sum()
    blocked = per_round["blocked"].agg(["all", "any"])
    assert (blocked["all"] == blocked["any"]).all()  # the whole table, or nobody
    assert ((went_out == 1) & ~blocked["any"] | (went_out == 0) & blocked["any"]).all()
    assert (rounds.loc[rounds["went_out"], "tiles_left"] == 0).all()
    # a designer's facts (issue 34): one first mover a round, who took the first turn
    assert (per_round["first"].sum() == 1).all()
    turns = per_round["turns"].agg(["min", "max"])
    assert (turns["max"] - turns["min"] <= 1).all() and (turns["max"] >= 1).all()
    first_turns = rounds.loc[rounds["first"]].set_index(["match", "round"])["turns"]
    assert (first_turns == turns["max"]).all()
    assert (rounds["passes"] <= rounds["turns"]).all()
    assert (rounds.loc[rounds["blocked"], "passes"] >= 1).any() or not rounds["blocked"].any()


def test_matches_rows_agree_with_rounds(rounds: pd.DataFrame, matches: pd.DataFrame) -> None:
    totals = rounds.groupby(["match", "seat"])["penalty"].sum()
    by_seat = matches.set_index(["match", "seat"])
    assert (by_seat["total"] == totals.reindex(by_seat.index)).all()
    for _, group in matches.groupby("match"):
        best = group["total"].min()
        winners = group["total"] == best
        assert np.allclose(group["win"], winners / winners.sum())
        assert (group.loc[winners, "rank"] == 1).all()
        expected_rank = [1 + int((group["total"] < t).sum()) for t in group["total"]]
        assert group["rank"].tolist() == expected_rank
    assert np.isclose(matches["win"].sum(), MATCHES)


def test_summary_csv_columns(results: Path) -> None:
    summary = pd.read_csv(results / "summary.csv")
    assert list(summary.columns[: len(SUMMARY_COLUMNS)]) == SUMMARY_COLUMNS
    assert sorted(summary["player"]) == sorted(STRATEGIES)


def test_run_json(results: Path) -> None:
    import numba

    import mexsim

    info = json.loads((results / "run.json").read_text())
    for key in (
        "config",
        "mexsim_version",
        "numba_version",
        "seed",
        "matches",
        "workers",
        "wall_seconds",
        "matches_per_second",
        "run_id",
        "play_seconds",
        "summary_seconds",
        "resumed_blocks",
    ):
        assert key in info, key
    assert info["mexsim_version"] == mexsim.__version__
    assert info["numba_version"] == numba.__version__
    assert (info["seed"], info["matches"], info["workers"]) == (SEED, MATCHES, 2)
    assert info["wall_seconds"] >= 0 and info["matches_per_second"] > 0
    config = info["config"]
    assert set(config["rules"]) == RULE_OPTIONS  # every rule option spelled out
    assert config["rules"]["preset"] == "seed-001" and config["rules"]["max_pip"] == MAX_PIP
    assert config["rules"]["hand_size"] == 15  # the R3 default, resolved
    assert config["seating"]["rotate"] is True
    assert [p["strategy"] for p in config["players"]] == list(STRATEGIES)
    assert config["players"][2]["params"] == {"own_first": 1.0}  # defaults spelled out


# --- 2. worker count ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rounds.parquet", "matches.parquet"])
def test_workers_do_not_change_the_content(results: Path, results_w1: Path, name: str) -> None:
    one = pq.read_table(results_w1 / name)
    two = pq.read_table(results / name)
    assert one.schema == two.schema
    # Row groups follow fixed blocks of matches: the bytes are the same
    assert (results_w1 / name).read_bytes() == (results / name).read_bytes()
    assert one.combine_chunks().equals(two.combine_chunks())
    assert pd.read_parquet(results_w1 / name).equals(pd.read_parquet(results / name))


def test_workers_do_not_change_the_summary(results: Path, results_w1: Path) -> None:
    one = pd.read_csv(results_w1 / "summary.csv")
    two = pd.read_csv(results / "summary.csv")
    pd.testing.assert_frame_equal(one, two)


# --- 3. agreement with the replay trace -----------------------------------------------


def check_against_trace(cfg: Path, rounds: pd.DataFrame, matches: pd.DataFrame, match: int) -> None:
    """Rows of ``match`` in rounds/matches equal what `mexsim replay` reports for it."""
    from mexsim.tournament.config import load_config
    from mexsim.tournament.replay import trace_match

    config = load_config(cfg)
    players = len(config.players)
    events = trace_match(config, match)
    header = events[0]
    assert header["event"] == "match" and header["match"] == match
    seat_names = [p["player"] for p in sorted(header["players"], key=lambda p: p["seat"])]
    for seated in header["players"]:  # the parameters each plays, as the config resolved them
        spec = next(p for p in config.players if p.name == seated["player"])
        assert seated.get("params", {}) == spec.params

    rows = rounds[rounds["match"] == match]
    assert len(rows) == ROUNDS * players
    hands: list[list[tuple[int, int]]] = []
    played: Counter[int] = Counter()
    drawn: Counter[int] = Counter()
    last_player = -1
    seen_rounds = 0
    for event in events[1:]:
        kind = event["event"]
        if kind == "deal":
            hands = [[tuple(t) for t in hand] for hand in event["hands"]]
            played, drawn, last_player = Counter(), Counter(), -1
        elif kind == "draw":  # engine-search draws included
            drawn[event["seat"]] += 1
            hands[event["seat"]].append(tuple(event["tile"]))
        elif kind == "engine":
            engine = (MAX_PIP - event["round"],) * 2
            if engine in hands[event["seat"]]:  # engine = "holder": it leaves the hand
                hands[event["seat"]].remove(engine)
        elif kind == "play":
            played[event["seat"]] += 1
            hands[event["seat"]].remove(tuple(event["tile"]))
            last_player = event["seat"]
        elif kind == "round_end":
            r = event["round"]
            got = rows[rows["round"] == r].sort_values("seat")
            seats = range(players)
            assert got["seat"].tolist() == list(seats)
            assert got["player"].astype(str).tolist() == seat_names
            assert got["penalty"].tolist() == event["penalties"]
            assert got["tiles_played"].tolist() == [played[s] for s in seats]
            assert got["draws"].tolist() == [drawn[s] for s in seats]
            assert got["tiles_left"].tolist() == [len(h) for h in hands]
            out = event["reason"] == "out"
            assert got["blocked"].tolist() == [not out] * players
            assert got["went_out"].tolist() == [out and s == last_player for s in seats]
            seen_rounds += 1
        elif kind == "match_end":
            totals = matches[matches["match"] == match].sort_values("seat")
            assert totals["total"].tolist() == event["totals"]
            assert totals["player"].astype(str).tolist() == seat_names
    assert seen_rounds == ROUNDS


@pytest.mark.parametrize("match", [0, 1, 6, 67, 130, MATCHES - 1])
def test_rounds_rows_match_the_replay_trace(
    cfg: Path, rounds: pd.DataFrame, matches: pd.DataFrame, match: int
) -> None:
    check_against_trace(cfg, rounds, matches, match)


# --- 4. seat rotation -----------------------------------------------------------------


def test_rotation_balances_seats(matches: pd.DataFrame) -> None:
    counts = pd.crosstab(matches["player"].astype(str), matches["seat"])
    assert counts.shape == (P, P)
    assert (counts == MATCHES // P).all().all()
    index = {name: i for i, name in enumerate(STRATEGIES)}
    player = matches["player"].astype(str).map(index)
    assert (matches["seat"] == (player + matches["match"]) % P).all()


def test_three_players_across_blocks(tmp_path: Path) -> None:
    """P = 3 does not divide the block size: rotation and rows stay right past a block."""
    out = tmp_path / "three"
    names = STRATEGIES[:3]
    players = "".join(f'[[players]]\nstrategy = "{s}"\n' for s in names)
    cfg = write_config(tmp_path, config_text(out, matches=198, players=players))
    assert_ok(invoke_run(cfg, "--quiet", "--workers", "2"))
    matches = pd.read_parquet(out / "matches.parquet")
    rounds = pd.read_parquet(out / "rounds.parquet")
    assert len(rounds) == 198 * ROUNDS * 3
    counts = pd.crosstab(matches["player"].astype(str), matches["seat"])
    assert counts.shape == (3, 3) and (counts == 198 // 3).all().all()
    player = matches["player"].astype(str).map({name: i for i, name in enumerate(names)})
    assert (matches["seat"] == (player + matches["match"]) % 3).all()
    for match in (64, 65, 130, 197):
        check_against_trace(cfg, rounds, matches, match)


def test_no_rotation_keeps_seats(tmp_path: Path) -> None:
    out = tmp_path / "fixed"
    cfg = write_config(tmp_path, config_text(out, matches=2 * P + 1, rotate=False))
    assert_ok(invoke_run(cfg, "--quiet", "--workers", "2"))
    matches = pd.read_parquet(out / "matches.parquet")
    assert len(matches) == (2 * P + 1) * P
    names = matches["player"].astype(str).to_numpy()
    assert (names == np.array(STRATEGIES)[matches["seat"].to_numpy()]).all()
    rounds = pd.read_parquet(out / "rounds.parquet", columns=["seat", "player"])
    assert (
        rounds["player"].astype(str).to_numpy() == np.array(STRATEGIES)[rounds["seat"].to_numpy()]
    ).all()


def test_one_match_prints_no_nan(tmp_path: Path) -> None:
    """A run too short for any interval says so ("n/a"), in words that fit one match."""
    out = tmp_path / "one"
    result = invoke_run(write_config(tmp_path, config_text(out, matches=1)), "--workers", "1")
    assert_ok(result)
    assert "1 match in " in result.stdout and "1 worker)" in result.stdout
    assert not re.search(r"\bnan\b", result.stdout, re.IGNORECASE), result.stdout
    assert "ratings (Bradley-Terry" in result.stdout


def test_the_run_ends_with_what_to_try_next(tmp_path: Path) -> None:
    """Issue 35: the run's output said nothing of report, replay or writing a strategy.
    The last line names them with this run's own paths (quoted for a shell); --quiet
    leaves it out."""
    out = tmp_path / "a folder"
    cfg = write_config(tmp_path, config_text(out, matches=4))
    result = invoke_run(cfg, "--workers", "1")
    assert_ok(result)
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith(f"next: mexsim report '{out}'  (plots)")
    assert f"mexsim replay {cfg} --match 0" in last and "strategies --new NAME" in last
    quiet = invoke_run(cfg, "--workers", "1", "--force", "--quiet")
    assert_ok(quiet)
    assert "next:" not in quiet.stdout


def test_quiet_prints_the_one_line_result(tmp_path: Path) -> None:
    """Issue 35: --quiet only hid the bar. Now it prints the result line alone (the
    tables are in the folder), and nothing on stderr for a warm run."""
    out = tmp_path / "q"
    cfg = write_config(tmp_path, config_text(out, matches=4))
    quiet = invoke_run(cfg, "--workers", "1", "--quiet")
    assert_ok(quiet)
    lines = quiet.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("4 matches in ") and str(out) in lines[0]
    assert (out / "summary.csv").is_file() and (out / "variants.csv").is_file()


def test_a_long_start_is_named_in_the_result_line(tmp_path: Path, capsys) -> None:
    """Issue 35: "148.5 s (play 22.5 s, …)" did not say where the rest went; a warm
    run's second of start-up is not worth a word."""
    from mexsim import cli
    from mexsim.running.run_record import RunResult
    from mexsim.tournament.config import load_config

    cfg = load_config(write_config(tmp_path, config_text(tmp_path / "out")))
    display = cli._RunDisplay(cfg, quiet=True)
    display.print_result(RunResult(tmp_path, 200, 2, 148.5, 22.5, 0.4, 200))
    line = capsys.readouterr().out.strip()
    assert "(play 22.5 s, summary 0.4 s, start-up and compiling 125.6 s;" in line
    display.print_result(RunResult(tmp_path, 200, 2, 3.5, 2.5, 0.1, 200))
    assert "start-up" not in capsys.readouterr().out


# --- 5. summary numbers ---------------------------------------------------------------


def test_summary_agrees_with_the_parquet_files(
    results: Path, rounds: pd.DataFrame, matches: pd.DataFrame
) -> None:
    summary = pd.read_csv(results / "summary.csv").set_index("player")
    frame = matches.assign(player=matches["player"].astype(str))
    grouped = frame.groupby("player")
    expected = pd.DataFrame(
        {
            "matches": grouped.size(),
            "wins": grouped["win"].sum(),
            "mean_total": grouped["total"].mean(),
        }
    )
    expected["win_rate"] = expected["wins"] / expected["matches"]
    expected["mean_round_penalty"] = (
        rounds.assign(player=rounds["player"].astype(str)).groupby("player")["penalty"].mean()
    )
    strategy = grouped["strategy"].first().astype(str)
    for player in STRATEGIES:
        row = summary.loc[player]
        assert row["strategy"] == strategy[player]
        assert row["matches"] == expected.loc[player, "matches"] == MATCHES
        for column in ("wins", "win_rate", "mean_total", "mean_round_penalty"):
            assert np.isclose(row[column], expected.loc[player, column]), (player, column)
        assert row["win_rate_lo"] <= row["win_rate"] <= row["win_rate_hi"]
        assert row["mean_total_lo"] <= row["mean_total"] <= row["mean_total_hi"]
    assert np.isclose(summary["wins"].sum(), MATCHES)


# --- 6. bad input ---------------------------------------------------------------------

PLAYERS_2 = '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'


def players_of(*tables: str) -> str:
    return "".join(f"[[players]]\n{t}\n" for t in tables)


def cfg_with(**kwargs: Any) -> Any:
    return lambda out: config_text(out, **kwargs)


def raw(text: str) -> Any:
    return lambda out: text


# (id, config text from the out path (None: no config file; "folder": a folder;
#  "latin1": not UTF-8), extra args, expected parts, setup in tmp_path)
BAD_INPUT: list[Any] = [
    ("missing-config", None, [], ["gone.toml", "not found"], None),
    ("config-is-a-folder", "folder", [], ["cannot read config file"], None),
    ("config-not-utf8", "latin1", [], ["UTF-8"], None),
    (
        "toml-syntax",
        raw("[run]\nmatches = 5\nseed = = 3\n" + PLAYERS_2),
        [],
        ["TOML syntax error", "line 3"],
        None,
    ),
    (
        "unknown-section",
        raw("[rule]\nmax_pip = 12\n" + PLAYERS_2),
        [],
        ["unknown section 'rule'", "did you mean 'rules'"],
        None,
    ),
    (
        "unknown-key",
        raw("[run]\nmatchs = 5\n" + PLAYERS_2),
        [],
        ["unknown key 'matchs'", "did you mean 'matches'"],
        None,
    ),
    (
        "unknown-rule-key",
        cfg_with(rules="max_pips = 12\n"),
        [],
        ["'max_pips'", "did you mean 'max_pip'"],
        None,
    ),
    (
        "matches-string",
        raw('[run]\nmatches = "ten"\n' + PLAYERS_2),
        [],
        ["'matches'", "integer", "'ten'"],
        None,
    ),
    (
        "rotate-int",
        raw("[seating]\nrotate = 1\n" + PLAYERS_2),
        [],
        ["'rotate'", "true or false"],
        None,
    ),
    (
        "one-player",
        cfg_with(players=players_of('strategy = "greedy"')),
        [],
        ["players", "2..10"],
        None,
    ),
    (
        "eleven-players",
        cfg_with(players=players_of(*['strategy = "greedy"'] * 11)),
        [],
        ["players", "2..10"],
        None,
    ),
    ("players-not-tables", raw("players = 3\n"), [], ["players", "[[players]]"], None),
    (
        "missing-strategy",
        cfg_with(players=players_of('name = "a"', 'strategy = "greedy"')),
        [],
        ["#1", "strategy"],
        None,
    ),
    (
        "unknown-strategy",
        cfg_with(players=players_of('strategy = "randon"', 'strategy = "greedy"')),
        [],
        ["'randon'", "did you mean 'random'"],
        None,
    ),
    (
        "unknown-param",
        cfg_with(
            players=players_of(
                'strategy = "early_doubles"\nparams = { own_frist = 1 }', 'strategy = "greedy"'
            )
        ),
        [],
        ["own_frist", "did you mean 'own_first'"],
        None,
    ),
    (
        "param-not-number",
        cfg_with(
            players=players_of(
                'strategy = "early_doubles"\nparams = { own_first = "yes" }', 'strategy = "greedy"'
            )
        ),
        [],
        ["params.own_first", "number"],
        None,
    ),
    (
        "param-bool",
        cfg_with(
            players=players_of(
                'strategy = "early_doubles"\nparams = { own_first = true }', 'strategy = "greedy"'
            )
        ),
        [],
        ["params.own_first", "number"],
        None,
    ),
    ("hand-size-too-big", cfg_with(rules="hand_size = 30\n"), [], ["hand_size", "2..22"], None),
    ("hand-size-one", cfg_with(rules="hand_size = 1\n"), [], ["hand_size"], None),
    (
        "max-pip-high",
        cfg_with(rules="max_pip = 16\nhand_size = 10\n"),
        [],
        ["max_pip", "6..15"],
        None,
    ),
    ("max-pip-low", cfg_with(rules="max_pip = 5\nhand_size = 4\n"), [], ["max_pip", "6..15"], None),
    (
        "max-pip-9-no-hand-size",
        cfg_with(rules="max_pip = 9\n"),
        [],
        ["hand_size", "required", "max_pip = 9"],
        None,
    ),
    ("unknown-preset", cfg_with(rules='preset = "seed-002"\n'), [], ["preset", "seed-001"], None),
    (
        "bad-engine",
        cfg_with(rules='engine = "middle"\n'),
        [],
        ["engine", "holder", "set_aside"],
        None,
    ),
    (
        "bad-first-turn",
        cfg_with(rules='first_turn = "double"\n'),
        [],
        ["first_turn", "single", "train"],
        None,
    ),
    (
        "negative-double-blank",
        cfg_with(rules="double_blank_points = -1\n"),
        [],
        ["double_blank_points"],
        None,
    ),
    ("matches-zero", cfg_with(matches=0), [], ["'matches' = 0", "1..4611686018427387904"], None),
    ("flag-matches-zero", cfg_with(), ["--matches", "0"], ["--matches"], None),
    ("flag-matches-text", cfg_with(), ["--matches", "many"], ["--matches"], None),
    ("flag-workers-zero", cfg_with(), ["--workers", "0"], ["--workers"], None),
    ("seed-negative", cfg_with(seed=-1), [], ["'seed'", "-1"], None),
    ("flag-seed-negative", cfg_with(), ["--seed", "-1"], ["--seed"], None),
    ("flag-unknown", cfg_with(), ["--wrokers", "2"], ["--wrokers"], None),
    (
        "duplicate-names",
        cfg_with(
            players=players_of('name = "x"\nstrategy = "greedy"', 'name = "x"\nstrategy = "random"')
        ),
        [],
        ["duplicate", "'x'"],
        None,
    ),
    (
        "empty-name",
        cfg_with(players=players_of('name = ""\nstrategy = "greedy"', 'strategy = "random"')),
        [],
        ["'name'"],
        None,
    ),
    (
        "flag-strategies-missing",
        cfg_with(),
        ["--strategies", "{tmp}/nowhere"],
        ["nowhere", "not found"],
        None,
    ),
    (
        "run-strategies-missing",
        raw('[run]\nstrategies = "nowhere"\n' + PLAYERS_2),
        [],
        ["nowhere", "does not exist"],
        None,
    ),
    # a file where a folder is wanted: named as such, not "does not exist"/"not found"
    (
        "run-strategies-a-file",
        raw('[run]\nstrategies = "cfg.toml"\n' + PLAYERS_2),
        [],
        ["cfg.toml", "is a file, not a folder"],
        None,
    ),
    (
        "flag-strategies-a-file",
        cfg_with(),
        ["--strategies", "{tmp}/cfg.toml"],
        ["cfg.toml", "is a file, not a folder"],
        None,
    ),
    (
        "out-inside-a-file",
        lambda out: config_text(out.parent / "afile" / "res"),
        [],
        ["afile", "a parent of it", "is a file, not a folder"],
        "afile",
    ),
    ("out-exists", cfg_with(), [], ["exists", "--force"], "existing"),
]
# Without --quiet (as a user would type it), the errors found once the run has started
# (the output folder) must still be one clean line.
BAD_INPUT_CASES = [
    pytest.param(text, [*args, "--quiet"] if setup else args, parts, setup, id=name)
    for name, text, args, parts, setup in BAD_INPUT
] + [
    pytest.param(text, args, parts, setup, id=f"{name}-with-progress-bar")
    for name, text, args, parts, setup in BAD_INPUT
    if setup
]


@pytest.mark.parametrize(("make_text", "args", "parts", "setup"), BAD_INPUT_CASES)
def test_bad_input(
    tmp_path: Path, make_text: Any, args: list[str], parts: list[str], setup: str | None
) -> None:
    out = tmp_path / "res"
    if setup == "afile":
        (tmp_path / "afile").write_text("not a folder\n")
    if setup == "existing":
        out.mkdir()
        (out / "keep.txt").write_text("old results\n")
    if make_text is None:
        cfg = tmp_path / "gone.toml"
    elif make_text == "folder":
        cfg = tmp_path / "cfg.toml"
        cfg.mkdir()
    elif make_text == "latin1":
        cfg = tmp_path / "cfg.toml"
        cfg.write_bytes(
            config_text(out).replace("[rules]", "# d\xe9j\xe0\n[rules]").encode("latin-1")
        )
    else:
        cfg = write_config(tmp_path, make_text(out))
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))

    result = cli_runner.invoke(app, ["run", str(cfg), *args])

    assert_no_crash(result)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mexsim: error:")
    for part in parts:
        assert part in lines[0], f"{part!r} not in {lines[0]!r}"
    assert temp_folders(tmp_path) == []
    if setup == "existing":  # the old results are untouched
        assert (out / "keep.txt").read_text() == "old results\n"
        assert [p.name for p in out.iterdir()] == ["keep.txt"]
    else:
        assert not out.exists()
    assert not (tmp_path / "afile").is_dir()
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_at_least_twenty_bad_inputs() -> None:
    assert len(BAD_INPUT) >= 20


# --- 7. --force -----------------------------------------------------------------------


def test_force_replaces_an_existing_directory(tmp_path: Path) -> None:
    out = tmp_path / "res"
    cfg = write_config(tmp_path, config_text(out, matches=P))
    assert_ok(invoke_run(cfg, "--quiet"))
    (out / "marker.txt").write_text("first run\n")
    first = pq.read_table(out / "matches.parquet")

    refused = invoke_run(cfg, "--quiet", "--seed", "99")
    assert refused.exit_code == 2
    assert (out / "marker.txt").exists()
    assert pq.read_table(out / "matches.parquet").equals(first)

    (out / "sweeps.csv").write_text("an old run's table\n")  # a name mexsim writes
    assert_ok(invoke_run(cfg, "--quiet", "--seed", "99", "--force"))
    assert not (out / "sweeps.csv").exists()  # mexsim's files replaced (no sweep now)
    assert (out / "marker.txt").read_text() == "first run\n"  # the user's kept
    assert {p.name for p in out.iterdir()} >= RESULT_FILES
    assert json.loads((out / "run.json").read_text())["seed"] == 99
    assert not pq.read_table(out / "matches.parquet").equals(first)
    assert temp_folders(tmp_path) == []


def test_force_never_deletes_a_users_folder_named_like_a_result(tmp_path: Path) -> None:
    out = tmp_path / "res"
    cfg = write_config(tmp_path, config_text(out, matches=P))
    assert_ok(invoke_run(cfg, "--quiet"))
    (out / "summary.csv").unlink()
    (out / "summary.csv").mkdir()
    (out / "summary.csv" / "precious.txt").write_text("keep me\n")
    refused = invoke_run(cfg, "--quiet", "--force")
    assert refused.exit_code == 2
    assert "summary.csv: not a file mexsim wrote" in refused.stderr
    assert (out / "summary.csv" / "precious.txt").read_text() == "keep me\n"
    assert temp_folders(tmp_path) == []


def test_force_on_the_current_directory_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = write_config(tmp_path, config_text(tmp_path / "unused", matches=P))
    work = tmp_path / "work"
    work.mkdir()
    (work / "precious.txt").write_text("keep me\n")
    monkeypatch.chdir(work)
    result = cli_runner.invoke(app, ["run", str(cfg), "--out", ".", "--force", "--quiet"])
    assert (work / "precious.txt").exists(), "mexsim run --out . --force emptied the cwd"
    assert_no_crash(result)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mexsim: error:"), result.stderr


# --- 8. report ------------------------------------------------------------------------


def test_report(results: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(results, folder)
    result = cli_runner.invoke(app, ["report", str(folder)])
    assert_no_crash(result)
    assert_ok(result)
    for name in STRATEGIES:
        assert name in result.stdout
    pngs = sorted(p.name for p in folder.glob("*.png"))
    assert len(pngs) == 5, pngs
    for name in pngs:
        assert (folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def only_matches(results: Path, folder: Path) -> None:
    folder.mkdir()
    shutil.copy(results / "matches.parquet", folder)


def corrupt_matches(results: Path, folder: Path) -> None:
    shutil.copytree(results, folder)
    (folder / "matches.parquet").write_text("not parquet\n")


@pytest.mark.parametrize(
    "make",
    [
        lambda r, p: p.mkdir(),
        lambda r, p: None,
        pytest.param(only_matches),
        pytest.param(corrupt_matches),
    ],
    ids=["empty-folder", "missing-folder", "no-rounds-parquet", "corrupt-matches-parquet"],
)
def test_report_without_results(results: Path, tmp_path: Path, make: Any) -> None:
    folder = tmp_path / "nothing"
    make(results, folder)
    result = cli_runner.invoke(app, ["report", str(folder)])
    assert_no_crash(result)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mexsim: error:"), result.stderr
    assert list(tmp_path.glob("**/*.png")) == []


# --- 9. Ctrl-C ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.processes
def test_ctrl_c_stops_cleanly(tmp_path: Path) -> None:
    out = tmp_path / "big"
    cfg = write_config(tmp_path, config_text(out))
    # Fill numba's cache first: a Ctrl-C while the kernel compiles waits for the compile
    # (a known limitation, reported separately); this test is about playing.
    warm = mexsim("run", cfg, "--matches", "4", "--out", tmp_path / "warm", "--quiet")
    code, _, stderr = finish(warm, timeout=300)
    assert code == 0, stderr
    shutil.rmtree(tmp_path / "warm")
    proc = mexsim("run", cfg, "--matches", "2000000", "--out", out, "--quiet")
    # numba may be loading its cache
    wait_until(proc, lambda: list(tmp_path.glob(".big.tmp-*")), "the run never started", timeout=60)
    time.sleep(0.5)  # well into playing blocks
    assert proc.poll() is None
    code, stdout, stderr, took = interrupt(proc, signal.SIGINT)
    assert code == 130, stderr
    assert took <= 3.0, f"took {took:.2f} s to stop"
    assert "interrupted" in stderr
    assert "Traceback" not in stderr + stdout
    [line] = stderr.splitlines()
    assert not out.exists()
    kept = temp_folders(tmp_path)
    if line == "mexsim: interrupted: no results written":
        assert kept == []
    else:  # Ctrl-C keeps the finished blocks for --resume (tests/tournament/test_safety.py)
        assert line.startswith("mexsim: interrupted: ") and "--resume" in line
        assert len(kept) == 1 and list(kept[0].glob("parts/*.matches.arrow"))
        # the count it gives is what --resume finds: the play threads, abandoned, wrote
        # the blocks they finished after it was taken (a few more, once in two runs)
        said = int(line.split("interrupted: ")[1].split(" finished")[0].replace(",", ""))
        time.sleep(1.0)  # any thread still running is gone with the process
        assert said == parts_done(tmp_path), line


# 10. `mexsim --help` importing nothing heavy: tests/test_cli.py::test_help_imports_nothing_heavy
