"""Game's deals given from outside, its copies and its redealt worlds: what the
OpenSpiel game's chance nodes and ISMCTS's resampling are built on."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from mexsim.game import step
from mexsim.game import view as V
from mexsim.game.state import W_BONEYARD
from mexsim.tournament.config import config_schedule, load_config
from mexsim.tournament.lineup import match_policies
from mexsim.tournament.table import Game

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ["default.toml", "standard.toml", "house-rules.toml"]


def given(path: Path, match: int) -> Game:
    config = load_config(path)
    return Game(
        config.variant_rules(0),
        match_policies(config, match),
        config.seed,
        match,
        config_schedule(config).deal_of(match),
        given_deals=True,
    )


def seeded_order(game: Game) -> list[int]:
    """The order the core's shuffle gives the awaited round."""
    scratch = game.state.copy()
    n = step.shuffle_deal(scratch, game._seed, game.deal, game._awaiting)
    return [int(t) for t in scratch[W_BONEYARD : W_BONEYARD + n]]


@pytest.mark.parametrize("name", CONFIGS)
def test_the_seeded_deals_given_from_outside_play_the_cores_match(name: str):
    path = ROOT / "configs" / name
    for match in range(2):
        ref = Game.from_config(path, match)
        game = given(path, match)
        while not game.is_over():
            assert game.to_move == -1 and game.awaiting_deal
            game.deal_tiles(seeded_order(game))
            while not game.awaiting_deal and not game.is_over():
                assert game.to_move == ref.to_move
                i = ref.suggest()
                assert game.suggest() == i
                ref.play(i)
                game.play(i)
        assert ref.is_over()
        assert np.array_equal(game.results(), ref.results())
        assert game.trace() == ref.trace()[1:]  # (no header: not from_config)


def test_a_deal_must_order_the_rounds_tiles_once_each():
    game = given(ROOT / "configs" / "standard.toml", 0)  # engine set aside: not dealt
    tiles = game.tiles_to_deal()
    assert len(tiles) == game.rules.tiles - 1
    assert int(step.engine_tile(game.state, 0)) not in tiles
    for bad in (tiles[:-1], [*tiles[:-1], tiles[0]], [*tiles, 999]):
        with pytest.raises(ValueError, match="once each"):
            game.deal_tiles(bad)
    with pytest.raises(ValueError, match="waits for its deal"):
        game.suggest()
    with pytest.raises(ValueError, match="waits for its deal"):
        game.play(0)
    game.deal_tiles(tiles[::-1])
    with pytest.raises(ValueError, match="no round waits"):
        game.deal_tiles(tiles)
    assert not game.awaiting_deal and game.to_move >= 0


def test_a_copy_goes_on_alone_and_ends_as_the_original():
    game = Game.from_config(ROOT / "configs" / "default.toml", 1)
    for _ in range(25):
        game.play(game.suggest())
    game.suggest()  # a suggestion pending: its stream's move goes with the copy
    twin = copy.deepcopy(game)
    assert twin is not game and twin.state is not game.state
    for g in (game, twin):
        while not g.is_over():
            g.play(g.suggest())
    assert np.array_equal(twin.results(), game.results())
    assert twin.trace() == game.trace()


def test_a_redealt_world_keeps_all_the_mover_sees_and_deals_the_rest_afresh():
    game = Game.from_config(ROOT / "configs" / "default.toml", 2)
    for _ in range(40):
        game.play(game.suggest())
    seat = game.to_move
    P = game.rules.players
    hidden = {s: set(game.hand(s)) for s in range(P) if s != seat}
    differs = 0
    for k in range(20):
        world = game.redeal_hidden([k, 17, 23, 99])
        assert world.to_move == seat
        assert world.text(seat) == game.text(seat)
        assert world.legal_moves() == game.legal_moves()
        mine = world.view(seat)
        theirs = game.view(seat)
        keep = np.ones(V.SIZE, dtype=bool)
        keep[V.RNG : V.RNG + 4] = False
        keep[V.NOTES : V.NOTES + V.MAX_MEMORY] = False
        assert np.array_equal(mine[keep], theirs[keep])
        unseen = set().union(*hidden.values()) | set(range(game.rules.tiles))
        for s in hidden:
            assert len(world.hand(s)) == len(game.hand(s))
            assert set(world.hand(s)) <= unseen - set(game.hand(seat))
        differs += any(set(world.hand(s)) != hidden[s] for s in hidden)
        while not world.is_over():  # a world plays on to the match's end
            world.play(world.suggest())
        with pytest.raises(ValueError, match="possible world"):
            world.trace()
    assert differs >= 18
    # the original is untouched
    assert {s: set(game.hand(s)) for s in hidden} == hidden


def test_redealing_needs_a_seat_to_move():
    game = Game.from_config(ROOT / "configs" / "default.toml", 0)
    while not game.is_over():
        game.play(game.suggest())
    with pytest.raises(ValueError, match="no seat is deciding"):
        game.redeal_hidden([1, 2, 3, 4])
