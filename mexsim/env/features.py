"""The documented float feature vector of a seat's view (R17), for learning agents.

Seats and trains are counted from the observing seat: "seat +k" is the k-th seat after it
in turn order (seat +0 is the seat itself), its train "train +k"; the Mexican train comes
after them. With P seats, T tiles and N = max_pip, the vector (float32) holds, in order:

| block | length | value |
|---|---|---|
| `hand` | T | 1 for each tile in the seat's hand |
| `table` | T | 1 for each tile laid (the engine too) |
| `train_end` | P + 1 | each train's open end / N |
| `train_length` | P + 1 | tiles on each train / T |
| `train_marked` | P + 1 | 1 while the train carries a marker (R8) |
| `train_open_double` | P + 1 | 1 while the train ends in an open double (R13) |
| `hand_size` | P | tiles in each seat's hand / hand_size |
| `draws` | P | tiles each seat drew this round / T |
| `passes` | P | each seat's passes this round / T |
| `score` | P | each seat's match total of the rounds before / 100 |
| `boneyard` | 1 | tiles left to draw / T |
| `round` | 1 | the round / (N + 1) |
| `to_move` | 1 | 1 when the seat is to move |
| `first_turn` | 1 | 1 in its first turn of the round (R11), when to move |
| `duty` | 1 | 1 when its moves serve an open double (R13) |
| `laid_this_turn` | 1 | tiles it laid this turn / T, when to move |

``feature_names(rules)`` names every entry.
"""

from __future__ import annotations

import numpy as np

from mexsim.game import view as V
from mexsim.game.rules import Rules
from mexsim.jit.options import compiled


def feature_names(rules: Rules) -> list[str]:
    P, T = rules.players, rules.tiles
    names = [f"hand_{t}" for t in range(T)] + [f"table_{t}" for t in range(T)]
    trains = [f"+{k}" for k in range(P)] + ["mexican"]
    for block in ("train_end", "train_length", "train_marked", "train_open_double"):
        names += [f"{block}_{tr}" for tr in trains]
    for block in ("hand_size", "draws", "passes", "score"):
        names += [f"{block}_+{k}" for k in range(P)]
    return [*names, "boneyard", "round", "to_move", "first_turn", "duty", "laid_this_turn"]


def feature_count(rules: Rules) -> int:
    return 2 * rules.tiles + 4 * (rules.players + 1) + 4 * rules.players + 6


@compiled(cache=True, boundscheck=True)
def _fill(v, out, players, tiles, max_pip, hand_size):
    """features() into ``out``, compiled: a step's observation in microseconds."""
    me = v[V.SEAT]
    k = 0
    for base in (V.HAND, V.TABLE_TILES):
        for t in range(tiles):
            out[k] = (v[base + (t >> 6)] >> (t & 63)) & 1
            k += 1
    n_open = v[V.N_OPEN]
    for block in range(4):
        for j in range(players + 1):
            tr = (me + j) % players if j < players else players
            if block == 0:
                out[k] = v[V.TRAIN_END + tr] / max_pip
            elif block == 1:
                out[k] = v[V.TRAIN_LEN + tr] / tiles
            elif block == 2:
                out[k] = 1.0 if tr < players and v[V.TRAIN_MARKED + tr] != 0 else 0.0
            else:
                out[k] = 0.0
                for o in range(n_open):
                    if v[V.OPEN_DOUBLES + o] == tr:
                        out[k] = 1.0
            k += 1
    for block in range(4):
        for j in range(players):
            s = (me + j) % players
            if block == 0:
                out[k] = v[V.HAND_SIZE + s] / hand_size
            elif block == 1:
                out[k] = v[V.SEAT_DRAWS + s] / tiles
            elif block == 2:
                out[k] = v[V.SEAT_PASSES + s] / tiles
            else:
                out[k] = v[V.SCORE + s] / 100
            k += 1
    deciding = v[V.N_MOVES] > 0
    out[k] = v[V.BONEYARD] / tiles
    out[k + 1] = v[V.ROUND] / (max_pip + 1)
    out[k + 2] = 1.0 if deciding else 0.0
    out[k + 3] = 1.0 if deciding and v[V.FIRST_TURN] != 0 else 0.0
    out[k + 4] = 1.0 if deciding and v[V.DUTY] != 0 else 0.0
    out[k + 5] = v[V.LAID_THIS_TURN] / tiles if deciding else 0.0


def features(v: np.ndarray, rules: Rules) -> np.ndarray:
    """The feature vector (float32) of the view ``v`` (Game.view(seat): the seat is
    v[SEAT])."""
    out = np.empty(feature_count(rules), dtype=np.float32)
    _fill(v, out, rules.players, rules.tiles, rules.max_pip, rules.hand_size)
    return out
