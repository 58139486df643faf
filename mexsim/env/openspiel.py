"""An OpenSpiel game: ``import mexsim.env.openspiel`` registers ``python_mexican_train``.

    import pyspiel
    import mexsim.env.openspiel  # registers the game
    game = pyspiel.load_game("python_mexican_train", {"config": "configs/head-to-head.toml"})

Parameters: ``config`` (a config's path; the example configs/default.toml when empty),
``match`` (whose seats' strategies ``Game.suggest`` would play: the config's match; 0),
``rounds`` (play the match's first rounds only; 0: all of them).

The players are the config's seats. Each round begins with chance nodes, one per tile
dealt (the tiles of the round's deal, uniformly among those not dealt yet): seat 0's hand
first, then seat 1's, …, then the boneyard from its top. So the deal fixes every draw of
the round: a draw takes the boneyard's next tile, as a draw at that moment uniformly
among the tiles still in the boneyard would. Actions are mexsim/env/actions.py's (tile ×
train). The game is general-sum: a player's return is minus its match total (R16's
penalties of the rounds played); its reward, minus its round's penalty when an action
ends a round.

What a player knows (R17): ``observation_string`` is ``Game.text`` (the table, its hand,
the hand sizes, the totals; its legal moves when it is to move); the
``information_state_string`` is its whole record of the match: each tile it received
and every public event (each play, draw and pass, by whom), in order, and each round's
penalties; ``observation_tensor`` is the feature vector of mexsim/env/features.py.
``resample_from_infostate`` deals what the player to move cannot see afresh with the
forward model's world dealing (``Game.redeal_hidden``: the other hands and the boneyard's
order, keeping each seat's shown lack of numbers), so OpenSpiel's ISMCTS plays a seat.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import numpy as np
import pyspiel

from mexsim.env.actions import action_count, action_text, legal_actions, move_index
from mexsim.env.features import feature_count, features
from mexsim.env.match_source import MatchSource
from mexsim.game import view as V
from mexsim.game.enums import Field
from mexsim.game.state import W_HANDS
from mexsim.tournament.table import Game

NAME = "python_mexican_train"
_PARAMS = {"config": "", "match": 0, "rounds": 0}

_GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Mexican Train (mexsim)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=V.MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMS,
)


def _default_config() -> str:
    return str(resources.files("mexsim") / "examples" / "default.toml")


class MexicanTrainGame(pyspiel.Game):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_PARAMS, **(params or {})}
        config = str(params["config"]) or _default_config()
        self.source = MatchSource(config, int(params["match"]))
        rules = self.source.rules
        self.rules = rules
        self.rounds = int(params["rounds"]) or rules.rounds
        if not 1 <= self.rounds <= rules.rounds:
            raise ValueError(f"rounds = {self.rounds}: 1..{rules.rounds} (0: all)")
        self._initial = self.source.game_of(self.source.first, given_deals=True)
        worst = rules.hand_size * 2 * rules.max_pip + rules.tiles * 2 * rules.max_pip
        super().__init__(
            _GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=action_count(rules),
                max_chance_outcomes=rules.tiles,
                num_players=rules.players,
                min_utility=-float(self.rounds * worst),
                max_utility=0.0,
                max_game_length=self.rounds * 2 * rules.tiles,
            ),
            params,
        )

    def new_initial_state(self) -> MexicanTrainState:
        return MexicanTrainState(self, self._initial.copy())

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict | None = None
    ) -> MexicanTrainObserver:
        perfect = iig_obs_type is not None and iig_obs_type.perfect_recall
        return MexicanTrainObserver(self.rules, perfect)


class MexicanTrainState(pyspiel.State):
    def __init__(self, game: MexicanTrainGame, mexsim_game: Game, *, copy_of: Any = None) -> None:
        super().__init__(game)
        self._rounds = game.rounds
        self.game = mexsim_game
        P = game.rules.players
        if copy_of is None:
            self._dealt: list[int] = []
            self._logs: list[list[str]] = [[] for _ in range(P)]
            self._hands = np.zeros((P, 4), dtype=np.int64)
            self._n_public = 0
            self._finished = 0
            self._rewards = [0.0] * P
        else:
            self._dealt = list(copy_of._dealt)
            self._logs = [list(log) for log in copy_of._logs]
            self._hands = copy_of._hands.copy()
            self._n_public = copy_of._n_public
            self._finished = copy_of._finished
            self._rewards = list(copy_of._rewards)

    # --- whose turn, what may happen

    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self.game.awaiting_deal:
            return pyspiel.PlayerId.CHANCE
        return self.game.to_move

    def is_terminal(self) -> bool:
        g = self.game
        return g.is_over() or (g.awaiting_deal and self._finished >= self._rounds)

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(legal_actions(self.game)) if player == self.game.to_move else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = set(self._dealt)
        left = [t for t in self.game.tiles_to_deal() if t not in dealt]
        return [(t, 1.0 / len(left)) for t in left]

    def _apply_action(self, action: int) -> None:
        g = self.game
        if g.awaiting_deal:
            self._dealt.append(int(action))
            if len(self._dealt) == len(g.tiles_to_deal()):
                g.deal_tiles(self._dealt)
                self._dealt = []
                self._observe()
            return
        rnd, before = g.round, g.totals()
        g.play(move_index(g, action))
        self._rewards = [float(b - a) for b, a in zip(before, g.totals(), strict=True)]
        self._observe(rnd)

    def _observe(self, rnd: int | None = None) -> None:
        """Each seat's record moves on: the public events since the last, the tiles each
        seat received, and the penalties once the round (``rnd``, just played) ended."""
        g, st = self.game, self.game.state
        n = int(st[V.HISTORY_LEN])
        events = [f"e{int(st[V.HISTORY + k])}" for k in range(self._n_public, n)]
        self._n_public = n
        for s, log in enumerate(self._logs):
            log.extend(events)
            now = st[W_HANDS + 4 * s : W_HANDS + 4 * s + 4]
            got = now & ~self._hands[s]
            self._hands[s] = now
            tiles = [64 * w + b for w in range(4) for b in range(64) if (int(got[w]) >> b) & 1]
            if tiles:
                log.append("got " + " ".join(g.tile_text(t) for t in tiles))
        if rnd is not None and (g.is_over() or g.awaiting_deal):
            line = f"round {rnd} over: " + " ".join(
                str(int(p)) for p in g.results()[rnd, :, Field.penalty]
            )
            for log in self._logs:
                log.append(line)
            self._n_public = 0
            self._hands[:] = 0
            self._finished += 1

    def returns(self) -> list[float]:
        """Minus each seat's match total so far (the rounds played)."""
        return [-float(t) for t in self.game.totals()]

    def rewards(self) -> list[float]:
        """Minus each seat's penalty of the round the last player action ended; else 0
        (a deal's chance nodes keep them, as OpenSpiel counts rewards at decisions)."""
        return list(self._rewards)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {self.game.tile_text(int(action))}"
        return action_text(self.game, action)

    def __str__(self) -> str:
        g = self.game
        hands = "; ".join(
            f"seat {s}: " + " ".join(g.tile_text(t) for t in g.hand(s))
            for s in range(g.rules.players)
        )
        return f"{g!r} totals {g.totals()} hands {hands} dealt {len(self._dealt)}"

    # --- copies and possible worlds

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Any
    ) -> MexicanTrainState:
        """A state the player to move cannot tell from this one: what it cannot see dealt
        afresh (Game.redeal_hidden), from four draws of ``probability_sampler``."""
        if player_id != self.game.to_move:
            raise ValueError(f"player {player_id} is not to move: resample at its decision")
        words = [int(probability_sampler() * 2.0**53) for _ in range(4)]
        new = MexicanTrainState(self.get_game(), self.game.redeal_hidden(words), copy_of=self)
        # the other seats' records: what they hold now, as received (their draws' order
        # belongs to the world dealt, not to what the player knows)
        for s in range(self.game.rules.players):
            if s != player_id:
                new._hands[s] = new.game.state[W_HANDS + 4 * s : W_HANDS + 4 * s + 4]
                new._logs[s].append(
                    "holds " + " ".join(new.game.tile_text(t) for t in new.game.hand(s))
                )
        return new


class MexicanTrainObserver:
    """OpenSpiel's observer: strings (Game.text; the record) and the feature tensor."""

    def __init__(self, rules: Any, perfect_recall: bool) -> None:
        self.rules = rules
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(feature_count(rules), np.float32)
        self.dict = {"features": self.tensor}

    def set_from(self, state: MexicanTrainState, player: int) -> None:
        self.tensor[:] = features(state.game.view(player), self.rules)

    def string_from(self, state: MexicanTrainState, player: int) -> str:
        if self.perfect_recall:
            return f"seat {player}\n" + "\n".join(state._logs[player])
        return state.game.text(player)


pyspiel.register_game(_GAME_TYPE, MexicanTrainGame)
