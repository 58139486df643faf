"""`mexsim analyze`: every decision of a recorded match rated, as GNU Backgammon rates a
game's moves.

The trace (a person's game from `mexsim play`, or any match from `mexsim replay
--format jsonl`) is checked by the referee, then played again through the step
(mexsim/game/step.py) from its deals and plays, which gives at each decision the view
its seat had (R17: its own hand, the public table and history, nothing else) and the
legal moves offered. Each decision with two or more legal moves is rated by the forward
model (mexsim/strategy/move_values.py): every legal move played out in the same worlds
dealt from that view, the round finished by longest_train at every seat; a move's
expected round penalty is its mean over the worlds, and the decision's **expected points
lost** is the chosen move's minus the best move's, with a 95 % interval of that paired
difference. The worlds of decision k are dealt from (the trace's seed, its match,
STREAM_REVIEW, k): the same file rated twice gives the same numbers.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mexsim.errors import ConfigError, OutputError
from mexsim.game import step
from mexsim.game import view as V
from mexsim.game.kernel_view import fill_static_view
from mexsim.game.play import rule_numbers
from mexsim.game.referee import RefereeError, check_trace
from mexsim.game.rng import MASK64, STREAM_REVIEW, seed_words, stream_key
from mexsim.game.rules import Rules, resolve_rules
from mexsim.game.state import W_BONEYARD, W_PUBLIC, W_TURNS, WORLD_SIZE
from mexsim.game.tiles import tile_set

# worlds each legal move of a decision is played out in, by default: a 4-player match
# (~480 decisions) in ~10 s on one core, each loss within about ±3 points
REVIEW_WORLDS = 1000
# the columns of analysis.csv, in order
COLUMNS = (
    "round",
    "seat",
    "player",
    "turn",
    "moves",
    "chosen",
    "best",
    "chosen_expected",
    "best_expected",
    "lost",
    "lost_low",
    "lost_high",
)
# a mistake, in expected points lost (the summary counts those over each)
MISTAKES = (5.0, 20.0)


@dataclass
class Decision:
    """A decision of a recorded match: who, when, what its seat saw and chose."""

    round: int
    seat: int
    turn: int
    moves: list[str]  # readable: "12|5 on own"
    chosen: int
    view: np.ndarray


@dataclass
class Rated:
    decision: Decision
    expected: np.ndarray  # each legal move's expected round penalty for the seat
    best: int
    lost: float
    low: float  # the 95 % interval of lost
    high: float


def read_trace(path: Path) -> list[dict]:
    """The events of a JSONL trace; ConfigError names what is wrong (the referee's rule
    when it breaks one)."""
    import json

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: no such trace (mexsim play or mexsim replay --format jsonl writes one)"
        ) from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a trace file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read as a trace ({exc})") from None
    events = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{path}:{lineno}: not JSON ({exc.msg})") from None
    if events and isinstance(events[-1], dict) and events[-1].get("event") == "in_progress":
        raise ConfigError(
            f"{path}: a game still being played (mexsim play --resume {path} to finish it)"
        )
    try:
        check_trace(events)
    except RefereeError as exc:
        raise ConfigError(f"{path}: not a valid match trace: {exc}") from None
    return events


def _rules(header: dict) -> Rules:
    return resolve_rules(dict(header["rules"]), len(header["players"]), "the trace's rules")


def decisions(events: Sequence[dict], seats: Sequence[int] | None = None) -> list[Decision]:
    """Every decision of ``seats`` (default all) with two or more legal moves, with the
    view its seat had, by playing the trace again through the step."""
    header = events[0]
    rules = _rules(header)
    P = rules.players
    ts = tile_set(rules.max_pip)
    tile_of = {(int(a), int(b)): t for t, (a, b) in enumerate(zip(ts.lo, ts.hi, strict=True))}
    state = np.zeros(WORLD_SIZE, dtype=np.int64)
    fill_static_view(
        state, int(header["match"]), rule_numbers(rules), ts.lo, ts.hi, ts.pips, ts.number_mask
    )
    state[W_PUBLIC] = 1  # the public history: what the seats saw
    seed = np.uint64(int(header["seed"]) & MASK64)
    out: list[Decision] = []
    for ev in events[1:]:
        kind = ev.get("event")
        if kind == "deal":
            order = [tile_of[tuple(sorted(t))] for hand in ev["hands"] for t in hand]
            order += [tile_of[tuple(sorted(t))] for t in ev["boneyard"]]
            for k, t in enumerate(order):
                state[W_BONEYARD + k] = t
            step.start_round(state, int(ev["round"]), len(order))
        elif kind == "play":
            seat = int(ev["seat"])
            tile = tile_of[tuple(sorted(ev["tile"]))]
            train = P if ev["train"] == "mexican" else int(ev["train"])
            nm = int(state[V.N_MOVES])
            offered = [
                (int(state[V.MOVE_TILE + i]), int(state[V.MOVE_TRAIN + i])) for i in range(nm)
            ]
            i = offered.index((tile, train))  # the referee checked that it is legal
            if nm >= 2 and (seats is None or seat in seats):
                view = np.zeros(V.SIZE, dtype=np.int64)
                step.observe(state, seat, 0, view)
                key = stream_key(seed, int(header["match"]), STREAM_REVIEW, len(out))
                words = seed_words(np.uint64(key))
                view[V.RNG : V.RNG + 4] = np.array(words, dtype=np.uint64).view(np.int64)
                out.append(
                    Decision(
                        int(ev["round"]),
                        seat,
                        int(state[W_TURNS + seat]),
                        [_move_text(state, t, tr, seat, P) for t, tr in offered],
                        i,
                        view,
                    )
                )
            step.apply(state, i)
        elif kind == "round_end":
            step.end_round(state)
    return out


def _move_text(state: np.ndarray, t: int, tr: int, seat: int, P: int) -> str:
    end = int(state[V.TRAIN_END + tr])
    lo, hi = int(state[V.TILE_LO + t]), int(state[V.TILE_HI + t])
    other = hi if lo == end else lo
    train = "mexican" if tr == P else ("own" if tr == seat else f"seat {tr}")
    return f"{end}|{other} on {train}"


def rate(
    found: Sequence[Decision],
    worlds: int = REVIEW_WORLDS,
    workers: int | None = None,
    progress: Callable[[int], Any] | None = None,
) -> list[Rated]:
    """Each decision rated (module docstring), on ``workers`` threads (default all cores);
    ``progress(n)`` is told of each n decisions done."""
    from mexsim.strategy.move_values import paired_errors, world_penalties

    def one(d: Decision) -> Rated:
        pens = world_penalties(d.view.copy(), worlds, True)
        mean = pens.mean(axis=1)
        best = int(np.argmin(mean))
        lost = float(mean[d.chosen] - mean[best])
        half = 1.96 * float(paired_errors(pens, best)[d.chosen])
        return Rated(d, mean, best, lost, lost - half, lost + half)

    threads = workers or os.cpu_count() or 1
    rated: list[Rated] = []
    with ThreadPoolExecutor(threads) as pool:
        for r in pool.map(one, found):
            rated.append(r)
            if progress:
                progress(1)
    return rated


def players_of(header: dict) -> list[str]:
    return [str(p.get("player", f"seat {p.get('seat')}")) for p in header["players"]]


def write_csv(rated: Sequence[Rated], names: Sequence[str], path: Path) -> None:
    """analysis.csv, one row a decision, replaced whole."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            for r in rated:
                d = r.decision
                w.writerow(
                    [
                        d.round,
                        d.seat,
                        names[d.seat],
                        d.turn,
                        len(d.moves),
                        d.moves[d.chosen],
                        d.moves[r.best],
                        f"{r.expected[d.chosen]:.3f}",
                        f"{r.expected[r.best]:.3f}",
                        f"{r.lost:.3f}",
                        f"{r.low:.3f}",
                        f"{r.high:.3f}",
                    ]
                )
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_plot(
    rated: Sequence[Rated], names: Sequence[str], rounds: int, path: Path, caption: str
) -> None:
    """Expected points lost per round, one line a seat."""
    from mexsim.analysis.plots import new_figure, save_figure

    lost = np.zeros((len(names), rounds))
    for r in rated:
        lost[r.decision.seat, r.decision.round] += r.lost
    figure = new_figure(8, 4)
    ax = figure.add_subplot()
    for s, name in enumerate(names):
        if lost[s].any() or len(names) <= 8:
            ax.plot(np.arange(1, rounds + 1), lost[s], marker="o", label=f"seat {s}: {name}")
    ax.set_xlabel("round")
    ax.set_ylabel("expected points lost")
    ax.set_xticks(np.arange(1, rounds + 1))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0, fontsize="small")
    save_figure(figure, path, caption)


