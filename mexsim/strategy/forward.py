"""A forward model for compiled strategies: play the rest of a round in a world that
agrees with everything the mover sees (search players).

A *world* is one int64 array of WORLD_SIZE words. Its first view.SIZE words are laid
out as the view (mexsim/game/view.py), so that a rollout policy — any ``decide(view,
params)``, a built-in's or your own — is called with the world as its view; beyond
them, what only the world knows: every seat's hand, the boneyard's order, each seat's
random stream in the world, and the round's result once played out. Inside a strategy::

    world = new_world()
    world_from_view(view, world)           # the public table, the mover's hand and turn
    deal_world(view, world, True)          # the hidden tiles, drawn from the mover's stream
    penalty = play_out(world, move_tile(view, i), move_train(view, i), policy, params)

``play_out`` lays the mover's move and plays on exactly as the core does (docs/rules.md):
the rest of the turn (R12's follow-up after a double, the R11 "train" chain, R13's
duty, R14's going out), then every turn to the round's end, each seat choosing with
``policy(world, params)`` (one legal move: played without asking). It returns the
mover's penalty; ``world_penalty(world, seat)`` gives each seat's.

Fair by construction (R17): a world is built from the view alone; the hidden tiles are
dealt from the mover's own random stream, uniformly among the tiles it cannot see,
keeping each seat's shown lack of numbers when ``infer`` (``lacking_numbers``: a seat
that drew or passed while a number was playable for it holds none of it, until it drew
again). The hands are filled most constrained seat first, each taking the first tiles
of one shuffle that it may hold: uniform for one constrained seat, nearly so for
several. When DEAL_TRIES shuffles find no world that way, the tiles are dealt without
the constraints and ``world_unconstrained(world)`` is 1.

Exactness is tested against the reference engine (tests/strategy/test_forward.py): at
every decision of recorded rounds under every preset, a world given the true hidden
tiles, boneyard order and streams, played out with the strategies actually playing,
ends as the real round did.

A rollout policy is shown the world's view part as its view, with the seat's stream
of the world (``random_below`` works) and the seat's notes in the world (the mover's
own from the view, the others' zero: they are theirs). It is shown a copy of its own
(W_VIEW), refreshed before each call: what it writes over it reaches no world, so a
policy that scribbles cannot make a round go wrong or never end (``play_out_trusting``
skips the copy, for the built-ins). A choice outside the legal moves plays the first
one and is counted (``world_bad_choices``), so a rollout never stops a decision; the
built-in ``search`` then stops the run with the rollout's name.

``play_out`` and the policy's call are inlined into the caller: the policy is then
called by name from the caller's own code. Passed on to a compiled function as a value,
a dispatcher makes numba refuse to cache the caller ("uses dynamic globals"), and a
strategy would compile afresh on every run.
"""

from __future__ import annotations

import numpy as np

from mexsim.game.rng import xoshiro_bounded, xoshiro_next
from mexsim.game.state import (
    OUTCOME_BLOCKED,
    OUTCOME_OUT,
    W_BAD_CHOICES,
    W_BONEYARD,
    W_BONEYARD_END,
    W_DRAWN,
    W_HANDS,
    W_HISTORY_END,
    W_LEFT,
    W_MOVER,
    W_NOTES,
    W_OUTCOME,
    W_PENALTY,
    W_PLAYED,
    W_PUBLIC,
    W_SCRATCH,
    W_SHOWN,
    W_SHOWN_HISTORY,
    W_SHOWN_MOVES,
    W_STREAMS,
    W_UNCONSTRAINED,
    W_VIEW,
    W_WENT_OUT,
    WORLD_SIZE,
)
from mexsim.game.step import apply, apply_move, give_tile, holds, resume_turn, round_over
from mexsim.game.view import (
    H_PLAY,
    HAND,
    HAND_SIZE,
    HISTORY,
    HISTORY_LEN,
    MAX_MEMORY,
    MAX_MOVES,
    MAX_PLAYERS,
    MAX_TILES,
    MAX_WORDS,
    MOVE_TILE,
    MOVE_TRAIN,
    N_MOVES,
    NOTES,
    PLAYERS,
    RNG,
    SEAT,
    SIZE,
    TABLE_TILES,
    TILE_HI,
    TILE_LO,
    TILES,
    TRAIN_TILES,
)
from mexsim.jit.bits import popcount
from mexsim.jit.options import compiled
from mexsim.strategy.public_table import lacking_numbers

