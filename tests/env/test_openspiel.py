"""The OpenSpiel game: OpenSpiel's random_sim_test, its ISMCTS playing a seat on worlds
resample_from_infostate deals, and what each player's strings show (R17)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
import mexsim.env.openspiel  # noqa: E402, F401  (registers the game)
from mexsim.env.actions import legal_actions  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "configs" / "double-six.toml"  # double-6, two seats


def load(**params):
    return pyspiel.load_game("python_mexican_train", {"config": str(SMALL), **params})


def test_openspiels_random_sim_test_passes():
    pyspiel.random_sim_test(load(rounds=2), num_sims=3, serialize=False, verbose=False)


def test_the_whole_match_is_the_default_and_the_returns_are_minus_the_totals():
    game = load()
    rng = np.random.default_rng(3)
    state = game.new_initial_state()
    rewards = np.zeros(2)
    chance = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            assert abs(sum(probs) - 1) < 1e-9
            state.apply_action(int(rng.choice(outcomes)))
            chance += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            rewards += state.rewards()
    assert state.game.is_over()
    assert chance == 7 * 28  # every round deals the whole double-6 set
    assert list(rewards) == state.returns() == [-t for t in state.game.totals()]


def test_the_default_config_is_the_shipped_example():
    game = pyspiel.load_game("python_mexican_train")
    assert game.num_players() == 4
    assert game.num_distinct_actions() == 91 * 5


def test_openspiels_ismcts_plays_a_seat():
    from open_spiel.python.algorithms import ismcts, mcts

    game = load(rounds=1)
    rng = np.random.RandomState(5)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=15, random_state=rng
    )
    state = game.new_initial_state()
    decided = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, _ = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes)))
        elif state.current_player() == 0:
            action = bot.step(state)  # asserts each resampled root's infostate is the same
            assert action in state.legal_actions()
            state.apply_action(action)
            decided += 1
        else:
            state.apply_action(legal_actions(state.game)[state.game.suggest()])
    assert decided > 0


def test_what_a_player_sees_does_not_change_when_the_hidden_tiles_are_dealt_again():
    game = load(rounds=1)
    rng = np.random.default_rng(8)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, _ = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes)))
            continue
        p = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(int(rng.integers(1 << 30)), 0.0, 1.0)
        for _ in range(3):
            world = state.resample_from_infostate(p, sampler)
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.observation_string(p) == state.observation_string(p)
            assert world.observation_tensor(p) == state.observation_tensor(p)
            assert world.legal_actions() == state.legal_actions()
            checked += 1
        other = 1 - p
        assert not any(
            state.game.tile_text(t)
            in state.observation_string(p).split("your hand:")[1].split("\n")[0]
            for t in state.game.hand(other)
            if t not in state.game.hand(p)
        )
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 0


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match=r"rounds = 99: 1\.\.7"):
        load(rounds=99)
