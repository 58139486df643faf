"""The luck of every chance event of a block of matches, scored on the play threads.

docs/luck.md says what it measures. Each match of the block is played with its events
recorded (kernel.play_rounds, ``record``), then its event rows are walked keeping the
table (who holds each tile, train ends, markers, open doubles) and every chance event
is scored for every seat j with a linear value model ``V_j = w · x_j`` (an estimate of
seat j's round penalty; ``x_j`` the features below; ``w`` fitted on a pilot block,
mexsim/tournament/luck.py):

* a draw by seat s: ``luck_j = V_j(the tile drawn) - mean over every tile u still in
  the boneyard of V_j(u)``. The next tile is uniform over the boneyard whatever
  happened before (the boneyard order is a uniform shuffle no strategy sees), so the
  term has mean zero given the past, under any strategy and for any fixed w;
* the deal: ``luck_j = V_j(the hands dealt) - mean over the P rotations of the hands
  among the seats of V_j``: the hands are exchangeable, so each rotation has the deal's
  distribution and the term has mean zero exactly.

The features need no search (the study's longest-chain features cost 10-15 ms a match
and narrowed the interval no more: docs/luck.md), so V is linear and a draw costs one
pass over the boneyard: only the drawer's features depend on which tile came, and the
other seats' only through the engine search (who moves next, who holds the engine).

``walk`` also serves the pilot: instead of scoring, it adds every seat's features and
round penalty after every chance event to integer sums of products, from which the
model is solved (exact integers: the same sums in any order, on any machine).
"""

from __future__ import annotations

import numpy as np

from mexsim.game.contexts import Outputs
from mexsim.game.enums import Event, EventField, Field
from mexsim.game.kernel import block_seats, new_scratch, play_rounds, start_block_match
from mexsim.game.kernel_view import fill_static_view
from mexsim.game.state import WORLD_SIZE
from mexsim.game.step import lay_tile, new_trains
from mexsim.game.view import N_OPEN, TRAIN_END, TRAIN_MARKED
from mexsim.jit.options import compiled

# features of seat j (x_j), in the order of the model's weights
F_TILES = 0  # tiles in hand (the engine, while still in a hand, left out)
F_PIPS = 1  # pips in hand
F_DOUBLES = 2  # doubles in hand
F_PLAYABLE = 3  # tiles that fit the own train's end or the Mexican train's
F_MARKED = 4  # own train marked
F_FEWEST_OTHER = 5  # the fewest tiles in another seat's hand
F_BONEYARD = 6  # tiles in the boneyard
F_OPEN = 7  # open doubles on the table
F_TURN = 8  # turns until j moves (0: j moves next)
F_HOLDER = 9  # j holds the engine (the engine search of engine = "holder")
N_FEATURES = 10
FEATURE_NAMES = (
    "tiles",
    "pips",
    "doubles",
    "playable",
    "marked",
    "fewest_other",
    "boneyard",
    "open_doubles",
    "turns_to_move",
    "holds_engine",
)

# hand statistics per seat (held: per holder, the boneyard too)
S_TILES = 0
S_PIPS = 1
S_DOUBLES = 2
S_PLAYABLE = 3
N_STATS = 4

# what walk does
SCORE = 0
COLLECT = 1


@compiled(cache=True, nogil=True)
def _move(t, frm, to, P, lo, hi, pips, engine_tile, owner, held, num):
    """Tile t passes from owner frm to owner to (a seat, -1 the boneyard, -2 the table),
    kept in the counts of every holder (held[h] = tiles, pips, doubles; num[h, v] = its
    tiles that carry number v; the boneyard is holder P). The engine tile is never
    counted: while in a hand it is the engine to be placed, not a tile to shed."""
    owner[t] = to
    if t == engine_tile:
        return
    for h, sign in ((frm, -1), (to, 1)):
        if h == -2:
            continue
        k = P if h == -1 else h
        held[k, S_TILES] += sign
        held[k, S_PIPS] += sign * pips[t]
        num[k, lo[t]] += sign
        if lo[t] == hi[t]:
            held[k, S_DOUBLES] += sign
        else:
            num[k, hi[t]] += sign


