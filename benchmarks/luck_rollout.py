"""The ceiling of the luck adjustment: V by rollouts with the strategies themselves.

One round is played from a deal (kernel.play_dealt_round: deterministic given the deal
order and the seats' streams). Replaying it with the boneyard changed from draw m on
repeats the history up to draw m exactly, so V(after draw m gave tile u) is the mean
round penalty over R replays in which draw m gives u and the rest of the boneyard is
re-ordered (common random numbers: replay q orders the rest by the same random keys for
every u, so that the differences between the u are not drowned in rollout noise).
The deal: V of each seat rotation of the hands, boneyard re-ordered the same way.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mexsim.game.contexts import Outputs
from mexsim.game.enums import N_FIELDS, N_STATUS, Event, EventField, Field
from mexsim.game.kernel import play_dealt_round


@njit(cache=True)
def _replay_order(order, fixed, n, u, keys, q, out):
    """order[:fixed] then u (if u >= 0) then the rest of order[fixed:n] by keys[q]."""
    out[:fixed] = order[:fixed]
    k = fixed
    if u >= 0:
        out[k] = u
        k += 1
    m = 0
    rest = np.empty(n - fixed, dtype=np.int64)
    for i in range(fixed, n):
        if order[i] != u:
            rest[m] = order[i]
            m += 1
    idx = np.argsort(keys[q, rest[:m]])
    for i in range(m):
        out[k + i] = rest[idx[i]]


@njit(cache=True)
def rollout_luck(
    seed,
    match,
    rnd,
    order,
    n,
    rules,
    funcs,
    seats,
    tiles,
    view,
    ev,
    keys,
    R,
    deal_luck,
    draw_luck,
    actual,
):
    """Play the round from order[:n] (penalties into actual[seat]) and score its deal
    (seat rotations of the hands) and every draw with rollout values (R replays).
    rules, funcs, seats, tiles: the kernels' arguments (mexsim/game/contexts.py)."""
    P, N, H = rules.players, rules.max_pip, rules.hand_size
    T = tiles.lo.shape[0]
    res = np.zeros((N + 1, P, N_FIELDS), dtype=np.int64)
    status = np.zeros(N_STATUS, dtype=np.int64)
    buf = np.empty(T, dtype=np.int64)
    n_ev = play_dealt_round(
        seed, match, rnd, order, n, rules, funcs, seats, tiles, Outputs(view, res, ev, status)
    )
    for s in range(P):
        actual[s] = res[rnd, s, Field.penalty]
    draws = np.empty(n, dtype=np.int64)
    nd = 0
    for i in range(n_ev):
        if ev[i, EventField.kind] == Event.draw:
            draws[nd] = ev[i, EventField.tile]
            nd += 1
    ev2 = np.empty_like(ev)
    out2 = Outputs(view, res, ev2, status)
    dealt = P * H
    # the deal: every rotation of the hands, the boneyard re-ordered
    acc = np.zeros(P)
    v0 = np.zeros(P)
    rot_order = np.empty(n, dtype=np.int64)
    for rot in range(P):
        for s in range(P):
            src = (s + rot) % P  # seat s gets the hand of seat s + rot
            rot_order[s * H : (s + 1) * H] = order[src * H : (src + 1) * H]
        rot_order[dealt:n] = order[dealt:n]
        for q in range(R):
            _replay_order(rot_order, dealt, n, -1, keys, q, buf)
            play_dealt_round(seed, match, rnd, buf, n, rules, funcs, seats, tiles, out2)
            for s in range(P):
                acc[s] += res[rnd, s, Field.penalty] / (R * P)
                if rot == 0:
                    v0[s] += res[rnd, s, Field.penalty] / R
    for s in range(P):
        deal_luck[s] = v0[s] - acc[s]
    # the draws: draw m took order[dealt + m]
    for m in range(nd):
        fixed = dealt + m
        acc[:] = 0.0
        v0[:] = 0.0
        cnt = n - fixed
        for i in range(fixed, n):
            u = order[i]
            for q in range(R):
                _replay_order(order, fixed, n, u, keys, q, buf)
                play_dealt_round(seed, match, rnd, buf, n, rules, funcs, seats, tiles, out2)
                for s in range(P):
                    acc[s] += res[rnd, s, Field.penalty] / (R * cnt)
                    if u == draws[m]:
                        v0[s] += res[rnd, s, Field.penalty] / R
        for s in range(P):
            draw_luck[s] += v0[s] - acc[s]
    return n_ev
