"""The step's Python face (mexsim.tournament.table.Game) plays exactly the matches the
core plays: every shipped config, every golden config (every built-in strategy, every
preset, duplicate deals, a pool, house rules), every rule variant; and `mexsim run`'s
own matches.parquet."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.game import step
from mexsim.game import view as V
from mexsim.game.play import play_match_results
from mexsim.game.state import W_BONEYARD, W_BONEYARD_END, W_DRAWN, W_HANDS
from mexsim.strategy.builtin.greedy import decide as greedy
from mexsim.tournament.config import config_schedule, load_config
from mexsim.tournament.lineup import match_policies
from mexsim.tournament.table import Game

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "configs").glob("*.toml")) + sorted(
    (ROOT / "tests" / "golden").glob("*.toml")
)


def played_out(game: Game) -> Game:
    while not game.is_over():
        game.play(game.suggest())
    return game


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_game_played_by_its_strategies_is_the_cores_match(path: Path):
    config = load_config(path)
    matches = 1 if "search" in path.stem else 3
    for variant in range(max(1, len(config.variants))):
        for match in range(min(matches, config.matches)):
            game = played_out(Game.from_config(path, match, variant=variant))
            res, _ = play_match_results(
                config.variant_rules(variant),
                match_policies(config, match),
                config.seed,
                match,
                deal=config_schedule(config).deal_of(match),
            )
            assert np.array_equal(game.results(), res), (path.name, variant, match)
            assert game.totals() == [int(x) for x in res[:, :, 0].sum(axis=0)]
            assert game.to_move == -1


def test_the_totals_are_those_mexsim_run_wrote(tmp_path: Path):
    out = tmp_path / "results"
    result = CliRunner().invoke(
        app, ["run", "configs/default.toml", "--matches", "6", "--out", str(out), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    written = pd.read_parquet(out / "matches.parquet")
    for match in range(6):
        game = played_out(Game.from_config("configs/default.toml", match))
        rows = written[written["match"] == match].sort_values("seat")
        assert rows["total"].tolist() == game.totals()


def test_a_plain_python_decide_chooses_on_the_view_as_the_compiled_one():
    game = Game.from_config("configs/default.toml", 0)
    asked = 0
    while not game.is_over() and asked < 200:
        seat = game.to_move
        if game.players[seat].name == "greedy" and game.move_count() > 1:
            assert greedy.py_func(game.view(seat), game.params(seat)) == game.suggest()
            asked += 1
        game.play(game.suggest())
    assert asked > 0


def test_suggest_asked_twice_answers_the_same_and_play_checks_the_index():
    game = Game.from_config("configs/default.toml", 1)
    while game.move_count() < 2:
        game.play(0)
    first = game.suggest()
    assert game.suggest() == first
    with pytest.raises(ValueError, match="not legal"):
        game.play(game.move_count())
    with pytest.raises(ValueError, match="not at the table"):
        game.view(9)


def test_legal_moves_read_as_the_table_does():
    game = Game.from_config("configs/default.toml", 0)
    seat = game.to_move
    moves = game.legal_moves()
    assert len(moves) == game.move_count() >= 1
    for (matching, _), train in moves:
        assert train in {"own", "mexican"} | {f"seat {s}" for s in range(4)}
        number = {"own": seat, "mexican": 4}.get(train)
        if number is not None:
            assert matching == game.state[V.TRAIN_END + number]
    text = game.text(seat)
    assert "your legal moves" in text and "boneyard" in text


def test_a_view_shows_nothing_of_the_hidden_tiles():
    """R17: shuffling every tile a seat cannot see among the other hands (their sizes
    kept) and the boneyard leaves that seat's view as it was, word for word."""
    game = Game.from_config("configs/default.toml", 2)
    rng = np.random.default_rng(7)
    for _ in range(40):
        game.play(game.suggest())
    seat = game.to_move
    before = game.view(seat)
    st = game.state
    players = game.rules.players
    hidden = [
        t
        for s in range(players)
        if s != seat
        for t in range(game.rules.tiles)
        if step.holds(st, W_HANDS + 4 * s, t)
    ]
    hidden += [int(st[W_BONEYARD + k]) for k in range(st[W_DRAWN], st[W_BONEYARD_END])]
    rng.shuffle(hidden)
    at = 0
    for s in range(players):
        if s == seat:
            continue
        for w in range(4):
            st[W_HANDS + 4 * s + w] = 0
        for _ in range(st[V.HAND_SIZE + s]):
            step.give_tile(st, s, hidden[at])
            at += 1
    for k in range(st[W_DRAWN], st[W_BONEYARD_END]):
        st[W_BONEYARD + k] = hidden[at]
        at += 1
    assert at == len(hidden)
    assert np.array_equal(game.view(seat), before)