@compiled(cache=True, nogil=True)
def _fits(k, e, m, num, owner, tile_of):
    """Tiles of holder k (P: the boneyard) that fit end e or end m."""
    if e == m:
        return num[k, e]
    both = tile_of[e, m]  # the one tile carrying both numbers (not a double)
    return num[k, e] + num[k, m] - (1 if owner[both] == (k if k < num.shape[0] - 1 else -1) else 0)


@compiled(cache=True, nogil=True)
def _stats(P, rot, held, num, ends, owner, tile_of, stats):
    """Every seat's hand statistics, with the hands rotated by rot (seat k holding seat
    k + rot's hand; 0: as dealt)."""
    for k in range(P):
        h = (k + rot) % P
        stats[k, S_TILES] = held[h, S_TILES]
        stats[k, S_PIPS] = held[h, S_PIPS]
        stats[k, S_DOUBLES] = held[h, S_DOUBLES]
        stats[k, S_PLAYABLE] = _fits(h, ends[k], ends[P], num, owner, tile_of)


@compiled(cache=True, nogil=True)
def _features(j, stats, P, mover, bone, n_open, marked, holder, x):
    x[F_TILES] = stats[j, S_TILES]
    x[F_PIPS] = stats[j, S_PIPS]
    x[F_DOUBLES] = stats[j, S_DOUBLES]
    x[F_PLAYABLE] = stats[j, S_PLAYABLE]
    x[F_MARKED] = marked[j]
    fewest = 1 << 30
    for k in range(P):
        if k != j and stats[k, S_TILES] < fewest:
            fewest = stats[k, S_TILES]
    x[F_FEWEST_OTHER] = fewest if P > 1 else 0
    x[F_BONEYARD] = bone
    x[F_OPEN] = n_open
    x[F_TURN] = (j - mover) % P
    x[F_HOLDER] = 1 if holder == j else 0


@compiled(cache=True, nogil=True)
def _values(stats, P, mover, bone, n_open, marked, holder, w, x, out):
    """V_j = w · x_j for every seat j."""
    for j in range(P):
        _features(j, stats, P, mover, bone, n_open, marked, holder, x)
        v = 0.0
        for a in range(N_FEATURES):
            v += w[a] * x[a]
        out[j] = v


@compiled(cache=True, nogil=True)
def _collect(stats, P, mover, bone, n_open, marked, holder, penalty, rnd, x, sums):
    """Add [1, x_j, y_j] ⊗ [1, x_j, y_j] of every seat j to sums (y: its round penalty)."""
    m = N_FEATURES + 2
    v = np.empty(m, dtype=np.int64)
    for j in range(P):
        _features(j, stats, P, mover, bone, n_open, marked, holder, x)
        v[0] = 1
        for a in range(N_FEATURES):
            v[1 + a] = x[a]
        v[m - 1] = penalty[rnd, j]
        for a in range(m):
            for b in range(m):
                sums[a, b] += v[a] * v[b]


