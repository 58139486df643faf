"""A check's outcome for people: the failed check, the cause, the state as text and JSON."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import numpy as np

from mexsim.game import view as V
from mexsim.game.strategy_output import printed_note
from mexsim.testing.contract import CHECKS, ContractViolation, Decision
from mexsim.testing.suite import ROUNDS_A_MATCH, CheckReport


def tile_text(view: np.ndarray, tile: int) -> str:
    return f"{view[V.TILE_HI + tile]}|{view[V.TILE_LO + tile]}"


def train_text(view: np.ndarray, train: int) -> str:
    return "mexican" if train == view[V.PLAYERS] else f"seat {train}"


def hand(view: np.ndarray) -> list[int]:
    tiles = []
    for w in range(V.MAX_WORDS):
        word = int(view[V.HAND + w]) & ((1 << 64) - 1)
        tiles += [w * 64 + b for b in range(64) if (word >> b) & 1]
    return tiles


def state_dict(d: Decision) -> dict[str, Any]:
    """The decision state by name, and every non-zero view word (to rebuild the view)."""
    v = d.view
    P, n = int(v[V.PLAYERS]), int(v[V.N_MOVES])
    return {
        "round": int(v[V.ROUND]),
        "seat": int(v[V.SEAT]),
        "players": P,
        "max_pip": int(v[V.MAX_PIP]),
        "boneyard": int(v[V.BONEYARD]),
        "first_turn": bool(v[V.FIRST_TURN]),
        "duty": bool(v[V.DUTY]),
        "laid_this_turn": int(v[V.LAID_THIS_TURN]),
        "hand": [tile_text(v, t) for t in hand(v)],
        "hand_sizes": [int(v[V.HAND_SIZE + s]) for s in range(P)],
        "trains": [
            {
                "train": train_text(v, t),
                "end": int(v[V.TRAIN_END + t]),
                "length": int(v[V.TRAIN_LEN + t]),
                "marked": bool(v[V.TRAIN_MARKED + t]),
            }
            for t in range(P + 1)
        ],
        "open_doubles": [
            train_text(v, int(v[V.OPEN_DOUBLES + k])) for k in range(int(v[V.N_OPEN]))
        ],
        "moves": [
            [tile_text(v, int(v[V.MOVE_TILE + i])), train_text(v, int(v[V.MOVE_TRAIN + i]))]
            for i in range(n)
        ],
        "params": d.params.tolist(),
        "view_size": V.SIZE,
        "view_nonzero": {str(k): int(v[k]) for k in np.flatnonzero(v)},
    }


def state_text(state: dict[str, Any]) -> str:
    lines = [
        f"round {state['round']}, seat {state['seat']} of {state['players']}, "
        f"double-{state['max_pip']}, boneyard {state['boneyard']}"
        + (", first turn" if state["first_turn"] else "")
        + (", R13 duty" if state["duty"] else ""),
        f"  hand ({len(state['hand'])}): {' '.join(state['hand'])}",
        "  trains: "
        + "; ".join(
            f"{t['train']} ends {t['end']} ({t['length']} tiles{', marked' if t['marked'] else ''})"
            for t in state["trains"]
        ),
        f"  hand sizes: {state['hand_sizes']}",
    ]
    if state["open_doubles"]:
        lines.append(f"  open doubles (oldest first): {', '.join(state['open_doubles'])}")
    lines.append(
        "  legal moves: "
        + ", ".join(f"{i}: {tile} on {train}" for i, (tile, train) in enumerate(state["moves"]))
    )
    return "\n".join(lines)


def failure_json(name: str, failure: ContractViolation) -> dict[str, Any]:
    out: dict[str, Any] = {"strategy": name, "check": failure.check, "cause": failure.cause}
    if failure.game is not None:
        out["game"] = failure.game.to_dict()
    if failure.decision is not None:
        out["state"] = state_dict(failure.decision)
    return out


def duration(ns: float) -> str:
    if ns < 1e3:
        return f"{ns:.0f} ns"
    return f"{ns / 1e3:,.1f} µs" if ns < 1e6 else f"{ns / 1e6:,.1f} ms"


def format_report(report: CheckReport) -> str:
    """The lines ``mexsim check`` prints."""
    name = report.name
    if report.failure is not None:
        f = report.failure
        passed = CHECKS[: CHECKS.index(f.check)]
        lines = [f"{name}: FAILED check '{f.check}'", f"  cause: {f.cause}"]
        if passed:
            lines.append(f"  passed before it: {', '.join(passed)}")
        if f.game is not None:
            g = f.game.to_dict()
            lines.append(
                f"  game (shrunk): {g['players']} players, {g['rules']['preset']} "
                f"rules, double-{g['rules']['max_pip']}, seats {g['seats']}, seed "
                f"{g['seed']}, match {g['match']}, round {g['round']}"
            )
        if f.decision is not None:
            lines.append("  state:")
            lines += ["  " + line for line in state_text(state_dict(f.decision)).splitlines()]
        lines.append("  as JSON: " + json.dumps(failure_json(name, f), separators=(",", ":")))
        return "\n".join(lines + _printed(report))
    per_match = report.decisions_a_round * ROUNDS_A_MATCH
    return "\n".join(
        [
            f"{name}: passed {len(CHECKS)} checks",
            textwrap.fill(", ".join(CHECKS), 88, initial_indent="  (", subsequent_indent="   ")
            + ")",
            f"  {report.rounds:,} drawn rounds (2-10 players, double-6..double-15, every "
            f"preset), {report.decisions:,} decisions",
            f"  decision time: median {duration(report.median_ns)}, p99 "
            f"{duration(report.p99_ns)} (mean {duration(report.mean_ns)})",
            f"  1,000,000 matches: ~{per_match:,.0f} decisions a match in one seat -> "
            f"~{report.million_match_seconds:,.1f} s of CPU for its decisions (one seat)",
            *_printed(report),
        ]
    )


def _printed(report: CheckReport) -> list[str]:
    note = printed_note(report.printed, "it")
    return [f"  note: {note}"] if note else []
