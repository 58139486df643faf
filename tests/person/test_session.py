"""A person's seat (mexsim/person/session.py): the same match as `mexsim run`'s, a record
that the referee accepts and that continues a quit game exactly, hints and reviews from
the seat's own view."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mexsim.errors import ConfigError
from mexsim.game import view as V
from mexsim.game.referee import check_file
from mexsim.person.session import Session, history_lines, read_record
from mexsim.tournament.config import load_config
from mexsim.tournament.replay import trace_match

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "configs" / "default.toml"


def as_its_strategy(session: Session, moves: int | None = None) -> None:
    """The person plays as their seat's configured strategy would (``moves`` of them, or
    to the end)."""
    while not session.game.is_over() and (moves is None or moves > 0):
        session.play(session.game.suggest())
        moves = None if moves is None else moves - 1


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(("seat", "match"), [(0, 0), (2, 3)])
def test_a_person_playing_as_the_bot_records_the_runs_match(
    tmp_path: Path, seat: int, match: int
) -> None:
    record = tmp_path / "game.jsonl"
    session = Session.start(DEFAULT, seat=seat, match=match, record=record)
    as_its_strategy(session)
    recorded = lines(record)
    assert recorded[0]["person"] == {"seat": seat, "config": str(DEFAULT)}
    del recorded[0]["person"]
    assert recorded == trace_match(load_config(DEFAULT), match)  # `mexsim replay`'s
    check_file(record)  # the referee


def test_a_quit_game_continues_exactly(tmp_path: Path) -> None:
    record = tmp_path / "kept.jsonl"
    whole = Session.start(DEFAULT, seat=1, match=4, record=tmp_path / "whole.jsonl")
    as_its_strategy(whole)
    first = Session.start(DEFAULT, seat=1, match=4, record=record)
    as_its_strategy(first, moves=23)  # into the second round or later
    assert first.game.round >= 1
    again = Session.resume(record)
    assert np.array_equal(again.game.state, first.game.state)
    assert again.your_moves == first.your_moves
    as_its_strategy(again)
    assert lines(record) == lines(tmp_path / "whole.jsonl")


def test_the_record_never_shows_the_round_being_played(tmp_path: Path) -> None:
    """R17: the current round's deal (hands, boneyard) is not in the file while it is
    played; only finished rounds and the person's own moves."""
    record = tmp_path / "g.jsonl"
    session = Session.start(DEFAULT, seat=0, match=1, record=record)
    as_its_strategy(session, moves=30)
    rnd = session.game.round
    events = lines(record)
    assert all("round" in ev and ev["round"] < rnd for ev in events[1:-1])  # no match_end
    assert events[-1]["event"] == "in_progress"
    assert set(events[-1]) == {"event", "your_moves"}
    assert len(events[-1]["your_moves"]) == 30


def test_a_hint_ranks_every_legal_move_from_the_seats_view(tmp_path: Path) -> None:
    session = Session.start(DEFAULT, seat=0, match=0, record=tmp_path / "g.jsonl")
    while session.game.move_count() < 2:
        session.play(0)
    before = session.game.state.copy()
    ranked = session.hint(worlds=64)
    assert np.array_equal(session.game.state, before)  # a hint changes nothing
    assert sorted(i for i, *_ in ranked) == list(range(session.game.move_count()))
    means = [m for _, _, m, _ in ranked]
    assert means == sorted(means)
    assert ranked == session.hint(worlds=64)  # the same worlds each time


def test_a_review_rates_the_best_move_zero_and_a_worse_one_by_its_loss(
    tmp_path: Path,
) -> None:
    session = Session.start(DEFAULT, seat=3, match=2, record=tmp_path / "g.jsonl")
    as_its_strategy(session, moves=1)
    while session.game.round == 0 and not session.game.is_over():
        session.play(session.game.move_count() - 1)  # the last listed: often poor
    ratings = session.review(0)
    assert ratings
    for r in ratings:
        assert r.lost == pytest.approx(r.expected[r.chosen] - min(r.expected))
        assert r.lost >= 0
        assert (r.lost == 0) == (r.chosen == r.best)
    assert any(r.lost > 0 for r in ratings)
    assert session.review(0) is ratings  # kept