@compiled(cache=True, nogil=True)
def walk(ev, table, P, N, set_aside, lo, hi, pips, w, mode, penalty, sums, deal_luck, draw_luck):
    """Walk one match's event rows. mode SCORE: add each chance event's luck to
    deal_luck[round, seat] / draw_luck[round, seat]. mode COLLECT: add every seat's
    features and round penalty (penalty[round, seat]) after the deal and after every
    draw to sums (see _collect). Every step updates counts (``_move``): a chance event
    costs O(P · features), not a pass over the tiles.

    The trains' ends, markers and open doubles are kept by the step's own functions
    (mexsim/game/step.py) in ``table``, a state whose fixed part is the match's: each
    round's trains start with new_trains, each play is laid with lay_tile (R6, R8, R12,
    R13 as the game applied them), each pass marks the own train (R8)."""
    T = lo.shape[0]
    tile_of = np.zeros((N + 1, N + 1), dtype=np.int64)
    for u in range(T):
        tile_of[lo[u], hi[u]] = u
        tile_of[hi[u], lo[u]] = u
    owner = np.full(T, -2, dtype=np.int64)  # a seat, -1 the boneyard, -2 the table
    held = np.zeros((P + 1, N_STATS), dtype=np.int64)
    num = np.zeros((P + 1, N + 1), dtype=np.int64)
    ends = np.zeros(P + 1, dtype=np.int64)
    marked = table[TRAIN_MARKED : TRAIN_MARKED + P]  # the step's markers, as features read them
    stats = np.zeros((P, N_STATS), dtype=np.int64)
    x = np.zeros(N_FEATURES, dtype=np.int64)
    vals = np.zeros(P)
    acc = np.zeros(P)
    engine_vals = np.zeros(P)
    n_open = 0
    dealing = False
    placed = False
    rnd = -1
    engine_tile = -1
    bone = 0
    for i in range(ev.shape[0]):
        kind = ev[i, EventField.kind]
        s = ev[i, EventField.seat]
        t = ev[i, EventField.tile]
        if kind == Event.deal_hand or kind == Event.deal_boneyard:
            if not dealing:  # a new round
                dealing = True
                rnd = ev[i, EventField.round]
                owner[:] = -2
                held[:, :] = 0
                num[:, :] = 0
                engine_tile = tile_of[N - rnd, N - rnd]
                ends[:] = N - rnd
                new_trains(table, N - rnd)
                n_open = 0
                placed = set_aside
                bone = 0
            if kind == Event.deal_hand:
                _move(t, -2, s, P, lo, hi, pips, engine_tile, owner, held, num)
            else:
                _move(t, -2, -1, P, lo, hi, pips, engine_tile, owner, held, num)
                bone += 1
            continue
        if dealing:  # the deal is complete: score it against the seats' rotations
            dealing = False
            acc[:] = 0.0
            dealt_to = owner[engine_tile]
            for rot in range(P):
                holder = (dealt_to - rot) % P if dealt_to >= 0 else -1
                mover = holder if holder >= 0 else rnd % P
                _stats(P, rot, held, num, ends, owner, tile_of, stats)
                if mode == COLLECT:
                    if rot == 0:
                        _collect(
                            stats, P, mover, bone, n_open, marked, holder, penalty, rnd, x, sums
                        )
                    continue
                _values(stats, P, mover, bone, n_open, marked, holder, w, x, vals)
                if rot == 0:
                    for j in range(P):
                        deal_luck[rnd, j] += vals[j]
                acc += vals
            if mode == SCORE:
                for j in range(P):
                    deal_luck[rnd, j] -= acc[j] / P
        if kind == Event.draw:
            if mode == SCORE:
                _stats(P, 0, held, num, ends, owner, tile_of, stats)
                _score_draw(
                    owner,
                    s,
                    t,
                    stats,
                    held,
                    num,
                    tile_of,
                    ends,
                    P,
                    lo,
                    hi,
                    pips,
                    engine_tile,
                    placed,
                    bone,
                    n_open,
                    marked,
                    w,
                    x,
                    vals,
                    engine_vals,
                    acc,
                    draw_luck[rnd],
                )
            _move(t, -1, s, P, lo, hi, pips, engine_tile, owner, held, num)
            bone -= 1
            if mode == COLLECT:
                _stats(P, 0, held, num, ends, owner, tile_of, stats)
                holder = owner[engine_tile] if not placed else -1
                mover = s if placed or t == engine_tile else (s + 1) % P
                _collect(stats, P, mover, bone, n_open, marked, holder, penalty, rnd, x, sums)
        elif kind == Event.engine:
            _move(
                engine_tile, owner[engine_tile], -2, P, lo, hi, pips, engine_tile, owner, held, num
            )
            placed = True
        elif kind == Event.play:
            tr = ev[i, EventField.extra]
            lay_tile(table, s, t, tr)
            ends[tr] = table[TRAIN_END + tr]
            n_open = table[N_OPEN]
            _move(t, s, -2, P, lo, hi, pips, engine_tile, owner, held, num)
        elif kind == Event.pass_:
            table[TRAIN_MARKED + s] = 1  # R8: a pass marks the own train


