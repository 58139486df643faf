"""A person's seat in a config's match: the bots play their turns, the person chooses at
theirs, and the game is recorded as it goes so that a quit game can be continued.

Everything a person is shown comes from their seat's view (R17: their hand, the public
table, the public history) or, for a hint and a review, from the forward model dealt
from that view (mexsim/strategy/move_values.py): nothing of another hand or of the
boneyard's order.

The record (default ``games/<config>-match<K>-seat<N>.jsonl``) is JSON lines. While the
match is being played it holds the header (the match's, as `mexsim replay` writes it,
with the config and the person's seat under "person"), the trace of the rounds finished,
and a last line {"event": "in_progress", "your_moves": [...]} with the person's moves so
far: the bots' moves follow from the config (the same deals and streams as
`mexsim run`), so these are enough to continue. A finished round's deal is shown there,
the current one's never. When the match ends the file is its whole trace, in the format
`mexsim replay --format jsonl` writes (the header keeps "person"), which the referee
checks (mexsim.game.referee.check_file).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mexsim.errors import ConfigError
from mexsim.game import view as V
from mexsim.tournament.table import Game, Move

# worlds of a review of a person's decisions at a round's end (move_values)
REVIEW_WORLDS = 300


@dataclass
class Decision:
    """One of the person's decisions: what their seat saw, and the move chosen."""

    round: int
    view: np.ndarray
    moves: list[Move]
    chosen: int


@dataclass
class Rating:
    """A decision rated by the forward model: the expected round penalty of the move
    chosen and of the best, and the points lost (with its standard error)."""

    round: int
    moves: list[Move]
    chosen: int
    best: int
    expected: list[float]
    lost: float
    error: float


