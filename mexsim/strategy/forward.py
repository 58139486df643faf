"""A forward model for compiled strategies: play the rest of a round in a world that
agrees with everything the mover sees (issue 33, search players).

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
from mexsim.game.view import (
    BONEYARD,
    DUTY,
    FIRST_TURN,
    H_DRAW,
    H_MARK,
    H_PASS,
    H_PLAY,
    HAND,
    HAND_SIZE,
    HISTORY,
    HISTORY_LEN,
    LAID_THIS_TURN,
    MAX_MEMORY,
    MAX_PLAYERS,
    MAX_TILES,
    MAX_WORDS,
    MOVE_TILE,
    MOVE_TRAIN,
    N_MOVES,
    N_OPEN,
    NOTES,
    NUMBER_MASK,
    OPEN_DOUBLES,
    PASS_COUNT,
    PLAYERS,
    RNG,
    RULE_DOUBLE_BLANK_POINTS,
    RULE_DRAW_LIMIT,
    RULE_DRAW_TO_START,
    RULE_FIRST_TURN_TRAIN,
    RULE_MEXICAN_TRAIN,
    SEAT,
    SEAT_DRAWS,
    SEAT_PASSES,
    SEAT_STARTED,
    SIZE,
    TABLE_TILES,
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
    TILES,
    TRAIN_END,
    TRAIN_LEN,
    TRAIN_MARKED,
    TRAIN_TILES,
)
from mexsim.jit.bits import popcount, trailing_zeros
from mexsim.jit.options import compiled
from mexsim.strategy.public_table import lacking_numbers

# --- the world's own words, beyond the view's layout
W_HANDS = SIZE  # [MAX_PLAYERS * 4] each seat's hand, word w of seat s at W_HANDS + 4s + w
W_BONEYARD = W_HANDS + 4 * MAX_PLAYERS  # [MAX_TILES] the boneyard, drawn from the front
W_DRAWN = W_BONEYARD + MAX_TILES  # tiles drawn from it so far: the rest is [W_DRAWN, end)
W_BONEYARD_END = W_DRAWN + 1
W_STREAMS = W_BONEYARD_END + 1  # [MAX_PLAYERS * 4] each seat's xoshiro256** stream
W_NOTES = W_STREAMS + 4 * MAX_PLAYERS  # [MAX_PLAYERS * MAX_MEMORY] each seat's notes
W_PLAYED = W_NOTES + MAX_PLAYERS * MAX_MEMORY  # [MAX_PLAYERS] tiles each seat laid
W_PENALTY = W_PLAYED + MAX_PLAYERS  # [MAX_PLAYERS] each seat's penalty once played out
W_LEFT = W_PENALTY + MAX_PLAYERS  # [MAX_PLAYERS] tiles left in each hand then
W_OUTCOME = W_LEFT + MAX_PLAYERS  # 0 while the round goes on, 1 a seat went out, 2 blocked
W_WENT_OUT = W_OUTCOME + 1  # the seat that went out, -1 when blocked
W_MOVER = W_WENT_OUT + 1  # the seat whose decision the world was built for
W_MOVES_SHOWN = W_MOVER + 1  # moves listed by the last listing (beyond: zero)
W_HISTORY_END = W_MOVES_SHOWN + 1  # how far a rollout wrote history (cleared on reuse)
W_BAD_CHOICES = W_HISTORY_END + 1  # rollout choices outside the legal moves
W_UNCONSTRAINED = W_BAD_CHOICES + 1  # 1: the hidden tiles were dealt without inference
W_SHOWN = W_UNCONSTRAINED + 1  # 1 once the policy's own view was shown this world whole
W_SCRATCH = W_SHOWN + 1  # [MAX_TILES] the deal's shuffle
# (beyond W_SCRATCH: kept when the world is built again)
W_SHOWN_HISTORY = W_SCRATCH + MAX_TILES  # history entries the policy's view holds
W_SHOWN_MOVES = W_SHOWN_HISTORY + 1  # moves its view lists (beyond them: zero)
W_VIEW = W_SHOWN_MOVES + 1  # [SIZE] the view a policy is called with (its own copy)
WORLD_SIZE = W_VIEW + SIZE

# shuffles deal_world tries for a world that keeps every seat's shown lacks
DEAL_TRIES = 64
OUTCOME_OUT = 1
OUTCOME_BLOCKED = 2

_u = np.uint64
U1 = _u(1)


@compiled(cache=True, refcounts=True)  # whatever its caller's options: it makes an array
def new_world():
    """A world's array (WORLD_SIZE words), to be filled by world_from_view."""
    return np.zeros(WORLD_SIZE, dtype=np.int64)


