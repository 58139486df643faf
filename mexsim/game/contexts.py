"""The numba kernels' arguments, bundled by what they are (vectorbt passes its
``OrderContext`` the same way).

Named tuples are numba values: a kernel takes one as an argument, builds one, or
unpacks it into locals, and the compiled turn loop is the same as with loose arguments.
They are built once per call from Python (mexsim/game/play.py) and once per block of
matches inside the kernels. Passing one to a compiled function costs two atomic
reference counts per array in it, so the kernels pass them once a match, not once a
round or a turn (docs/speed-history.md). The
tuple of strategy functions stays a separate argument: it is what makes the kernels'
cache hold for every table (mexsim/game/kernel.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class RuleNumbers(NamedTuple):
    """The rule options a kernel reads (mexsim/game/rules.py ``Rules``), as numbers."""

    players: int  # P; the Mexican train is train P
    max_pip: int  # N of the double-N set; the match has N+1 rounds (R4)
    hand_size: int  # H, tiles dealt to each seat (R3)
    first_turn_train: bool  # R11: a first turn may lay a chain on the own train
    set_aside: bool  # R5: the engine is set aside, not held
    draw_to_start: bool  # R11: keep drawing until the own train is started
    double_blank_points: int  # R16: what 0|0 left in a hand counts
    draw_limit: int  # R18: tiles drawn for one obligation to play (the set's size: no limit)
    mexican_train: bool  # R19: the table has a Mexican train (train P)


class TileTables(NamedTuple):
    """The tile set of R1 (mexsim/game/tiles.py): tile t is lo[t]|hi[t]."""

    lo: np.ndarray  # int64[T]
    hi: np.ndarray  # int64[T]
    pips: np.ndarray  # int64[T]: face value
    number_mask: np.ndarray  # uint64[N+1, WORDS]: the tiles carrying number n


class PlayerArrays(NamedTuple):
    """Who plays how, one row per player (play_matches) or per seat (play_match and
    below): row i plays ``funcs[func[i]]`` with params[i, :n_params[i]] and keeps
    n_memory[i] notes."""

    func: np.ndarray  # int64[n]: index into the kernels' tuple of strategy functions
    params: np.ndarray  # float64[n, view.MAX_PARAMS]
    n_params: np.ndarray  # int64[n]
    n_memory: np.ndarray  # int64[n]
    calling: np.ndarray  # int64[n]: how the kernel asks for a move (enums.Calling)


class RoundScratch(NamedTuple):
    """The working arrays of a block of matches, reused match after match and round
    after round (mexsim/game/kernel.py; kernel.start_match resets them)."""

    rng: np.ndarray  # uint64[P, 4]: each seat's strategy stream
    boneyard: np.ndarray  # int64[T]: the deal's order
    pbuf: np.ndarray  # float64[view.MAX_PARAMS]: the mover's params, as shown
    memory: np.ndarray  # int64[P, view.MAX_MEMORY]: each seat's notes
    st: np.ndarray  # int64[view.SIZE + kernel.PRIVATE_SIZE]: the private table, laid out as
    # the view, then the kernel's own per-seat counters, per-train masks and hands


class Outputs(NamedTuple):
    """What a kernel writes for one match: the decision view (a work buffer, left
    holding the last decision's seat, match and round for error messages), the results
    res[round, seat, enums.Field], the event rows ev[k, enums.EventField] and the
    status[enums.Status] of a strategy's impossible choice."""

    # not "view": numba refuses an attribute of that name on anything but an array
    view_array: np.ndarray
    res: np.ndarray
    ev: np.ndarray
    status: np.ndarray