# the names a search player reaches the world's words and the step by (mexsim/game/state.py,
# mexsim/game/step.py), from here as before
__all__ = [
    "OUTCOME_BLOCKED",
    "OUTCOME_OUT",
    "WORLD_SIZE",
    "W_BAD_CHOICES",
    "W_BONEYARD",
    "W_BONEYARD_END",
    "W_DRAWN",
    "W_HANDS",
    "W_LEFT",
    "W_OUTCOME",
    "W_PENALTY",
    "W_PLAYED",
    "W_SCRATCH",
    "W_STREAMS",
    "W_WENT_OUT",
    "apply",
    "apply_move",
    "deal_world",
    "give_tile",
    "lacking_numbers",
    "legal_move_count",
    "new_world",
    "play_out",
    "play_out_as",
    "play_out_trusting",
    "round_over",
    "set_note",
    "set_stream",
    "stack_boneyard",
    "whose_turn",
    "world_bad_choices",
    "world_from_view",
    "world_penalty",
    "world_unconstrained",
]

# shuffles deal_world tries for a world that keeps every seat's shown lacks
DEAL_TRIES = 64

_u = np.uint64


@compiled(cache=True, refcounts=True)  # whatever its caller's options: it makes an array
def new_world():
    """A world's array (WORLD_SIZE words), to be filled by world_from_view."""
    return np.zeros(WORLD_SIZE, dtype=np.int64)


# inlined, as the forward model's other functions a strategy calls: in a user's decide,
# compiled with the bounds check, an array or index of theirs that is not what it should
# be raises IndexError; a built-in's (trusted) pays nothing for it
@compiled(cache=True, inline="always")
def world_from_view(view, world):
    """Make ``world`` the public table and the mover's hand and turn of ``view``, the
    others' hands empty and the boneyard unknown (deal_world or give_tile fill them)."""
    for k in range(MOVE_TILE):
        world[k] = view[k]
    n_hist = view[HISTORY_LEN]
    for k in range(TRAIN_TILES, HISTORY + n_hist):
        world[k] = view[k]
    for k in range(HISTORY + n_hist, max(world[W_HISTORY_END], HISTORY + n_hist)):
        world[k] = 0  # what a rollout in this array wrote before
    world[W_HISTORY_END] = HISTORY + n_hist
    # the mover's legal moves: the world stands at its decision (mexsim/game/step.py)
    nm = min(max(view[N_MOVES], 0), MAX_MOVES)
    for k in range(nm):
        world[MOVE_TILE + k] = view[MOVE_TILE + k]
        world[MOVE_TRAIN + k] = view[MOVE_TRAIN + k]
    for k in range(W_HANDS, W_SCRATCH):
        world[k] = 0
    mover = view[SEAT]
    for k in range(MAX_MEMORY):  # its own notes; the others' are theirs (zero here)
        world[W_NOTES + MAX_MEMORY * mover + k] = view[NOTES + k]
    for w in range(MAX_WORDS):
        world[W_HANDS + 4 * mover + w] = view[HAND + w]
    world[W_BONEYARD_END] = 0
    world[W_MOVER] = mover
    world[W_WENT_OUT] = -1
    world[W_PUBLIC] = 1
    resume_turn(world)
    for i in range(n_hist):  # the tiles each seat has laid this round
        entry = view[HISTORY + i]
        if entry & 15 == H_PLAY:
            world[W_PLAYED + ((entry >> 4) & 15)] += 1