@compiled(cache=True)
def _bit(t):
    return np.int64(U1 << _u(t & 63))


@compiled(cache=True)
def _holds(world, base, t):
    return (_u(world[base + (t >> 6)]) >> _u(t & 63)) & U1 == U1


@compiled(cache=True)
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
    for k in range(world[W_MOVES_SHOWN]):
        world[MOVE_TILE + k] = 0
        world[MOVE_TRAIN + k] = 0
    world[W_MOVES_SHOWN] = 0
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
    for i in range(n_hist):  # the tiles each seat has laid this round
        entry = view[HISTORY + i]
        if entry & 15 == H_PLAY:
            world[W_PLAYED + ((entry >> 4) & 15)] += 1


@compiled(cache=True)
def give_tile(world, seat, tile):
    """Put ``tile`` in ``seat``'s hand of the world (building a world by hand)."""
    world[W_HANDS + 4 * seat + (tile >> 6)] |= _bit(tile)


@compiled(cache=True)
def stack_boneyard(world, tile):
    """Put ``tile`` at the bottom of the world's boneyard (drawn after those before it)."""
    world[W_BONEYARD + world[W_BONEYARD_END]] = tile
    world[W_BONEYARD_END] += 1


@compiled(cache=True)
def set_stream(world, seat, s0, s1, s2, s3):
    """``seat``'s random stream in the world (xoshiro256** words, as int64)."""
    world[W_STREAMS + 4 * seat] = s0
    world[W_STREAMS + 4 * seat + 1] = s1
    world[W_STREAMS + 4 * seat + 2] = s2
    world[W_STREAMS + 4 * seat + 3] = s3


@compiled(cache=True)
def set_note(world, seat, k, value):
    """Word ``k`` of ``seat``'s notes in the world (its own, as its strategy keeps them;
    zero for the other seats in a world built from a view)."""
    world[W_NOTES + MAX_MEMORY * seat + k] = value


@compiled(cache=True)
def _carries(world, t, numbers):
    return ((numbers >> world[TILE_LO + t]) & 1) | ((numbers >> world[TILE_HI + t]) & 1) != 0


# (reference counts: it makes arrays, whatever its caller's options, as new_world)
@compiled(cache=True, refcounts=True)
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
        if not _holds(world, TABLE_TILES, t) and not _holds(view, HAND, t):
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


@compiled(cache=True)
def _empty_other_hands(world, players, mover):
    for s in range(players):
        if s != mover:
            for w in range(MAX_WORDS):
                world[W_HANDS + 4 * s + w] = 0


@compiled(cache=True)
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


@compiled(cache=True)
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


@compiled(cache=True)
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