@dataclass
class Session:
    """The person at seat ``seat`` of ``game``, recorded at ``record``."""

    game: Game
    seat: int
    record: Path
    config: str
    your_moves: list[list] = field(default_factory=list)  # [lo, hi, train] each
    decisions: list[Decision] = field(default_factory=list)  # the round's, for the review
    reviews: dict[int, list[Rating]] = field(default_factory=dict)  # by round

    @classmethod
    def start(
        cls,
        config: str | Path,
        seat: int = 0,
        match: int = 0,
        record: str | Path | None = None,
        strategies: tuple[str | Path, ...] = (),
    ) -> Session:
        """A new game: match ``match`` of the config, the person at seat ``seat``."""
        game = Game.from_config(config, match, strategies=strategies)
        if not 0 <= seat < game.rules.players:
            raise ConfigError(
                f"--seat {seat} is not at the table: {config} seats {game.rules.players} "
                f"players (allowed: 0..{game.rules.players - 1})"
            )
        path = Path(record) if record else default_record(config, match, seat)
        session = cls(game, seat, path, str(config))
        session.bots_play()
        return session

    @classmethod
    def resume(cls, record: str | Path, strategies: tuple[str | Path, ...] = ()) -> Session:
        """The game recorded at ``record``, played on to where it was left."""
        path = Path(record)
        header, moves = read_record(path)
        person = header["person"]
        game = Game.from_config(person["config"], header["match"], strategies=strategies)
        session = cls(game, int(person["seat"]), path, str(person["config"]))
        session.bots_play()
        for k, (lo, hi, train) in enumerate(moves):
            if game.is_over() or game.to_move != session.seat:
                raise ConfigError(f"{path}: move {k + 1} of yours does not fit the game")
            i = session.index_of(lo, hi, train)
            if i is None:
                raise ConfigError(
                    f"{path}: move {k + 1} of yours ({lo}|{hi} on {train}) is not legal "
                    "there: the config or mexsim changed since it was recorded"
                )
            session.play(i, save=False)
        session.decisions = [d for d in session.decisions if d.round == game.round]
        return session

    # --- the game

    @property
    def my_turn(self) -> bool:
        return not self.game.is_over() and self.game.to_move == self.seat

    def bots_play(self) -> None:
        """The other seats play their configured strategies up to the person's decision
        or the match's end."""
        g = self.game
        while not g.is_over() and g.to_move != self.seat:
            g.play(g.suggest())

    def index_of(self, lo: int, hi: int, train: int | str) -> int | None:
        """The legal move laying lo|hi (either way round) on ``train`` (a seat, or
        "mexican"), if there is one."""
        st = self.game.state
        for i in range(self.game.move_count()):
            t = int(st[V.MOVE_TILE + i])
            tr = int(st[V.MOVE_TRAIN + i])
            a, b = int(st[V.TILE_LO + t]), int(st[V.TILE_HI + t])
            name: int | str = "mexican" if tr == self.game.rules.players else tr
            if sorted((a, b)) == sorted((lo, hi)) and name == train:
                return i
        return None

    def play(self, i: int, save: bool = True) -> int:
        """The person plays legal move ``i``; the bots then play on. Returns the round the
        move was made in (a finished round is then reviewed by ``review``)."""
        g = self.game
        if not self.my_turn:
            raise ValueError("it is not your turn")
        rnd = g.round
        st = g.state
        t = int(st[V.MOVE_TILE + i])
        tr = int(st[V.MOVE_TRAIN + i])
        self.decisions.append(Decision(rnd, g.view(self.seat), g.legal_moves(), i))
        g.play(i)
        self.your_moves.append(
            [
                int(st[V.TILE_LO + t]),
                int(st[V.TILE_HI + t]),
                "mexican" if tr == g.rules.players else tr,
            ]
        )
        self.bots_play()
        if save:
            self.save()
        return rnd

    def hint(self, worlds: int | None = None) -> list[tuple[int, Move, float, float]]:
        """Every legal move with its expected round penalty for the person (and the
        standard error), best first: (move index, move, expected, error)."""
        from mexsim.strategy.move_values import HINT_WORLDS, expected_penalties

        mean, err = expected_penalties(self.game.view(self.seat), worlds or HINT_WORLDS)
        moves = self.game.legal_moves()
        order = sorted(range(len(moves)), key=lambda k: (mean[k], k))
        return [(k, moves[k], float(mean[k]), float(err[k])) for k in order]

    def review(self, rnd: int) -> list[Rating]:
        """The person's decisions of round ``rnd`` with two or more legal moves, rated
        (kept: asked again, the same)."""
        if rnd in self.reviews:
            return self.reviews[rnd]
        from mexsim.strategy.move_values import paired_errors, world_penalties

        rated = []
        for d in self.decisions:
            if d.round != rnd or len(d.moves) < 2:
                continue
            pens = world_penalties(d.view.copy(), REVIEW_WORLDS, True)
            mean = pens.mean(axis=1)
            best = int(np.argmin(mean))
            errs = paired_errors(pens, best)
            rated.append(
                Rating(
                    rnd,
                    d.moves,
                    d.chosen,
                    best,
                    [float(x) for x in mean],
                    float(mean[d.chosen] - mean[best]),
                    float(errs[d.chosen]),
                )
            )
        self.reviews[rnd] = rated
        self.decisions = [d for d in self.decisions if d.round != rnd]
        return rated

    # --- the record

    def header(self) -> dict:
        head = dict(self.game.header or {"event": "match", "match": self.game.match})
        head["person"] = {"seat": self.seat, "config": self.config}
        return head

    def record_lines(self) -> list[dict]:
        """The record as it stands (module docstring): while the match goes on, the
        rounds finished and the person's moves; once over, the whole trace."""
        events = self.game.trace()
        if self.game.header is not None:
            events = events[1:]
        if self.game.is_over():
            return [self.header(), *events]
        rnd = self.game.round
        done = [ev for ev in events if ev.get("round", -1) < rnd]
        return [self.header(), *done, {"event": "in_progress", "your_moves": self.your_moves}]

    def save(self) -> None:
        """Write the record, replacing it whole: an interruption leaves the old or the
        new one, complete."""
        self.record.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(ev, separators=(",", ":")) + "\n" for ev in self.record_lines())
        tmp = self.record.with_name(f".{self.record.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, self.record)


def default_record(config: str | Path, match: int, seat: int) -> Path:
    return Path("games") / f"{Path(config).stem}-match{match}-seat{seat}.jsonl"


def read_record(path: Path) -> tuple[dict, list[list]]:
    """(the header, the person's moves) of a record; ConfigError names what is wrong."""
    try:
        lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such game record (mexsim play writes one)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not a game record of mexsim play ({exc})") from None
    if not lines or not isinstance(lines[0], dict) or "person" not in lines[0]:
        raise ConfigError(f"{path}: not a game record of mexsim play (no person's header)")
    last = lines[-1]
    if not isinstance(last, dict) or last.get("event") != "in_progress":
        raise ConfigError(f"{path}: that game is over; play another with mexsim play CONFIG")
    moves = last.get("your_moves")
    if not isinstance(moves, list) or not all(isinstance(m, list) and len(m) == 3 for m in moves):
        raise ConfigError(f'{path}: its moves are damaged ("your_moves")')
    return lines[0], moves


def history_lines(game: Game, seat: int, last: int = 8) -> list[str]:
    """The round's public history as seat ``seat`` sees it, in words: the last ``last``
    events (R17: a draw says who drew, not what)."""
    v = game.view(seat)
    P = game.rules.players
    out = []
    for k in range(int(v[V.HISTORY_LEN])):
        e = int(v[V.HISTORY + k])
        kind, who = e & 15, (e >> 4) & 15
        name = "you" if who == seat else f"seat {who}"
        if kind == V.H_ENGINE:
            out.append(f"{name} placed the engine")
        elif kind == V.H_PLAY:
            t, tr = ((e >> 8) & 255) - 1, ((e >> 16) & 15) - 1
            where = (
                "the Mexican train"
                if tr == P
                else ("your train" if tr == seat else f"seat {tr}'s train")
            )
            if tr == who and who != seat:
                where = "their own train"
            out.append(f"{name} played {game.tile_text(t)} on {where}")
        elif kind == V.H_DRAW:
            out.append(f"{name} drew")
        elif kind == V.H_MARK:
            out.append(f"{name} passed: train opened (marker)")
        elif kind == V.H_PASS:
            out.append(f"{name} passed")
    return out[-last:]
