"""The fixed action space of the learning environments: a move is a tile laid on a train.

An action is ``tile * trains + train``: ``tile`` a tile number (docs/rules.md: heaviest
first), ``train`` the train's number (seat s's train is s; the Mexican train is
``players``), ``trains = players + 1``. So a config has ``tiles * (players + 1)`` actions,
whatever the round, and each legal move is one action: a tile fits a train's end one way
only. The mask marks the legal moves of the seat to move.
"""

from __future__ import annotations

import numpy as np

from mexsim.game import view
from mexsim.game.rules import Rules
from mexsim.tournament.table import Game


def action_count(rules: Rules) -> int:
    """How many actions a config's table has: tiles × (players + 1)."""
    return rules.tiles * (rules.players + 1)


def legal_actions(game: Game) -> list[int]:
    """The seat to move's legal moves as actions, in the game's move order (move i of
    ``game.legal_moves()`` is the i-th); empty when no seat is deciding."""
    trains = game.rules.players + 1
    st = game.state
    return [
        int(st[view.MOVE_TILE + i]) * trains + int(st[view.MOVE_TRAIN + i])
        for i in range(game.move_count())
    ]


def action_mask(game: Game, seat: int) -> np.ndarray:
    """int8 over the actions: 1 for ``seat``'s legal moves when it is to move, else 0."""
    mask = np.zeros(action_count(game.rules), dtype=np.int8)
    if game.to_move == seat:
        mask[legal_actions(game)] = 1
    return mask


def move_index(game: Game, action: int) -> int:
    """The index among ``game.legal_moves()`` of ``action``; -1 when it is not legal."""
    try:
        return legal_actions(game).index(int(action))
    except ValueError:
        return -1


def action_text(game: Game, action: int) -> str:
    """An action in words: ``"12|7 on train 2"`` (the Mexican train by name)."""
    tile, train = divmod(int(action), game.rules.players + 1)
    where = "the Mexican train" if train == game.rules.players else f"train {train}"
    return f"{game.tile_text(tile)} on {where}"