@compiled(cache=True, inline="always")
def stack_boneyard(world, tile):
    """Put ``tile`` at the bottom of the world's boneyard (drawn after those before it)."""
    world[W_BONEYARD + world[W_BONEYARD_END]] = tile
    world[W_BONEYARD_END] += 1


@compiled(cache=True, inline="always")
def set_stream(world, seat, s0, s1, s2, s3):
    """``seat``'s random stream in the world (xoshiro256** words, as int64)."""
    world[W_STREAMS + 4 * seat] = s0
    world[W_STREAMS + 4 * seat + 1] = s1
    world[W_STREAMS + 4 * seat + 2] = s2
    world[W_STREAMS + 4 * seat + 3] = s3


@compiled(cache=True, inline="always")
def set_note(world, seat, k, value):
    """Word ``k`` of ``seat``'s notes in the world (its own, as its strategy keeps them;
    zero for the other seats in a world built from a view)."""
    world[W_NOTES + MAX_MEMORY * seat + k] = value


@compiled(cache=True, boundscheck=True)
def _carries(world, t, numbers):
    return ((numbers >> world[TILE_LO + t]) & 1) | ((numbers >> world[TILE_HI + t]) & 1) != 0


# (reference counts: it makes arrays, whatever its caller's options, as new_world)
@compiled(cache=True, refcounts=True, boundscheck=True)
def deal_world(view, world, infer):
    """Deal the tiles the mover cannot see into the other hands (their sizes) and the
    boneyard, from the mover's stream in ``view`` (advanced), keeping each seat's shown
    lack of numbers when ``infer``; also gives every seat a stream of the world drawn
    from it. Returns 1 when the constraints were dropped (no world found with them in
    DEAL_TRIES shuffles)."""
    players = world[PLAYERS]
    mover = world[W_MOVER]
    s0 = _u(view[RNG])
    s1 = _u(view[RNG + 1])
    s2 = _u(view[RNG + 2])
    s3 = _u(view[RNG + 3])
    for s in range(players):
        for k in range(4):
            x, s0, s1, s2, s3 = xoshiro_next(s0, s1, s2, s3)
            world[W_STREAMS + 4 * s + k] = np.int64(x)
    hidden = 0
    for t in range(world[TILES]):
        if not holds(world, TABLE_TILES, t) and not holds(view, HAND, t):
            world[W_SCRATCH + hidden] = t
            hidden += 1
    lacks = np.zeros(MAX_PLAYERS, dtype=np.int64)
    order = np.full(MAX_PLAYERS, -1, dtype=np.int64)
    taken = np.zeros(MAX_TILES, dtype=np.bool_)
    constrained = _seats_by_lacks(view, world, lacks, order) if infer else 0
    dropped = 1 if infer else 0
    for _ in range(DEAL_TRIES if infer else 1):
        for i in range(hidden - 1, 0, -1):  # Fisher-Yates, as the core shuffles a deal
            j, s0, s1, s2, s3 = xoshiro_bounded(i + 1, s0, s1, s2, s3)
            tmp = world[W_SCRATCH + i]
            world[W_SCRATCH + i] = world[W_SCRATCH + j]
            world[W_SCRATCH + j] = tmp
        if infer and _deal_keeping_lacks(world, hidden, lacks, order, constrained, taken):
            dropped = 0
            break
    if not infer or dropped:
        _deal_in_order(world, hidden, players, mover)
    view[RNG] = np.int64(s0)
    view[RNG + 1] = np.int64(s1)
    view[RNG + 2] = np.int64(s2)
    view[RNG + 3] = np.int64(s3)
    world[W_UNCONSTRAINED] = dropped
    return dropped


@compiled(cache=True, boundscheck=True)
def _empty_other_hands(world, players, mover):
    for s in range(players):
        if s != mover:
            for w in range(MAX_WORDS):
                world[W_HANDS + 4 * s + w] = 0


