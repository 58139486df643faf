"""Rule variants (issue 34, part 1): lists in [rules] and [[variants]] tables, validated
per variant; a variant run plays the same matches under every variant, so that each
variant's rows are those of a plain run under its rules; its files carry ``variant``;
variants.csv and the printed table compare them (mexsim/tournament/variants.py,
mexsim/analysis/designer.py)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mexsim.errors import ConfigError
from mexsim.tournament.config import load_config
from tests.tournament.runs import config_text, one_line_error, run_cli, write_config

PLAYERS = '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'
MATCHES = 130  # three blocks of 64 for each variant: the variants' blocks interleave


def _config(tmp_path: Path, rules: str, extra: str = "", name: str = "cfg.toml") -> Path:
    text = f'[run]\nmatches = {MATCHES}\nseed = 3\nout = "out"\n[rules]\n{rules}{extra}{PLAYERS}'
    return write_config(tmp_path, text, name)


def test_lists_in_rules_give_every_combination(tmp_path: Path) -> None:
    cfg = load_config(
        _config(tmp_path, 'first_turn = ["single", "train"]\ndraw_to_start = [false, true]\n')
    )
    assert cfg.variant_names == (
        "first_turn=single,draw_to_start=false",
        "first_turn=single,draw_to_start=true",
        "first_turn=train,draw_to_start=false",
        "first_turn=train,draw_to_start=true",
    )
    assert cfg.rules == cfg.variants[0].rules  # the first is the baseline
    assert [v.rules.first_turn for v in cfg.variants] == ["single", "single", "train", "train"]


def test_variant_tables_name_their_changes_and_base_leads(tmp_path: Path) -> None:
    tables = (
        '[[variants]]\nname = "deal 12"\nhand_size = 12\n'
        '[[variants]]\nname = "base"\n'
        '[[variants]]\nname = "set aside"\nengine = "set_aside"\n'
    )
    cfg = load_config(_config(tmp_path, 'preset = "seed-001"\n', tables))
    assert cfg.variant_names == ("base", "deal 12", "set aside")
    assert cfg.variants[1].rules.hand_size == 12 and cfg.variants[1].describe() == "hand_size=12"
    assert cfg.variants[2].rules.engine == "set_aside"
    assert cfg.variants[0].describe() == "as [rules]"


def test_no_variants_keep_the_config_as_it_was(tmp_path: Path) -> None:
    cfg = load_config(_config(tmp_path, 'first_turn = "single"\n'))
    assert cfg.variants == () and cfg.variant_names == ("base",)
    assert cfg.played_at(70) == (0, 70)


BAD = [
    (
        "list-and-tables",
        'first_turn = ["single", "train"]\n',
        '[[variants]]\nname = "a"\n[[variants]]\nname = "b"\n',
        ["[rules]", "'first_turn'", "one way"],
    ),
    ("one-value", 'first_turn = ["single"]\n', "", ["one variant", 'name = "base"']),
    ("repeated", 'first_turn = ["single", "single"]\n', "", ["lists a value twice"]),
    ("empty-list", "hand_size = []\n", "", ["'hand_size' = [] lists no values"]),
    (
        "bad-value-names-the-variant",
        'first_turn = ["single", "double"]\n',
        "",
        ["variant 'first_turn=double'", "'first_turn'", '"single", "train"'],
    ),
    (
        "hand-too-big",
        "",
        '[[variants]]\nname = "base"\n[[variants]]\nname = "huge"\nhand_size = 60\n',
        ["[[variants]] #2 ('huge')", "'hand_size' = 60", "allowed"],
    ),
    (
        "unknown-key",
        "",
        '[[variants]]\nname = "a"\n[[variants]]\nname = "b"\nfirst_trun = "single"\n',
        ["[[variants]] #2", "unknown key 'first_trun'"],
    ),
    (
        "no-name",
        "",
        '[[variants]]\nname = "a"\n[[variants]]\nhand_size = 10\n',
        ["[[variants]] #2", "needs a name"],
    ),
    (
        "duplicate-name",
        "",
        '[[variants]]\nname = "a"\n[[variants]]\nname = "a"\nhand_size = 10\n',
        ["duplicate 'name' = 'a'"],
    ),
    (
        "list-in-a-table",
        "",
        '[[variants]]\nname = "a"\n[[variants]]\nname = "b"\nhand_size = [10, 11]\n',
        ["is a list", "one table per variant"],
    ),
    (
        "one-table",
        "",
        '[[variants]]\nname = "a"\nhand_size = 10\n',
        ["one variant", 'name = "base"'],
    ),
    (
        "luck",
        'first_turn = ["single", "train"]\n',
        "[analysis]\nluck = true\n",
        ["[analysis]", "'luck'", "rule variants"],
    ),
    (
        "too-many",
        "hand_size = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\ndouble_blank_points = [0, 50, 100]\n",
        "",
        ["33 rule variants", "2..32"],
    ),
]


@pytest.mark.parametrize(
    ("rules", "extra", "expected"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_bad_variants_are_one_line_naming_the_variant(
    tmp_path: Path, rules: str, extra: str, expected: list[str]
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_config(tmp_path, rules, extra))
    message = str(caught.value)
    assert "\n" not in message and str(tmp_path / "cfg.toml") in message
    for part in expected:
        assert part in message, message


def test_variants_that_are_not_tables_are_refused(tmp_path: Path) -> None:
    path = write_config(tmp_path, f'variants = ["a", "b"]\n[run]\nmatches = 4\n{PLAYERS}')
    with pytest.raises(ConfigError, match="'variants' must be an array of tables"):
        load_config(path)


def _run(tmp_path: Path, rules: str, out: str, *args: str, players: str | None = None) -> Path:
    text = config_text(tmp_path / out, matches=MATCHES, rules=rules, players=players or PLAYERS)
    cfg = write_config(tmp_path, text, f"{out}.toml")
    result = run_cli(cfg, "--quiet", *args)
    assert result.exit_code == 0, result.stderr
    return tmp_path / out


@pytest.mark.slow
def test_each_variant_plays_the_matches_a_plain_run_of_its_rules_plays(tmp_path: Path) -> None:
    """The same deals, seats and random streams under every variant: variant
    first_turn=single's rows are a first_turn = "single" run's, byte for byte in value."""
    both = _run(tmp_path, 'first_turn = ["train", "single"]\n', "both")
    single = _run(tmp_path, 'first_turn = "single"\n', "single")
    for name in ("matches", "rounds"):
        table = pd.read_parquet(both / f"{name}.parquet")
        assert table.columns[0] == "variant"
        assert list(table["variant"].cat.categories) == ["first_turn=train", "first_turn=single"]
        mine = table[table["variant"] == "first_turn=single"].drop(columns="variant")
        plain = pd.read_parquet(single / f"{name}.parquet")
        pd.testing.assert_frame_equal(mine.reset_index(drop=True), plain, check_categorical=False)
    variants = pd.read_csv(both / "variants.csv")
    assert list(variants["variant"]) == ["first_turn=train", "first_turn=single"]
    assert list(variants["rules"]) == ["first_turn=train", "first_turn=single"]
    assert (variants["deals"] == MATCHES).all()
    # the paired difference is the difference of the variants' own means here
    diff = variants.loc[1, "mean_total_diff"]
    assert diff == pytest.approx(variants.loc[1, "mean_total"] - variants.loc[0, "mean_total"])
    plain_row = pd.read_csv(single / "variants.csv").iloc[0]
    assert variants.loc[1, "turns_per_round"] == pytest.approx(plain_row["turns_per_round"])


@pytest.mark.slow
def test_a_variant_run_is_the_same_bytes_on_any_number_of_workers(tmp_path: Path) -> None:
    rules = "hand_size = [15, 10]\n"
    one = _run(tmp_path, rules, "one", "--workers", "1")
    two = _run(tmp_path, rules, "two", "--workers", "2")
    for name in ("matches.parquet", "rounds.parquet", "variants.csv", "summary.csv"):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


@pytest.mark.slow
def test_run_and_report_print_the_same_variants_table(tmp_path: Path) -> None:
    from mexsim.cli import app
    from tests.tournament.runs import cli_runner

    text = config_text(
        tmp_path / "out",
        matches=MATCHES,
        rules='engine = ["holder", "set_aside"]\n',
        players=PLAYERS,
    )
    cfg = write_config(tmp_path, text)
    ran = run_cli(cfg)
    assert ran.exit_code == 0, ran.stderr
    reported = cli_runner.invoke(app, ["report", str(tmp_path / "out")])
    assert reported.exit_code == 0, reported.stderr

    def table(out: str) -> str:
        start = out.index("Rule variants")
        return out[start : out.index("variants.csv has every interval")]

    assert table(ran.stdout) == table(reported.stdout)
    assert "Players under the baseline rules, variant 'engine=holder'" in ran.stdout
    assert (tmp_path / "out" / "variants.png").is_file()


@pytest.mark.slow
def test_identical_players_show_no_skill(tmp_path: Path) -> None:
    """Four greedy players: who plays explains nothing; the interval reaches 0."""
    four = '[[players]]\nstrategy = "greedy"\n' * 4
    out = _run(tmp_path, "", "same", players=four)
    row = pd.read_csv(out / "variants.csv").iloc[0]
    assert row["variant"] == "base"
    assert row["skill_share_lo"] == 0.0 and row["skill_share"] < 0.2


def test_until_is_refused_with_variants(tmp_path: Path) -> None:
    text = config_text(
        tmp_path / "out", rules='first_turn = ["single", "train"]\n', players=PLAYERS
    )
    result = run_cli(write_config(tmp_path, text), "--until", "decided")
    line = one_line_error(result, 2)
    assert "--until" in line and "rule variants" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_shared_locations_variant_run_has_the_folders_rows(tmp_path: Path) -> None:
    """--out file:///…: the parts carry ``variant`` too, and report reads them alike."""
    from mexsim.cli import app
    from tests.tournament.runs import cli_runner

    rules = "hand_size = [15, 10]\n"
    folder = _run(tmp_path, rules, "folder")
    text = config_text(tmp_path / "unused", matches=MATCHES, rules=rules, players=PLAYERS)
    url = (tmp_path / "shared").as_uri()
    result = run_cli(write_config(tmp_path, text, "url.toml"), "--quiet", "--out", url)
    assert result.exit_code == 0, result.stderr
    reported = cli_runner.invoke(app, ["report", url])
    assert reported.exit_code == 0, reported.stderr
    assert "Rule variants" in reported.stdout
    assert (tmp_path / "shared" / "variants.csv").read_bytes() == (
        folder / "variants.csv"
    ).read_bytes()


