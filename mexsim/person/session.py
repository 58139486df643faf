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

from mexsim.errors import ConfigError, OutputError
from mexsim.game import view as V
from mexsim.tournament.config import load_config
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

    strategies: tuple[str, ...] = ()  # the --strategies folders (absolute), kept for resume
    variant: str | None = None  # the rule variant played, with [[variants]]

    @classmethod
    def start(
        cls,
        config: str | Path,
        seat: int = 0,
        match: int = 0,
        record: str | Path | None = None,
        strategies: tuple[str | Path, ...] = (),
        variant: str | None = None,
    ) -> Session:
        """A new game: match ``match`` of the config (under rule variant ``variant``), the
        person at seat ``seat``. The record must not exist: a kept game is continued with
        ``resume``, and a file mexsim did not write is never replaced."""
        path = Path(record) if record else default_record(config, match, seat)
        refuse_existing(path)
        folders = tuple(str(Path(f).absolute()) for f in strategies)
        config_path = Path(config).absolute()
        game = _game(config_path, match, folders, variant)
        if not 0 <= seat < game.rules.players:
            raise ConfigError(
                f"--seat {seat} is not at the table: {config} seats {game.rules.players} "
                f"players (allowed: 0..{game.rules.players - 1})"
            )
        session = cls(game, seat, path, str(config_path), strategies=folders, variant=variant)
        session.bots_play()
        return session

    @classmethod
    def resume(cls, record: str | Path, strategies: tuple[str | Path, ...] = ()) -> Session:
        """The game recorded at ``record``, played on to where it was left. Refused when
        the config no longer deals the same match (its seed, players or rules changed)."""
        path = Path(record)
        header, moves = read_record(path)
        person = header["person"]
        folders = tuple(
            dict.fromkeys(
                [*person.get("strategies", []), *(str(Path(f).absolute()) for f in strategies)]
            )
        )
        variant = header.get("variant")
        try:
            game = _game(Path(person["config"]), int(header["match"]), folders, variant)
        except ConfigError as exc:
            raise ConfigError(f"{path}: the game's config: {exc}") from None
        seat = int(person["seat"])
        if not 0 <= seat < game.rules.players:
            raise ConfigError(f"{path}: seat {seat} is not at the table of {person['config']}")
        now = game.header or {}
        for key in ("seed", "players", "rules", "deal"):
            if now.get(key) != header.get(key):
                raise ConfigError(
                    f"{path}: {person['config']} no longer deals this game (its {key} "
                    "changed since the game was kept): restore it, or start a new game"
                )
        session = cls(game, seat, path, str(person["config"]), strategies=folders, variant=variant)
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
        """The person plays legal move ``i``; the bots then play on (the game is saved
        whatever happens, a bot's failure included). Returns the round the move was made
        in (a finished round is then reviewed by ``review``)."""
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
        try:
            self.bots_play()
        finally:
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
        if self.strategies:
            head["person"]["strategies"] = list(self.strategies)
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
        done = [ev for ev in events if "round" in ev and ev["round"] < rnd]
        return [self.header(), *done, {"event": "in_progress", "your_moves": self.your_moves}]

    def save(self) -> None:
        """Write the record, replacing it whole: an interruption leaves the old or the
        new one, complete. OutputError names what the system refused."""
        text = "".join(json.dumps(ev, separators=(",", ":")) + "\n" for ev in self.record_lines())
        tmp = self.record.with_name(f".{self.record.name}.tmp-{os.getpid()}")
        try:
            self.record.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.record)
        except OSError as exc:
            raise OutputError(
                f"{exc.filename or self.record}: cannot keep the game "
                f"({exc.strerror or exc}); name another place with --record FILE"
            ) from None
        finally:
            if tmp.is_file():  # what a refused write left behind
                tmp.unlink()


def default_record(config: str | Path, match: int, seat: int) -> Path:
    return Path("games") / f"{Path(config).stem}-match{match}-seat{seat}.jsonl"


def _game(config: Path, match: int, strategies: tuple[str, ...], variant: str | None) -> Game:
    index = 0
    if variant is not None:
        cfg = load_config(config, strategy_dirs=strategies)
        names = list(cfg.variant_names) if cfg.variants else []
        if variant not in names:
            allowed = ", ".join(repr(n) for n in names) or "none: it has no [[variants]]"
            raise ConfigError(
                f"--variant {variant!r} is not a rule variant of {config} (allowed: {allowed})"
            )
        index = names.index(variant)
    return Game.from_config(config, match, variant=index, strategies=strategies)


def refuse_existing(path: Path) -> None:
    """A new game's record must be a new file: a kept game is continued, and nothing
    else is ever replaced (a file of the user's, a folder, a link, a device)."""
    if path.is_symlink() or path.exists():
        try:
            head = read_record(path)[0] if path.is_file() and not path.is_symlink() else None
        except ConfigError:
            head = None
        if head is not None:
            raise ConfigError(
                f"{path}: a game is kept there: continue it with mexsim play --resume "
                f"{path}, or start another with --record FILE"
            )
        raise ConfigError(
            f"{path}: exists and is not a kept game of mexsim play: name a new file with "
            "--record FILE (mexsim never replaces a file it did not write)"
        )


def read_record(path: Path) -> tuple[dict, list[list]]:
    """(the header, the person's moves) of a record; ConfigError names what is wrong."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ConfigError(f"{path}: not a game record of mexsim play (not a plain file)")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such game record (mexsim play writes one)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not a game record of mexsim play ({exc})") from None
    lines = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                lines.append(json.loads(line))
            except (json.JSONDecodeError, RecursionError) as exc:
                raise ConfigError(
                    f"{path}:{lineno}: not a game record of mexsim play ({exc})"
                ) from None
    head = lines[0] if lines else None
    if not isinstance(head, dict) or not isinstance(head.get("person"), dict):
        raise ConfigError(f"{path}: not a game record of mexsim play (no person's header)")
    person = head["person"]
    if not (
        isinstance(head.get("match"), int)
        and not isinstance(head.get("match"), bool)
        and head["match"] >= 0
        and isinstance(person.get("seat"), int)
        and not isinstance(person.get("seat"), bool)
        and isinstance(person.get("config"), str)
        and isinstance(person.get("strategies", []), list)
        and all(isinstance(f, str) for f in person.get("strategies", []))
    ):
        raise ConfigError(
            f"{path}: its first line is damaged (it names the match, your seat and the config)"
        )
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