@compiled(cache=True)
def _list_moves(world, seat, duty, first, players):
    """The mover's legal moves into the world's move list, in the core's order (own
    train, Mexican, marked trains clockwise; each train's tiles heaviest first, as
    docs/rules.md's "Move order"); the listing beyond them cleared. Returns the count."""
    nm = 0
    hand = W_HANDS + 4 * seat
    trains0 = world[OPEN_DOUBLES] if duty else seat  # R13's oldest double, or the own
    for k in range(players + 1):
        if k == 0:
            tr = trains0
        elif duty or first:
            break
        elif k == 1:
            if world[RULE_MEXICAN_TRAIN] == 0:
                continue
            tr = players
        else:
            tr = seat + k - 1
            tr = tr - players if tr >= players else tr
            if world[TRAIN_MARKED + tr] == 0:
                continue
        row = NUMBER_MASK + world[TRAIN_END + tr] * MAX_WORDS
        for w in range(MAX_WORDS):
            m = _u(world[hand + w]) & _u(world[row + w])
            while m:
                world[MOVE_TILE + nm] = 64 * w + np.int64(trailing_zeros(m))
                world[MOVE_TRAIN + nm] = tr
                nm += 1
                m &= m - U1
    for k in range(nm, world[W_MOVES_SHOWN]):
        world[MOVE_TILE + k] = 0
        world[MOVE_TRAIN + k] = 0
    world[W_MOVES_SHOWN] = nm
    return nm


@compiled(cache=True)
def _history(world, kind, seat, tile, train):
    at = HISTORY + world[HISTORY_LEN]
    world[at] = kind | (seat << 4) | ((tile + 1) << 8) | ((train + 1) << 16)
    world[HISTORY_LEN] += 1
    if at + 1 > world[W_HISTORY_END]:
        world[W_HISTORY_END] = at + 1


@compiled(cache=True)
def _lay(world, seat, t, tr):
    """Lay tile ``t`` on train ``tr`` (R6, R8, R12, R13, R15); True when it is a double."""
    lo = world[TILE_LO + t]
    hi = world[TILE_HI + t]
    world[TRAIN_END + tr] = lo + hi - world[TRAIN_END + tr]
    world[TRAIN_LEN + tr] += 1
    world[W_HANDS + 4 * seat + (t >> 6)] ^= _bit(t)
    world[HAND_SIZE + seat] -= 1
    world[TRAIN_TILES + 4 * tr + (t >> 6)] |= _bit(t)
    world[TABLE_TILES + (t >> 6)] |= _bit(t)
    _history(world, H_PLAY, seat, t, tr)
    if tr == seat:
        world[TRAIN_MARKED + seat] = 0  # R8
    n_open = world[N_OPEN]
    for k in range(n_open):  # R13: a tile on an open double satisfies it
        if world[OPEN_DOUBLES + k] == tr:
            for j in range(k, n_open - 1):
                world[OPEN_DOUBLES + j] = world[OPEN_DOUBLES + j + 1]
            n_open -= 1
            world[OPEN_DOUBLES + n_open] = -1
            break
    if lo == hi:  # R12: a double stays open until covered
        world[OPEN_DOUBLES + n_open] = tr
        n_open += 1
    world[N_OPEN] = n_open
    world[PASS_COUNT] = 0  # R15
    world[W_PLAYED + seat] += 1
    return lo == hi


@compiled(cache=True, inline="always")
def _choose(world, seat, nm, first, duty, laid, policy, params, guarded):
    """The seat's choice among nm listed moves, by ``policy`` with the world as its view:
    its own copy of the view part when ``guarded`` (what it writes there reaches no
    world), else the world itself (a built-in, trusted to write none of it)."""
    if nm == 1:
        return 0
    world[SEAT] = seat
    world[BONEYARD] = world[W_BONEYARD_END] - world[W_DRAWN]
    world[N_MOVES] = nm
    world[FIRST_TURN] = 1 if first else 0
    world[DUTY] = 1 if duty else 0
    world[LAID_THIS_TURN] = laid
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