@pytest.mark.slow
def test_replay_plays_a_match_under_the_variant_named(tmp_path: Path) -> None:
    """`replay --variant NAME` is the match the variant run played under those rules;
    an unknown name is refused naming the variants."""
    import json

    from mexsim.cli import app
    from tests.tournament.runs import cli_runner

    out = _run(tmp_path, 'first_turn = ["train", "single"]\n', "both")
    cfg = tmp_path / "both.toml"
    rounds = pd.read_parquet(out / "rounds.parquet")
    for variant in ("first_turn=train", "first_turn=single"):
        result = cli_runner.invoke(
            app,
            ["replay", str(cfg), "--match", "3", "--variant", variant, "--format", "jsonl"],
        )
        assert result.exit_code == 0, result.stderr
        events = [json.loads(line) for line in result.stdout.splitlines()]
        assert events[0]["variant"] == variant
        assert events[0]["rules"]["first_turn"] == variant.split("=")[1]
        traced = [e["penalties"] for e in events if e["event"] == "round_end"]
        mine = rounds[(rounds["variant"] == variant) & (rounds["match"] == 3)]
        assert traced == mine.pivot(index="round", columns="seat", values="penalty").values.tolist()
    refused = cli_runner.invoke(app, ["replay", str(cfg), "--match", "3", "--variant", "x"])
    assert refused.exit_code == 2
    assert "'first_turn=train', 'first_turn=single'" in refused.stderr


