"""Issue 13, item 1: does subtracting the luck of every chance event narrow the interval?

Plays matches with events recorded, fits a value model V (a seat's expected round
penalty from its hand and the table; quadratic in the features of luck_core) on a
pilot block, then on fresh matches scores every deal and draw as
luck = V(after) - E[V(after)] over what the boneyard (or the deal's seat rotation)
could have given, and compares, at equal matches, the 95 % interval width of the paired
difference between two players: independent deals, duplicate deals, and both
luck-adjusted. Also: identical strategies (adjusted difference centred on 0) and
adjusted vs raw means.

    python benchmarks/luck_study.py                 # small default
    python benchmarks/luck_study.py --only default --ceiling 12 --rollouts 4
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from luck_core import NF, n_coef, replay

from mexsim.game import kernel, view
from mexsim.game.contexts import Outputs, PlayerArrays
from mexsim.game.enums import N_EVENT_FIELDS, N_FIELDS, N_STATUS, Dispatch, Field
from mexsim.game.play import KernelArgs, _seed, event_capacity
from mexsim.game.rules import resolve_rules
from mexsim.game.tiles import tile_set
from mexsim.strategy.policy import resolve_policies

Z = 1.959964


#: every table draws its players from these, with one tuple of functions, so that the
#: kernels compile once per process (a tuple in another order is another numba type)
STRATEGIES = ("longest_train", "early_doubles", "greedy", "random")
TABLES = {  # name: (seats, index into STRATEGIES of each player)
    "default": (4, (0, 1, 2, 3)),
    "head-to-head": (2, (2, 1)),
    "identical": (4, (2, 2, 2, 2)),
}


def rotated_args(rules, idx):
    """The kernels' arguments (rules, funcs, seats, tiles) for each seat rotation r:
    player i (strategy STRATEGIES[idx[i]]) in seat (i + r) % P."""
    P = rules.players
    base = KernelArgs.build(rules, resolve_policies(STRATEGIES))
    numbers, funcs, players, tiles = base.kernel_args()
    out = []
    for r in range(P):
        who = np.array([idx[(s - r) % P] for s in range(P)])
        seats = PlayerArrays(
            players.func[who].copy(),
            players.params[who].copy(),
            players.n_params[who].copy(),
            players.n_memory[who].copy(),
            players.calling[who].copy(),
        )
        out.append((numbers, funcs, seats, tiles))
    return out


def play_block(rules, idx, seed, deals):
    """Every deal in all P seat rotations, events recorded: (deal, rotation, res, ev)."""
    P = rules.players
    rot_args = rotated_args(rules, idx)
    cap = event_capacity(rules)
    out = []
    for d in range(deals):
        for r in range(P):
            res = np.zeros((rules.rounds, P, N_FIELDS), dtype=np.int64)
            ev = np.zeros((cap, N_EVENT_FIELDS), dtype=np.int64)
            status = np.zeros(N_STATUS, dtype=np.int64)
            work = np.zeros(view.SIZE, dtype=np.int64)
            n = kernel.play_match(
                _seed(seed),
                d * P + r,
                d,
                *rot_args[r],
                Outputs(work, res, ev, status),
                True,
                Dispatch.plugin,
            )
            out.append((d, r, res, ev[:n].copy()))
    return out


def collect(rules, block):
    P, ts = rules.players, KernelArgs.build(rules, resolve_policies(STRATEGIES)).tiles
    Xs, ys = [], []
    dummy = np.zeros(1)
    dl = np.zeros((rules.rounds, P))
    for _, _, res, ev in block:
        X = np.zeros((len(ev) * P + 100, NF))
        rs = np.zeros((len(ev) * P + 100, 2), dtype=np.int64)
        n = replay(
            ev,
            P,
            rules.max_pip,
            rules.engine == "set_aside",
            ts.lo,
            ts.hi,
            ts.pips,
            dummy,
            dummy,
            dummy,
            True,
            X,
            rs,
            dl,
            dl,
        )
        Xs.append(X[:n])
        ys.append(res[rs[:n, 0], rs[:n, 1], Field.penalty])
    return np.concatenate(Xs), np.concatenate(ys).astype(float)


def basis(z):
    m = z.shape[1]
    cols = [np.ones(len(z))] + [z[:, a] for a in range(m)]
    cols += [z[:, a] * z[:, b] for a in range(m) for b in range(a, m)]
    return np.column_stack(cols)


def fit(X, y, ridge=1.0, linear=False):
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    Bm = basis((X - mu) / sd)
    if linear:
        Bm[:, 1 + NF :] = 0.0
    A = Bm.T @ Bm + ridge * np.eye(Bm.shape[1])
    A[0, 0] -= ridge
    coef = np.linalg.solve(A, Bm.T @ y)
    pred = Bm @ coef
    r2 = 1 - np.var(y - pred) / np.var(y)
    assert coef.shape[0] == n_coef()
    return mu, sd, coef, r2


def luck_block(rules, block, mu, sd, coef):
    """deal and draw luck per (deal, rotation) as [rounds, seat]."""
    P, ts = rules.players, KernelArgs.build(rules, resolve_policies(STRATEGIES)).tiles
    X = np.zeros((1, NF))
    rs = np.zeros((1, 2), dtype=np.int64)
    out = []
    for _, _, _, ev in block:
        dl = np.zeros((rules.rounds, P))
        wl = np.zeros((rules.rounds, P))
        replay(
            ev,
            P,
            rules.max_pip,
            rules.engine == "set_aside",
            ts.lo,
            ts.hi,
            ts.pips,
            mu,
            sd,
            coef,
            False,
            X,
            rs,
            dl,
            wl,
        )
        out.append((dl, wl))
    return out


def player_totals(rules, block, lucks):
    """[D, P(rotation), P(player)] raw totals and deal / draw luck totals."""
    P = rules.players
    D = len(block) // P
    raw = np.zeros((D, P, P))
    deal = np.zeros((D, P, P))
    draw = np.zeros((D, P, P))
    for k, (_, r, res, _) in enumerate(block):
        d = k // P
        for i in range(P):
            s = (i + r) % P
            raw[d, r, i] = res[:, s, Field.penalty].sum()
            deal[d, r, i] = lucks[k][0][:, s].sum()
            draw[d, r, i] = lucks[k][1][:, s].sum()
    return raw, deal, draw


def widths(tot, a, b):
    """95 % interval widths of mean(tot_a - tot_b) at equal matches M = D * P:
    independent deals (one match per unit) and duplicate deals (P matches per unit)."""
    D, P, _ = tot.shape
    diff = tot[:, :, a] - tot[:, :, b]
    M = D * P
    indep = 2 * Z * diff.std(ddof=1) / np.sqrt(M)
    dup = 2 * Z * diff.mean(axis=1).std(ddof=1) / np.sqrt(D)
    return indep, dup, diff.mean()


FEATURES = (
    "n",
    "pips",
    "doubles",
    "playable",
    "chain",
    "n-chain",
    "pips-chainpips",
    "marked",
    "min_n_others",
    "min_rest_others",
    "boneyard",
    "open",
    "turn_dist",
    "holder",
)


def study(name, rules, idx, seed, pilot, deals, ridge, variants=False):
    players = [STRATEGIES[i] for i in idx]
    P = rules.players
    t0 = time.perf_counter()
    X, y = collect(rules, play_block(rules, idx, seed + 1, pilot))
    mu, sd, coef, r2 = fit(X, y, ridge)
    *_, r2lin = fit(X, y, ridge, linear=True)
    print(
        f"[{name}] pilot: {pilot} deals x {P} rotations, {len(y)} rows; R2 quadratic "
        f"{r2:.3f}, linear {r2lin:.3f} ({time.perf_counter() - t0:.0f} s)"
    )
    cor = [np.corrcoef(X[:, a], y)[0, 1] if X[:, a].std() > 0 else 0.0 for a in range(NF)]
    print(
        "  corr with penalty: "
        + ", ".join(f"{n} {c:+.2f}" for n, c in zip(FEATURES, cor, strict=True))
    )
    t2 = time.perf_counter()
    tb = play_block(rules, idx, seed, deals)
    t3 = time.perf_counter()
    lucks = luck_block(rules, tb, mu, sd, coef)
    t4 = time.perf_counter()
    raw, deal, draw = player_totals(rules, tb, lucks)
    adj = raw - deal - draw
    M = len(tb)
    print(
        f"[{name}] test: {deals} deals x {P} rotations = {M} matches; play {t3 - t2:.1f} s, "
        f"luck {t4 - t3:.1f} s ({1e3 * (t4 - t3) / M:.1f} ms/match)"
    )
    if len(set(idx)) == 1:
        # identical deterministic players replay one game per deal in every rotation, so
        # the duplicate difference is 0 by construction: check independent deals instead
        # (rotation 0 of each deal), raw and adjusted centred on 0
        for label, tot in (("raw", raw), ("adjusted", adj)):
            d = tot[:, 0, 0] - tot[:, 0, 1]
            half = Z * d.std(ddof=1) / np.sqrt(len(d))
            print(
                f"  player 0 - player 1 over {len(d)} independent matches, {label}: "
                f"{d.mean():+.2f} +- {half:.2f}"
            )
        variants = False
    else:
        print(
            "  95 % interval widths of the paired difference at equal matches; ratios to the "
            "raw duplicate-deal width; means +- half-width (duplicate)"
        )
        print(
            f"  {'pair':30s} {'indep':>6s} {'dup':>6s} {'adj-ind':>7s} {'adj-dup':>7s} "
            f"{'a-ind/dup':>9s} {'a-dup/dup':>9s} {'raw mean':>15s} {'adjusted mean':>15s}"
        )
        for a in range(P):
            for b in range(a + 1, P):
                wi, wd, m_raw = widths(raw, a, b)
                ai, ad, m_adj = widths(adj, a, b)
                pair = f"{a}:{players[a]} - {b}:{players[b]}"
                print(
                    f"  {pair:30s} {wi:6.2f} {wd:6.2f} {ai:7.2f} {ad:7.2f} {ai / wd:9.3f} "
                    f"{ad / wd:9.3f} {m_raw:8.2f} +-{wd / 2:5.2f} {m_adj:8.2f} +-{ad / 2:5.2f}"
                )
    for i in range(P):  # luck has mean zero: a deal's rotations are one unit
        li = (deal + draw)[:, :, i].mean(axis=1)
        half = Z * li.std(ddof=1) / np.sqrt(len(li))
        print(f"  luck of player {i} per match: {li.mean():+.2f} +- {half:.2f}")
    if variants:  # smaller models: what the chain features and the products add
        for label, cols, linear in (
            ("quadratic without chain features", [4, 5, 6, 9], False),
            ("linear", [], True),
        ):
            Xv = X.copy()
            Xv[:, cols] = 0.0
            vmu, vsd, vcoef, vr2 = fit(Xv, y, ridge, linear)
            vraw, vdeal, vdraw = player_totals(rules, tb, luck_block(rules, tb, vmu, vsd, vcoef))
            ratios = [
                widths(vraw - vdeal - vdraw, a, b)[1] / widths(raw, a, b)[1]
                for a in range(P)
                for b in range(a + 1, P)
            ]
            print(f"  {label} (R2 {vr2:.3f}): adj-dup/dup " + " ".join(f"{r:.3f}" for r in ratios))
    return mu, sd, coef


def ceiling(name, rules, idx, seed, deals, R, mu, sd, coef):
    """Round 0 from `deals` random deals, each in all seat rotations: the paired
    difference of round penalties raw, adjusted with the fitted V and with rollouts."""
    from luck_rollout import rollout_luck

    players = [STRATEGIES[i] for i in idx]
    P = rules.players
    rot_args = rotated_args(rules, idx)
    ts = tile_set(rules.max_pip)
    T = len(ts.lo)
    gen = np.random.default_rng(seed)
    # two independent sets of rollout keys: the spread between the two luck estimates
    # measures the rollout noise, which can then be taken out of the adjusted variance
    keys = (gen.random((R, T)), gen.random((R, T)))
    cap = event_capacity(rules)
    raw = np.zeros((deals, P, P))
    adj_roll = np.zeros((deals, P, P))
    roll2 = np.zeros((deals, P, P))
    adj_fit = np.zeros((deals, P, P))
    Xd = np.zeros((1, NF))
    rs = np.zeros((1, 2), dtype=np.int64)
    engine = ts.index[rules.max_pip, rules.max_pip]
    t0 = time.perf_counter()
    for d in range(deals):
        tiles = [t for t in range(T) if not (rules.engine == "set_aside" and t == engine)]
        order = gen.permutation(np.array(tiles, dtype=np.int64))
        for r in range(P):
            ev = np.zeros((cap, N_EVENT_FIELDS), dtype=np.int64)
            work = np.zeros(view.SIZE, dtype=np.int64)
            dl = np.zeros(P)
            wl = np.zeros(P)
            actual = np.zeros(P)
            n_ev = rollout_luck(
                _seed(seed),
                d,
                0,
                order,
                len(order),
                *rot_args[r],
                work,
                ev,
                keys[0],
                R,
                dl,
                wl,
                actual,
            )
            dl2 = np.zeros(P)
            wl2 = np.zeros(P)
            rollout_luck(
                _seed(seed),
                d,
                0,
                order,
                len(order),
                *rot_args[r],
                work,
                np.zeros_like(ev),
                keys[1],
                R,
                dl2,
                wl2,
                np.zeros(P),
            )
            fdl = np.zeros((rules.rounds, P))
            fwl = np.zeros((rules.rounds, P))
            replay(
                ev[:n_ev],
                P,
                rules.max_pip,
                rules.engine == "set_aside",
                ts.lo,
                ts.hi,
                ts.pips,
                mu,
                sd,
                coef,
                False,
                Xd,
                rs,
                fdl,
                fwl,
            )
            for i in range(P):
                s = (i + r) % P
                raw[d, r, i] = actual[s]
                adj_roll[d, r, i] = actual[s] - dl[s] - wl[s]
                roll2[d, r, i] = actual[s] - dl2[s] - wl2[s]
                adj_fit[d, r, i] = actual[s] - fdl[0, s] - fwl[0, s]
    t1 = time.perf_counter()
    print(
        f"[{name}] ceiling, round 0: {deals} deals x {P} rotations, {R} rollouts ({t1 - t0:.0f} s)"
    )
    print(
        f"  {'pair':34s} {'indep':>7s} {'dup':>7s} {'fit-ind':>7s} {'fit-dup':>7s} "
        f"{'roll-ind':>8s} {'roll-dup':>8s} {'fit/dup':>7s} {'roll/dup':>8s} "
        f"{'noise removed':>13s}"
    )
    for a in range(P):
        for b in range(a + 1, P):
            wi, wd, _ = widths(raw, a, b)
            fi, fd, _ = widths(adj_fit, a, b)
            ri, rd, _ = widths(adj_roll, a, b)
            # duplicate units: Var(adjusted) - Var(noise), Var(noise) = Var(l1 - l2) / 2
            u_raw = (raw[:, :, a] - raw[:, :, b]).mean(axis=1)
            u1 = (adj_roll[:, :, a] - adj_roll[:, :, b]).mean(axis=1)
            u2 = (roll2[:, :, a] - roll2[:, :, b]).mean(axis=1)
            v_adj = (u1.var(ddof=1) + u2.var(ddof=1)) / 2
            v_noise = (u1 - u2).var(ddof=1) / 2
            clean = np.sqrt(max(v_adj - v_noise, 0.0) / u_raw.var(ddof=1))
            print(
                f"  {players[a] + ' - ' + players[b]:34s} {wi:7.2f} {wd:7.2f} {fi:7.2f} "
                f"{fd:7.2f} {ri:8.2f} {rd:8.2f} {fi / wd:7.3f} {ri / wd:8.3f} "
                f"{clean:13.3f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pilot", type=int, default=100, help="pilot deals (fit V)")
    ap.add_argument("--deals", type=int, default=150, help="test deals (x P rotations)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--ridge", type=float, default=1.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--ceiling", type=int, default=0, help="deals for the rollout ceiling")
    ap.add_argument("--rollouts", type=int, default=4)
    ap.add_argument("--variants", action="store_true", help="also smaller value models")
    a = ap.parse_args()
    for name, (P, idx) in TABLES.items():
        if a.only and name not in a.only.split(","):
            continue
        rules = resolve_rules({"preset": "seed-001"}, P)
        mu, sd, coef = study(name, rules, idx, a.seed, a.pilot, a.deals, a.ridge, a.variants)
        if a.ceiling and len(set(idx)) > 1:
            ceiling(name, rules, idx, a.seed + 7, a.ceiling, a.rollouts, mu, sd, coef)


if __name__ == "__main__":
    main()