def summary(rated: Sequence[Rated], names: Sequence[str]) -> list[str]:
    """Per seat: the expected points lost in all, decisions, mistakes, the worst three."""
    lines = []
    for s, name in enumerate(names):
        mine = [r for r in rated if r.decision.seat == s]
        if not mine:
            continue
        total = sum(r.lost for r in mine)
        counts = ", ".join(f"{sum(r.lost > m for r in mine)} over {m:g}" for m in MISTAKES)
        lines.append(
            f"seat {s} ({name}): {total:.1f} expected points lost in {len(mine)} "
            f"decisions; mistakes: {counts}"
        )
        for r in sorted(mine, key=lambda r: -r.lost)[:3]:
            if r.lost <= 0:
                break
            d = r.decision
            lines.append(
                f"    round {d.round + 1}, turn {d.turn}: {d.moves[d.chosen]} lost "
                f"{r.lost:.1f} [{r.low:.1f}, {r.high:.1f}] against {d.moves[r.best]}"
            )
    return lines


PLOT = "lost_by_round.png"
TABLE = "analysis.csv"


def default_folder(trace: Path) -> Path:
    return trace.parent / f"{trace.stem}-analysis"


def analyze(
    trace: Path,
    seat: int | None = None,
    worlds: int = REVIEW_WORLDS,
    out: Path | None = None,
    progress: Callable[[int, int], Any] | None = None,
) -> tuple[list[str], list[Path]]:
    """Rate the decisions of ``trace`` (of ``seat``, or every seat's): returns the
    summary's lines and the files written (analysis.csv and the plot, in ``out``, by
    default beside the trace). ``progress(total, n)``: n more decisions rated of total."""
    events = read_trace(trace)
    header = events[0]
    names = players_of(header)
    if seat is not None and not 0 <= seat < len(names):
        raise ConfigError(
            f"--seat {seat} is not at the table: {trace} has {len(names)} seats "
            f"(allowed: 0..{len(names) - 1})"
        )
    found = decisions(events, None if seat is None else [seat])
    rated = rate(found, worlds, progress=(lambda n: progress(len(found), n)) if progress else None)
    folder = out or default_folder(trace)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_csv(rated, names, folder / TABLE)
        caption = f"{trace.name}: expected points lost per round ({worlds} worlds a move)"
        write_plot(rated, names, _rules(header).rounds, folder / PLOT, caption)
    except OSError as exc:
        raise OutputError(
            f"{exc.filename or folder}: cannot write the analysis ({exc.strerror or exc})"
        ) from None
    return summary(rated, names), [folder / TABLE, folder / PLOT]