@compiled(cache=True, nogil=True)
def _score_draw(
    owner,
    s,
    t,
    stats,
    held,
    num,
    tile_of,
    ends,
    P,
    lo,
    hi,
    pips,
    engine_tile,
    placed,
    bone,
    n_open,
    marked,
    w,
    x,
    vals,
    engine_vals,
    acc,
    luck,
):
    """Add to luck[j] the draw's luck for every seat j: seat s drew tile t.

    V is linear, so for every tile u but the engine V_s(u) = V_s(any tile) + w_pips
    pips(u) + w_doubles [u a double] + w_playable [u fits], and the other seats' V do
    not depend on u: the mean over the boneyard needs only its counts (pips, doubles,
    tiles that fit s's ends). Drawing the engine during the engine search changes who
    holds it and who moves (and adds nothing to the hand): scored apart."""
    holder = owner[engine_tile] if not placed else -1
    stats[s, S_TILES] += 1
    _values(stats, P, s if placed else (s + 1) % P, bone - 1, n_open, marked, holder, w, x, vals)
    stats[s, S_TILES] -= 1
    search = not placed and owner[engine_tile] == -1
    if search:  # the engine still in the boneyard: V if it comes now
        _values(stats, P, s, bone - 1, n_open, marked, s, w, x, engine_vals)
    e = ends[s]
    m = ends[P]
    # every seat's V relative to vals, summed over the possible tiles (acc)
    acc[:] = 0.0
    acc[s] = (
        w[F_PIPS] * held[P, S_PIPS]
        + w[F_DOUBLES] * held[P, S_DOUBLES]
        + w[F_PLAYABLE] * _fits(P, e, m, num, owner, tile_of)
    )
    if search:
        for j in range(P):
            acc[j] += engine_vals[j] - vals[j]
    if search and t == engine_tile:
        for j in range(P):
            luck[j] += engine_vals[j] - vals[j] - acc[j] / bone
        return
    for j in range(P):
        luck[j] -= acc[j] / bone
    mine = w[F_PIPS] * pips[t]
    if lo[t] == hi[t]:
        mine += w[F_DOUBLES]
    if lo[t] == e or hi[t] == e or lo[t] == m or hi[t] == m:
        mine += w[F_PLAYABLE]
    luck[s] += mine


@compiled(cache=True, nogil=True)
def play_matches_luck(
    seed,
    match_ids,
    deal_ids,
    seating,
    rules,
    funcs,
    players,
    tiles,
    view,
    res,
    status,
    dispatch,
    ev,
    w,
    mode,
    sums,
    deal_luck,
    draw_luck,
):
    """kernel.play_matches with every match's events recorded into ev and walked
    (``walk``): mode SCORE fills deal_luck[k, round, seat] and draw_luck; mode COLLECT
    adds the pilot's sums. Releases the GIL. Returns the number of matches completed."""
    P = rules.players
    seats = block_seats(P, players)
    scratch = new_scratch(P, tiles.lo.shape[0], view.shape[0])
    penalty = np.empty((res.shape[1], P), dtype=np.int64)
    table = np.zeros(WORLD_SIZE, dtype=np.int64)  # the walk's replay of each round
    fill_static_view(table, 0, rules, tiles.lo, tiles.hi, tiles.pips, tiles.number_mask)
    for k in range(match_ids.shape[0]):
        start_block_match(
            k, seed, match_ids, deal_ids, seating, rules, players, seats, tiles, scratch, view
        )
        n = play_rounds(
            seed,
            deal_ids[k],
            0,
            rules.max_pip + 1,
            -1,
            rules,
            funcs,
            seats,
            tiles,
            scratch,
            Outputs(view, res[k], ev, status),
            0,
            True,
            dispatch,
        )
        if n < 0:
            return k
        for r in range(res.shape[1]):
            for s in range(P):
                penalty[r, s] = res[k, r, s, Field.penalty]
        walk(
            ev[:n],
            table,
            P,
            rules.max_pip,
            rules.set_aside,
            tiles.lo,
            tiles.hi,
            tiles.pips,
            w,
            mode,
            penalty,
            sums,
            deal_luck[k],
            draw_luck[k],
        )
    return match_ids.shape[0]