@compiled(cache=True, boundscheck=True)
def _deal_in_order(world, hidden, players, mover):
    """The shuffled hidden tiles to the other seats in seat order, then the boneyard."""
    _empty_other_hands(world, players, mover)
    k = 0
    for s in range(players):
        if s == mover:
            continue
        for _ in range(world[HAND_SIZE + s]):
            give_tile(world, s, world[W_SCRATCH + k])
            k += 1
    world[W_DRAWN] = 0
    world[W_BONEYARD_END] = 0
    while k < hidden:
        stack_boneyard(world, world[W_SCRATCH + k])
        k += 1


@compiled(cache=True, boundscheck=True)
def _seats_by_lacks(view, world, lacks, order):
    """Each other seat's shown lack of numbers into ``lacks``, and the seats into
    ``order``, most lacking numbers first (stable); returns how many. Once a deal:
    lacking_numbers replays the round's history."""
    n = 0
    for s in range(world[PLAYERS]):
        if s != world[W_MOVER]:
            lacks[s] = lacking_numbers(view, s)
            order[n] = s
            n += 1
    for a in range(n):  # insertion sort
        b = a
        while b > 0 and popcount(lacks[order[b]]) > popcount(lacks[order[b - 1]]):
            order[b], order[b - 1] = order[b - 1], order[b]
            b -= 1
    return n


@compiled(cache=True, boundscheck=True)
def _deal_keeping_lacks(world, hidden, lacks, order, n, taken):
    """Each seat of ``order``, in turn, takes the first tiles of the shuffle it may hold;
    the rest is the boneyard in shuffle order. False when a seat finds too few (then
    nothing is kept of this attempt)."""
    _empty_other_hands(world, world[PLAYERS], world[W_MOVER])
    for k in range(hidden):
        taken[k] = False
    for a in range(n):
        s = order[a]
        need = world[HAND_SIZE + s]
        for k in range(hidden):
            if need == 0:
                break
            t = world[W_SCRATCH + k]
            if not taken[k] and not _carries(world, t, lacks[s]):
                taken[k] = True
                give_tile(world, s, t)
                need -= 1
        if need > 0:
            return False
    world[W_DRAWN] = 0
    world[W_BONEYARD_END] = 0
    for k in range(hidden):
        if not taken[k]:
            stack_boneyard(world, world[W_SCRATCH + k])
    return True


@compiled(cache=True, inline="always")
def _choose(world, policy, params, guarded):
    """The choice of the seat to move among the listed moves (two or more), by ``policy``
    with the world as its view: its own copy of the view part when ``guarded`` (what it
    writes there reaches no world), else the world itself (a built-in, trusted to write
    none of it). The step wrote the turn's words (SEAT, N_MOVES, FIRST_TURN, DUTY, ...);
    the seat's own hand, stream and notes are put in here."""
    seat = world[SEAT]
    nm = world[N_MOVES]
    for w in range(MAX_WORDS):
        world[HAND + w] = world[W_HANDS + 4 * seat + w]
    for k in range(4):
        world[RNG + k] = world[W_STREAMS + 4 * seat + k]
    notes = W_NOTES + MAX_MEMORY * seat
    for k in range(MAX_MEMORY):
        world[NOTES + k] = world[notes + k]
    if guarded:
        _show(world, nm)
        view = world[W_VIEW : W_VIEW + SIZE]
        i = policy(view, params)
        for k in range(4):
            world[W_STREAMS + 4 * seat + k] = view[RNG + k]
        for k in range(MAX_MEMORY):
            world[notes + k] = view[NOTES + k]
    else:
        i = policy(world, params)
        for k in range(4):
            world[W_STREAMS + 4 * seat + k] = world[RNG + k]
        for k in range(MAX_MEMORY):
            world[notes + k] = world[NOTES + k]
    if i < 0 or i >= nm:
        world[W_BAD_CHOICES] += 1
        return 0
    return i


