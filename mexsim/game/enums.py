"""The numba core's integer codes, grouped by what they number (vectorbt's enums style).

Each group is a NamedTuple *instance*, so code reads ``Event.play`` or
``Field.penalty``, and numba compiles an attribute of a global tuple to a constant:
the kernels pay nothing for the names. The ``N_*`` sizes are the row widths of the
arrays the kernels fill; they follow from the groups, so a new field cannot be
forgotten in its size.
"""

from __future__ import annotations

from typing import NamedTuple


class EventKinds(NamedTuple):
    """The kind of an event row (EventField.kind): what a recorded trace line says."""

    deal_hand: int = 0  # a tile dealt to a seat's hand
    deal_boneyard: int = 1  # a tile left in the boneyard, in drawing order
    engine: int = 2  # the engine is set; the seat is the first to play (R5)
    draw: int = 3
    play: int = 4  # the tile laid on train EventField.extra
    pass_: int = 5  # "pass" is a keyword
    round_end: int = 6  # EventField.extra says why: a Reason


Event = EventKinds()


class EventFields(NamedTuple):
    """The columns of an event row, ev[k, :]."""

    kind: int = 0  # an Event
    round: int = 1
    seat: int = 2  # -1 when no seat acts (the boneyard, the round's end)
    tile: int = 3  # -1 when no tile moves
    extra: int = 4  # the train of a play, the Reason of a round's end, else 0


EventField = EventFields()
N_EVENT_FIELDS = len(EventField)


class Reasons(NamedTuple):
    """Why a round ended (Event.round_end)."""

    out: int = 0  # R14: a seat played its last tile
    blocked: int = 1  # R15: no one can play and the boneyard is empty


Reason = Reasons()


class Fields(NamedTuple):
    """The result fields of a round and seat, res[..., round, seat, field]: the
    rounds.parquet columns of the same names."""

    penalty: int = 0
    tiles_left: int = 1
    went_out: int = 2
    blocked: int = 3
    tiles_played: int = 4
    draws: int = 5
    first: int = 6  # 1 for the seat that moved first (placed the engine, R5)
    turns: int = 7  # turns the seat took (placing the engine is none)
    passes: int = 8  # its turns that ended in a pass (R10)


Field = Fields()
N_FIELDS = len(Field)


class Scopes(NamedTuple):
    """Which trains a move list covers (docs/rules.md, "Move order")."""

    oldest_double: int = 0  # R13: an open double must be served
    own_train: int = 1  # R11: the first turn plays on the own train only
    usable_trains: int = 2  # own, Mexican, then marked trains clockwise (R7)


Scope = Scopes()


class Outcomes(NamedTuple):
    """How a turn left the round."""

    goes_on: int = 0
    out: int = 1  # R14
    blocked: int = 2  # R15


Outcome = Outcomes()


class Dispatches(NamedTuple):
    """How a kernel asks strategies for a move: as each seat's Calling says (always,
    outside benchmarks); or, for benchmarks, greedy compiled in, with the view filled as
    for a call (the "hard-wired call" baseline of the dispatch cost) or without it (the
    engine alone); or every seat called through its plug-in, the built-in greedy,
    random, early_doubles and longest_train too (the cost of a call); or called so, with
    the view's EXPLAINING set, for `mexsim replay --moves` (the built-ins then print why
    they chose)."""

    plugin: int = 0
    hardwired: int = 1
    engine_only: int = 2
    called: int = 3
    explained: int = 4


Dispatch = Dispatches()


class Callings(NamedTuple):
    """How the kernel asks one seat's strategy for a move (PlayerArrays.calling)."""

    # a user's file: called, then whatever it wrote over the view's trains and seats is
    # undone before anyone else sees the view (R17)
    user: int = 0
    # a built-in, which writes nothing of the view but its random stream and notes
    # (tests/strategy/test_strategies.py): called, nothing to undo
    builtin: int = 1
    # the built-in greedy: its rule (the lowest tile number, the earliest move among
    # equals) is one loop over the listed moves, made in the kernel without filling the
    # view or calling (tests/strategy/test_plugins.py plays it against a user's copy)
    greedy_in_kernel: int = 2
    # the built-in random: one draw from the seat's own stream, bounded by the number of
    # moves, made in the kernel as greedy's rule is (the same stream, the same draw:
    # tests/strategy/test_plugins.py plays it against a user's copy)
    random_in_kernel: int = 3
    # a built-in whose decide reads nothing of the view but what the kernel's private
    # table holds where the view would (the step's words, the moves, the trains, the
    # tile tables): its own decide called on that table, given the mover's hand,
    # parameters and notes, without filling the view (early_doubles:
    # tests/strategy/test_plugins.py plays it against a user's copy)
    builtin_on_table: int = 4
    # the built-in longest_train at pip_weight 0: its plan kept in the seat's notes and
    # its rule applied to the private table by its twin (mexsim/game/kernel_longest_train.py),
    # 4-5 % of a match of 4 x longest_train faster than its decide called on the table;
    # played against a user's copy by the same test
    longest_train_in_kernel: int = 5


Calling = Callings()
# the shipped strategies whose rule the kernel makes itself under Dispatch.plugin (every
# run), never calling their decide: a kernel slot holds a stand-in for them
# (mexsim/game/stand_in.py), and their decide compiles when something else calls it
IN_KERNEL_CALLINGS = frozenset(
    {Calling.greedy_in_kernel, Calling.random_in_kernel, Calling.longest_train_in_kernel}
)


class StatusFields(NamedTuple):
    """status[...]: a strategy that chose an impossible move (after a kernel returns), and
    the strategy deciding now (while it runs)."""

    # BAD_INDEX when a strategy returned an index outside its legal moves (choice,
    # n_moves below), BAD_NOTE when it wrote a note past its MEMORY (choice: the note,
    # n_moves: its MEMORY)
    bad_choice: int = 0
    match: int = 1
    round: int = 2
    seat: int = 3
    choice: int = 4  # the index it returned
    n_moves: int = 5  # how many legal moves it had
    # while the kernel runs (read by mexsim/game/stall_watch.py from another thread):
    deciding: int = 6  # 1 while a strategy's decide runs (the seat, match and round above)
    calls: int = 7  # decide calls begun so far (a counter kept here, not in a local of the
    # kernel's: that measured 5-7 % slower, its loops laid out otherwise)


Status = StatusFields()
BAD_INDEX = 1
BAD_NOTE = 2
N_STATUS = len(Status)