@compiled(cache=True)
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
    players = world[PLAYERS]
    seat = world[W_MOVER]
    first = world[FIRST_TURN] != 0
    duty = world[DUTY] != 0
    chain = first and world[RULE_FIRST_TURN_TRAIN] != 0 and not duty  # R11 "train"
    draw_limit = world[RULE_DRAW_LIMIT]
    draw_to_start = world[RULE_DRAW_TO_START] != 0
    laid = world[LAID_THIS_TURN]
    double = _lay(world, seat, tile, train)
    outcome = OUTCOME_OUT if world[HAND_SIZE + seat] == 0 else 0  # R14
    laid += 1
    last_double = double
    in_turn = not (duty or (not chain and not double))  # R12/R13: does the turn go on?
    while outcome == 0:
        if not in_turn:  # the next seat's turn begins (R2)
            seat = seat + 1 if seat + 1 < players else 0
            first = world[SEAT_STARTED + seat] == 0
            world[SEAT_STARTED + seat] = 1
            duty = world[N_OPEN] > 0  # R13
            chain = first and world[RULE_FIRST_TURN_TRAIN] != 0 and not duty
            laid = 0
            last_double = False
        in_turn = False
        drawn = 0
        while True:  # one obligation to play after another, as the core's turn loop
            nm = _list_moves(world, seat, duty, first, players)
            if nm == 0:
                if chain and laid > 0 and not last_double:
                    break  # R11: the chain stops; no draw, no marker
                keep = draw_to_start and not duty and world[TRAIN_LEN + seat] == 0
                if world[W_DRAWN] < world[W_BONEYARD_END] and (drawn < draw_limit or keep):
                    t = world[W_BONEYARD + world[W_DRAWN]]  # R10/R18
                    world[W_DRAWN] += 1
                    give_tile(world, seat, t)
                    world[HAND_SIZE + seat] += 1
                    world[SEAT_DRAWS + seat] += 1
                    _history(world, H_DRAW, seat, -1, -1)
                    drawn += 1
                    continue
                world[SEAT_PASSES + seat] += 1  # R8/R10: pass, marking the own train
                if world[TRAIN_MARKED + seat] == 0:
                    world[TRAIN_MARKED + seat] = 1
                    world[PASS_COUNT] = 1  # R15: a new marker restarts the count
                    _history(world, H_MARK, seat, -1, -1)
                else:
                    world[PASS_COUNT] += 1
                    _history(world, H_PASS, seat, -1, -1)
                if world[W_DRAWN] == world[W_BONEYARD_END] and world[PASS_COUNT] >= players:
                    outcome = OUTCOME_BLOCKED  # R15
                break
            i = _choose(world, seat, nm, first, duty, laid, policy, params, guarded)
            double = _lay(world, seat, world[MOVE_TILE + i], world[MOVE_TRAIN + i])
            drawn = 0
            if world[HAND_SIZE + seat] == 0:
                outcome = OUTCOME_OUT  # R14
                break
            laid += 1
            last_double = double
            if duty or (not chain and not double):
                break  # R13: serving a double ends the turn; R12: so does a non-double
    _score(world, players, seat, outcome)
    return world[W_PENALTY + world[W_MOVER]]


@compiled(cache=True)
def _score(world, players, seat, outcome):
    """R16: each hand's pips, 0|0 (the last tile) at double_blank_points."""
    last = world[TILES] - 1
    for s in range(players):
        pen = 0
        left = 0
        for t in range(world[TILES]):
            if _holds(world, W_HANDS + 4 * s, t):
                left += 1
                pen += world[RULE_DOUBLE_BLANK_POINTS] if t == last else world[TILE_PIPS + t]
        world[W_PENALTY + s] = pen
        world[W_LEFT + s] = left
    world[W_OUTCOME] = outcome
    world[W_WENT_OUT] = seat if outcome == OUTCOME_OUT else -1


@compiled(cache=True)
def world_penalty(world, seat):
    """``seat``'s penalty in a world played out (R16)."""
    return world[W_PENALTY + seat]


@compiled(cache=True)
def world_unconstrained(world):
    """1 when deal_world found no world keeping the seats' shown lacks (dealt without)."""
    return world[W_UNCONSTRAINED]


@compiled(cache=True)
def world_bad_choices(world):
    """Rollout choices outside the legal moves (each played the first move instead)."""
    return world[W_BAD_CHOICES]