@pytest.mark.slow
def test_a_resumed_variant_run_is_the_uninterrupted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped by Ctrl-C while variant 1's second block plays, resumed: the same bytes
    as a run never stopped (the kept blocks' facts are folded from their parts)."""
    import time

    from mexsim.errors import Interrupted
    from mexsim.running import preparation, runner
    from mexsim.tournament.config import load_config, with_overrides
    from tests.tournament.runs import ctrl_c_once_written

    rules = 'draw_limit = [1, "until_playable"]\n'
    whole = _run(tmp_path, rules, "whole", "--workers", "1")
    cfg = tmp_path / "whole.toml"
    original = preparation.play_block

    def stop_in_variant_one(config: object, players: object, first: int, n: int) -> object:
        if first == MATCHES + 64:  # variant 1's block of matches 64..127 (block 3)
            ctrl_c_once_written(tmp_path, 3)  # blocks 0-2 on disk, then Ctrl-C
            time.sleep(0.5)
            raise RuntimeError("stopped")
        return original(config, players, first, n)

    monkeypatch.setattr(preparation, "play_block", stop_in_variant_one)
    out = tmp_path / "res"
    with pytest.raises(Interrupted):
        runner.run(with_overrides(load_config(cfg), out=str(out)), out, runner.RunOptions())
    monkeypatch.setattr(preparation, "play_block", original)
    resumed = run_cli(cfg, "--out", out, "--workers", "1", "--quiet", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert "of 6 blocks already played" in resumed.stderr
    for name in ("rounds.parquet", "matches.parquet", "variants.csv", "summary.csv"):
        assert (whole / name).read_bytes() == (out / name).read_bytes(), name


@pytest.mark.slow
@pytest.mark.processes
def test_a_variant_run_on_a_local_cluster_writes_the_threaded_bytes(tmp_path: Path) -> None:
    """`--cluster local:2`: the workers play the variants' blocks from the config they
    are sent (Config.played_at), the client writes the same files as threads do."""
    rules = "mexican_train = [true, false]\n"
    threads = _run(tmp_path, rules, "threads")
    dask = _run(tmp_path, rules, "dask", "--cluster", "local:2")
    for name in ("matches.parquet", "rounds.parquet", "variants.csv", "summary.csv"):
        assert (threads / name).read_bytes() == (dask / name).read_bytes(), name