@compiled(cache=True, inline="always")  # as world_from_view
def _show(world, nm):
    """Bring the policy's own view (W_VIEW) up to the world's view part: the words a turn
    changes every time, the rest (the tile tables, the history before) once a world.
    So what a policy wrote there stays in its view until refreshed, never in the world."""
    v = W_VIEW
    n_hist = world[HISTORY_LEN]
    if world[W_SHOWN] == 0:  # the world was built afresh
        for k in range(TILE_LO, MOVE_TILE):
            world[v + k] = world[k]
        for k in range(n_hist, world[W_SHOWN_HISTORY]):  # the last world's rollout
            world[v + HISTORY + k] = 0
        for k in range(n_hist):
            world[v + HISTORY + k] = world[HISTORY + k]
        world[W_SHOWN_HISTORY] = n_hist
        world[W_SHOWN] = 1
    for k in range(TILE_LO):
        world[v + k] = world[k]
    for k in range(nm):
        world[v + MOVE_TILE + k] = world[MOVE_TILE + k]
        world[v + MOVE_TRAIN + k] = world[MOVE_TRAIN + k]
    for k in range(nm, world[W_SHOWN_MOVES]):
        world[v + MOVE_TILE + k] = 0
        world[v + MOVE_TRAIN + k] = 0
    world[W_SHOWN_MOVES] = nm
    for k in range(TRAIN_TILES, HISTORY):
        world[v + k] = world[k]
    for k in range(world[W_SHOWN_HISTORY], n_hist):
        world[v + HISTORY + k] = world[HISTORY + k]
    world[W_SHOWN_HISTORY] = n_hist


@compiled(cache=True, inline="always")
def play_out(world, tile, train, policy, params):
    """The mover lays ``tile`` on ``train`` (one of its legal moves) and the round is
    played to its end, every seat choosing with ``policy(view, params)``; returns the
    mover's penalty (world_penalty for the others). The policy is shown the world's
    view part as its own copy: whatever it writes there, the world plays on as the
    rules say."""
    return play_out_as(world, tile, train, policy, params, True)


@compiled(cache=True, inline="always")
def play_out_trusting(world, tile, train, policy, params):
    """play_out for a policy that never writes over its view (the built-ins): it is
    shown the world itself, without play_out's copy (10-20 % of a rollout of greedy's,
    benchmarks/bench_forward.py).
    A policy that writes over it corrupts the world: the round may never end."""
    return play_out_as(world, tile, train, policy, params, False)


@compiled(cache=True, inline="always")
def play_out_as(world, tile, train, policy, params, guarded):
    """play_out when ``guarded``, play_out_trusting when not: for a caller that
    decides which by a constant (the built-in search, by its rollout's origin)."""
    apply_move(world, tile, train)
    while not round_over(world):
        i = 0 if world[N_MOVES] == 1 else _choose(world, policy, params, guarded)
        apply(world, i)
    return world[W_PENALTY + world[W_MOVER]]


@compiled(cache=True, inline="always")
def whose_turn(world):
    """The seat to move in a world (-1 once its round is over): with ``legal_move_count``,
    ``move_tile(world, i)`` / ``move_train(world, i)`` and ``apply(world, i)``, a search
    walks the world a decision at a time (mexsim/game/step.py)."""
    return -1 if round_over(world) else world[SEAT]


@compiled(cache=True, inline="always")
def legal_move_count(world):
    """The legal moves of the seat to move in a world (0 once its round is over)."""
    return 0 if round_over(world) else world[N_MOVES]


@compiled(cache=True, inline="always")
def world_penalty(world, seat):
    """``seat``'s penalty in a world played out (R16)."""
    return world[W_PENALTY + seat]


@compiled(cache=True, inline="always")
def world_unconstrained(world):
    """1 when deal_world found no world keeping the seats' shown lacks (dealt without)."""
    return world[W_UNCONSTRAINED]


@compiled(cache=True, inline="always")
def world_bad_choices(world):
    """Rollout choices outside the legal moves (each played the first move instead)."""
    return world[W_BAD_CHOICES]