def test_what_the_person_sees_is_their_seats_view_only(tmp_path: Path) -> None:
    session = Session.start(DEFAULT, seat=2, match=0, record=tmp_path / "g.jsonl")
    as_its_strategy(session, moves=5)
    said = history_lines(session.game, 2, last=100)
    assert said  # the round's public history, a draw without its tile
    assert all(line.endswith("drew") for line in said if "drew" in line)
    assert session.game.view(2)[V.SEAT] == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such game record"),
        ("not json\n", "not a game record"),
        ('{"event": "match"}\n', "no person's header"),
        (
            '{"event": "match", "match": 0, "person": {"seat": 0, "config": "x"}}\n',
            "that game is over",
        ),
        (
            '{"event": "match", "match": 0, "person": {"seat": 0, "config": "x"}}\n'
            '{"event": "in_progress", "your_moves": 3}\n',
            "damaged",
        ),
    ],
)
def test_a_bad_record_is_one_clear_line(tmp_path: Path, content: str | None, message: str):
    path = tmp_path / "r.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        read_record(path)


def test_a_seat_not_at_the_table_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--seat 7 is not at the table.*0\.\.3"):
        Session.start(DEFAULT, seat=7, record=tmp_path / "g.jsonl")


@pytest.mark.parametrize(
    ("args", "parts"),
    [
        ([], ["a CONFIG for a new game, or --resume RECORD"]),
        ([str(DEFAULT), "--resume", "x.jsonl"], ["a CONFIG for a new game, or --resume"]),
        ([str(DEFAULT), "--seat", "7"], ["--seat 7 is not at the table"]),
        (["--resume", "nowhere.jsonl"], ["nowhere.jsonl: no such game record"]),
        ([str(DEFAULT), "--match", "100000"], ["match 100000 is out of range"]),
        (["--resume", "x.jsonl", "--seat", "1"], ["--seat is a new game's"]),
        (["--resume", "x.jsonl", "--record", "y.jsonl"], ["--record is a new game's"]),
        ([str(DEFAULT)], ["mexsim play needs a terminal"]),
    ],
)
def test_the_command_refuses_bad_input_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], parts: list[str]
) -> None:
    from typer.testing import CliRunner

    from mexsim.cli import app
    from tests.test_cli import assert_usage_error

    monkeypatch.chdir(tmp_path)
    assert_usage_error(CliRunner().invoke(app, ["play", *args]), *parts)
    assert not (tmp_path / "games").exists()  # nothing written


def test_replay_shows_a_finished_record_as_it_shows_the_configs_match(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mexsim.cli import app

    record = tmp_path / "done.jsonl"
    session = Session.start(DEFAULT, seat=2, match=5, record=record)
    as_its_strategy(session)
    runner = CliRunner()
    shown = runner.invoke(app, ["replay", str(record)])
    played = runner.invoke(app, ["replay", str(DEFAULT), "--match", "5"])
    assert shown.exit_code == 0 and played.exit_code == 0, shown.output
    assert shown.stdout == played.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([str(DEFAULT)], "--match K is required"),
        (["x.jsonl"], "no such trace"),
        (["{record}", "--match", "1"], "is one match's trace already"),
    ],
)
def test_replay_of_a_trace_refuses_bad_input_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    from typer.testing import CliRunner

    from mexsim.cli import app
    from tests.test_cli import assert_usage_error

    record = tmp_path / "r.jsonl"
    record.write_text("{}\n", encoding="utf-8")
    args = [a.replace("{record}", str(record)) for a in args]
    assert_usage_error(CliRunner().invoke(app, ["replay", *args]), message)


