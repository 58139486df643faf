"""The Python side of the numba core: rules into kernel arguments, event rows into traces."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mexsim import core
from mexsim.rules import Rules
from mexsim.strategy_registry import available_strategies
from mexsim.tiles import TileSet, tile_set


@dataclass(frozen=True)
class KernelArgs:
    """Everything the kernels need about the rules and the seats, as plain numbers/arrays."""

    P: int
    N: int
    H: int
    first_turn_train: bool
    set_aside: bool
    draw_to_start: bool
    double_blank_points: int
    codes: np.ndarray
    tiles: TileSet

    @classmethod
    def build(cls, rules: Rules, strategies: Sequence[str]) -> KernelArgs:
        known = available_strategies()
        codes = np.array([known[name].code for name in strategies], dtype=np.int64)
        return cls(
            P=rules.players, N=rules.max_pip, H=rules.hand_size,
            first_turn_train=rules.first_turn == "train",
            set_aside=rules.engine == "set_aside",
            draw_to_start=rules.draw_to_start,
            double_blank_points=rules.double_blank_points,
            codes=codes, tiles=tile_set(rules.max_pip),
        )

    def rule_args(self) -> tuple:
        ts = self.tiles
        return (self.P, self.N, self.H, self.first_turn_train, self.set_aside,
                self.draw_to_start, self.double_blank_points, self.codes,
                ts.lo, ts.hi, ts.pips, ts.number_mask)


def event_capacity(rules: Rules) -> int:
    """An upper bound on event rows per match: deal, draws, plays and passes per round.

    Every pass with a non-empty boneyard follows a draw; with an empty boneyard at most
    P passes separate two plays or two new markers (R15).
    """
    T, P = rules.tiles, rules.players
    return rules.rounds * (4 * T + (T + P + 2) * P + 4)


def _seed(seed: int) -> np.uint64:
    return np.uint64(seed & ((1 << 64) - 1))


def play_match_results(rules: Rules, strategies: Sequence[str], seed: int, match: int,
                       record: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Play one match in the core; returns (res[round, seat, field], event rows)."""
    args = KernelArgs.build(rules, strategies)
    res = np.zeros((rules.rounds, rules.players, core.N_FIELDS), dtype=np.int64)
    ev = np.zeros((event_capacity(rules) if record else 1, core.EV_FIELDS), dtype=np.int64)
    n = core.play_match(_seed(seed), match, *args.rule_args(), res, ev, record)
    return res, ev[:n]


def play_matches_results(rules: Rules, strategies: Sequence[str], seed: int, first_match: int,
                         n_matches: int) -> np.ndarray:
    """Play a block of consecutive matches; returns res[k, round, seat, field]."""
    args = KernelArgs.build(rules, strategies)
    res = np.zeros((n_matches, rules.rounds, rules.players, core.N_FIELDS), dtype=np.int64)
    core.play_matches(_seed(seed), first_match, n_matches, *args.rule_args(), res)
    return res


def events_to_trace(rules: Rules, res: np.ndarray, ev: np.ndarray,
                    header: dict | None = None) -> list[dict]:
    """Event rows of :func:`play_match_results` as trace dicts (INTERFACE.md format)."""
    ts = tile_set(rules.max_pip)
    P = rules.players

    def tile(t: int) -> list[int]:
        return [int(ts.lo[t]), int(ts.hi[t])]

    out: list[dict] = [header] if header else []
    deal: dict | None = None
    for kind, rnd, seat, t, extra in ev.tolist():
        if kind in (core.EV_DEAL_HAND, core.EV_DEAL_BONEYARD):
            if deal is None:
                deal = {"event": "deal", "round": rnd, "engine": rules.max_pip - rnd,
                        "hands": [[] for _ in range(P)], "boneyard": []}
                out.append(deal)
            (deal["hands"][seat] if kind == core.EV_DEAL_HAND else deal["boneyard"]).append(
                tile(t))
            continue
        deal = None
        if kind == core.EV_ENGINE:
            out.append({"event": "engine", "round": rnd, "seat": seat})
        elif kind == core.EV_DRAW:
            out.append({"event": "draw", "round": rnd, "seat": seat, "tile": tile(t)})
        elif kind == core.EV_PLAY:
            out.append({"event": "play", "round": rnd, "seat": seat, "tile": tile(t),
                        "train": "mexican" if extra == P else extra})
        elif kind == core.EV_PASS:
            out.append({"event": "pass", "round": rnd, "seat": seat})
        elif kind == core.EV_ROUND_END:
            out.append({"event": "round_end", "round": rnd,
                        "reason": "blocked" if extra == core.REASON_BLOCKED else "out",
                        "penalties": [int(p) for p in res[rnd, :, core.F_PENALTY]]})
    out.append({"event": "match_end",
                "totals": [int(x) for x in res[:, :, core.F_PENALTY].sum(axis=0)]})
    return out


def core_trace(rules: Rules, strategies: Sequence[str], seed: int, match: int,
               header: dict | None = None) -> list[dict]:
    """The trace of one match played by the numba core."""
    res, ev = play_match_results(rules, strategies, seed, match, record=True)
    return events_to_trace(rules, res, ev, header)


def play_dealt_round(rules: Rules, strategies: Sequence[str], round_no: int,
                     hands: Sequence[Sequence[int]], boneyard: Sequence[int],
                     seed: int = 0, match: int = 0) -> tuple[np.ndarray, list[dict]]:
    """Play one round from a hand-made deal (tile numbers; equal hands of rules.hand_size).

    Returns (res[seat, field], the round's trace events from "deal" to "round_end").
    Strategy streams are those of (seed, match), as in a real match.
    """
    args = KernelArgs.build(rules, strategies)
    P, T = rules.players, rules.tiles
    order = np.array([t for hand in hands for t in hand] + list(boneyard), dtype=np.int64)
    if any(len(h) != rules.hand_size for h in hands) or len(hands) != P:
        raise ValueError(f"a deal needs {P} hands of {rules.hand_size} tiles")
    res = np.zeros((rules.rounds, P, core.N_FIELDS), dtype=np.int64)
    ev = np.zeros((event_capacity(rules), core.EV_FIELDS), dtype=np.int64)
    n_ev = core.play_dealt_round(_seed(seed), match, round_no, order, len(order), T,
                                 *args.rule_args(), res, ev)
    trace = events_to_trace(rules, res, ev[:n_ev])[:-1]  # no match_end
    return res[round_no], trace