def test_replay_shows_one_round_with_the_matchs_running_totals(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mexsim.cli import app

    runner = CliRunner()
    whole = runner.invoke(app, ["replay", str(DEFAULT), "--match", "1"]).stdout
    one = runner.invoke(app, ["replay", str(DEFAULT), "--match", "1", "--round", "4"])
    assert one.exit_code == 0, one.output
    assert "Round 4 " in one.stdout and "Round 3 " not in one.stdout
    assert "Round 5 " not in one.stdout
    penalties = [line for line in one.stdout.splitlines() if "   total " in line]
    assert penalties and all(line in whole.splitlines() for line in penalties)
    far = runner.invoke(app, ["replay", str(DEFAULT), "--match", "1", "--round", "13"])
    assert far.exit_code == 2 and "--round 13 is not played" in far.stderr


# --- the user's files, and a kept game's config


def test_a_new_game_never_replaces_a_file(tmp_path: Path) -> None:
    """Neither a file of the user's, nor a kept game, nor a folder, link or fifo."""
    import os

    notes = tmp_path / "notes.txt"
    notes.write_text("precious", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a kept game of mexsim play"):
        Session.start(DEFAULT, record=notes)
    assert notes.read_text(encoding="utf-8") == "precious"
    kept = tmp_path / "kept.jsonl"
    session = Session.start(DEFAULT, record=kept)
    as_its_strategy(session, moves=5)
    before = kept.read_text(encoding="utf-8")
    with pytest.raises(ConfigError, match="a game is kept there: continue it with"):
        Session.start(DEFAULT, record=kept)
    assert kept.read_text(encoding="utf-8") == before
    (tmp_path / "folder").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "target.jsonl")
    os.mkfifo(tmp_path / "fifo")
    for name in ("folder", "link", "fifo"):
        with pytest.raises(ConfigError, match="exists and is not a kept game"):
            Session.start(DEFAULT, record=tmp_path / name)
    assert not (tmp_path / "target.jsonl").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fifo",
        "folder",
        "kept.jsonl",
        "link",
        "notes.txt",
    ]


def test_a_record_the_system_refuses_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    from mexsim.errors import OutputError

    blocker = tmp_path / "a_file"
    blocker.write_text("x", encoding="utf-8")
    session = Session.start(DEFAULT, record=blocker / "game.jsonl")
    with pytest.raises(OutputError, match="cannot keep the game"):
        session.save()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_a_kept_game_whose_config_changed_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "mine.toml"
    text = DEFAULT.read_text(encoding="utf-8")
    config.write_text(text, encoding="utf-8")
    record = tmp_path / "g.jsonl"
    as_its_strategy(Session.start(config, record=record), moves=3)
    config.write_text(
        text.replace("double_blank_points = 0", "double_blank_points = 50"), encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"no longer deals this game \(its rules changed"):
        Session.resume(record)


@pytest.mark.parametrize(
    "damage",
    [
        lambda h: h.pop("match"),
        lambda h: h.update(match="0"),
        lambda h: h.update(match=0.5),
        lambda h: h.update(person=5),
        lambda h: h["person"].update(seat="abc"),
        lambda h: h["person"].update(config=5),
        lambda h: h["person"].pop("config"),
    ],
)
def test_a_damaged_header_is_one_line(tmp_path: Path, damage) -> None:
    record = tmp_path / "g.jsonl"
    as_its_strategy(Session.start(DEFAULT, record=record), moves=2)
    events = lines(record)
    damage(events[0])
    record.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"g\.jsonl: "):
        Session.resume(record)


def test_the_strategy_folders_and_the_variant_are_kept_for_resume(tmp_path: Path) -> None:
    house = ROOT / "configs" / "house-rules.toml"
    folder = tmp_path / "mine"
    folder.mkdir()
    record = tmp_path / "g.jsonl"
    session = Session.start(house, seat=1, record=record, strategies=(folder,), variant="deal 12")
    assert session.game.rules.hand_size == 12
    as_its_strategy(session, moves=4)
    header = lines(record)[0]
    assert header["person"]["strategies"] == [str(folder)]
    assert header["variant"] == "deal 12"
    again = Session.resume(record)
    assert np.array_equal(again.game.state, session.game.state)
    with pytest.raises(ConfigError, match="--variant 'nope' is not a rule variant"):
        Session.start(house, record=tmp_path / "h.jsonl", variant="nope")
