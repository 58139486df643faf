"""The reference engine: docs/rules.md as short, readable Python.

Slow on purpose — it is the executable rulebook that the numba core (mexsim/game/kernel.py)
is checked against, trace for trace. The turn procedure follows docs/rules.md; each
rule-enforcing branch names its rule id.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from mexsim.game import view as V
from mexsim.game.rng import MASK64, STREAM_SHUFFLE, Xoshiro, key_py, strategy_key_py
from mexsim.game.rules import Rules
from mexsim.game.seat import Seat, seated
from mexsim.game.signature import ready
from mexsim.game.tiles import TileSet, tile_set
from mexsim.game.trace_words import trace_train

Move = tuple[int, int]  # (tile number, train number); the Mexican train is number P
Event = dict


def as_int64(word: int) -> int:
    """A uint64 bit pattern as the int64 the view stores."""
    return word - (1 << 64) if word >= 1 << 63 else word


class Player:
    """A seat's strategy as the reference engine calls it: the plug-in's ``decide`` on a
    view filled from the reference's own state, with the seat's own random stream."""

    def __init__(self, seat: Seat, rng: Xoshiro) -> None:
        self.decide = ready(seat.decide)  # a shipped one the kernel plays: compiled now
        self.name = seat.name
        # a user's strategy may write over the view's fixed part (a built-in does not)
        self.user = not seat.trusted
        self.params = np.zeros(V.MAX_PARAMS, dtype=np.float64)
        self.params[: len(seat.params)] = seat.params
        self.rng = rng
        self.memory = np.zeros(seat.memory, dtype=np.int64)

    def show_own(self, view: np.ndarray) -> None:
        """The player's own random stream and notes, and nothing of another seat's."""
        k = len(self.memory)
        view[V.RNG : V.RNG + 4] = [as_int64(w) for w in self.rng.s]
        view[V.NOTES : V.NOTES + k] = self.memory
        view[V.NOTES + k : V.NOTES + V.MAX_MEMORY] = 0

    def choose(self, view: np.ndarray) -> int:
        k = len(self.memory)
        choice = int(self.decide(view, self.params))
        self.rng.s = [int(w) & MASK64 for w in view[V.RNG : V.RNG + 4]]
        self.memory[:] = view[V.NOTES : V.NOTES + k]
        return choice


def history_entry(kind: int, seat: int, tile: int = -1, train: int = -1) -> int:
    """A public event as the view's history holds it (mexsim/game/view.py)."""
    return kind | seat << 4 | (tile + 1) << 8 | (train + 1) << 16


def tile_words(tiles: Sequence[int] | set[int], words: int = 4) -> list[int]:
    """A set of tiles as the view's bitmask words (int64 bit patterns)."""
    out = [0] * words
    for t in tiles:
        out[t >> 6] |= 1 << (t & 63)
    return [as_int64(w) for w in out]


def static_view(rules: Rules, match: int) -> np.ndarray:
    """The view's parts fixed for a match (mexsim/game/view.py)."""
    ts = tile_set(rules.max_pip)
    view = np.zeros(V.SIZE, dtype=np.int64)
    view[V.MAX_PIP] = rules.max_pip
    view[V.PLAYERS] = rules.players
    view[V.RULE_FIRST_TURN_TRAIN] = rules.first_turn == "train"
    view[V.RULE_SET_ASIDE] = rules.engine == "set_aside"
    view[V.RULE_DRAW_TO_START] = rules.draw_to_start
    view[V.RULE_DOUBLE_BLANK_POINTS] = rules.double_blank_points
    view[V.RULE_HAND_SIZE] = rules.hand_size
    view[V.RULE_DRAW_LIMIT] = rules.draw_limit or ts.count
    view[V.RULE_MEXICAN_TRAIN] = rules.mexican_train
    view[V.TILES] = ts.count
    view[V.WORDS] = ts.number_mask.shape[1]
    view[V.MATCH] = match
    view[V.TILE_LO : V.TILE_LO + ts.count] = ts.lo
    view[V.TILE_HI : V.TILE_HI + ts.count] = ts.hi
    view[V.TILE_PIPS : V.TILE_PIPS + ts.count] = ts.pips
    for n in range(rules.max_pip + 1):
        for w in range(ts.number_mask.shape[1]):
            view[V.NUMBER_MASK + n * V.MAX_WORDS + w] = as_int64(int(ts.number_mask[n, w]))
    return view


@dataclass
class FixedPart:
    """The view's parts fixed for a match as static_view made them, and the seat whose
    user's strategy was called last, -1 when none: what it may have written over them is
    written back before another seat's strategy sees the view (the core does the same,
    mexsim/game/kernel.py)."""

    pristine: np.ndarray
    written_by: int = -1

    def show_to(self, view: np.ndarray, seat: int) -> None:
        if self.written_by >= 0 and self.written_by != seat:
            view[: V.TRAIN_END] = self.pristine[: V.TRAIN_END]
            view[V.TILE_LO : V.MOVE_TILE] = self.pristine[V.TILE_LO : V.MOVE_TILE]
            self.written_by = -1


@dataclass
class Train:
    end: int
    tiles: list[int] = field(default_factory=list)
    marked: bool = False


@dataclass
class RoundResult:
    penalties: list[int]
    tiles_left: list[int]
    went_out: int  # seat, or -1 when blocked
    blocked: bool
    tiles_played: list[int]
    draws: list[int]
    first: int = -1  # the seat that moved first (placed the engine, R5)
    turns: list[int] = field(default_factory=list)  # turns each seat took
    passes: list[int] = field(default_factory=list)  # its turns that ended in a pass


class Round:
    """One round of R4–R16, played to its end by :meth:`play`."""

    def __init__(
        self,
        rules: Rules,
        round_no: int,
        hands: list[list[int]],
        boneyard: list[int],
        players: Sequence[Player],
        view: np.ndarray,
        emit: Callable[[Event], None],
        fixed: FixedPart | None = None,
    ) -> None:
        self.rules = rules
        self.ts: TileSet = tile_set(rules.max_pip)
        self.P = rules.players
        self.r = round_no
        self.engine = rules.max_pip - round_no  # R4
        self.hands = [set(h) for h in hands]
        self.boneyard = deque(boneyard)
        self.players = players
        self.view = view  # shared by the rounds of a match: it carries the scores
        self.fixed = fixed  # shared too (None: a round played alone, nothing written back)
        self.emit = emit
        self.trains = [Train(self.engine) for _ in range(self.P + 1)]
        self.open_doubles: list[int] = []  # trains ending in an open double, oldest first
        self.had_turn = [False] * self.P
        self.pass_count = 0  # R15
        self.tiles_played = [0] * self.P
        self.draws = [0] * self.P
        self.passes = [0] * self.P
        self.turns = [0] * self.P
        self.history: list[int] = []  # the round's public events (R17), as the view has them
        self.first_mover = -1
        self.emit(
            {
                "event": "deal",
                "round": round_no,
                "engine": self.engine,
                "hands": [[list(self.ts.tile(t)) for t in sorted(h)] for h in hands],
                "boneyard": [list(self.ts.tile(t)) for t in boneyard],
            }
        )

    # ------------------------------------------------------------ table helpers
    def fits(self, tile: int, train: int) -> bool:
        end = self.trains[train].end
        return self.ts.lo[tile] == end or self.ts.hi[tile] == end

    def moves_on(self, seat: int, trains: Sequence[int]) -> list[Move]:
        hand = sorted(self.hands[seat])
        return [(t, tr) for tr in trains for t in hand if self.fits(t, tr)]

    def usable_trains(self, seat: int, first_turn: bool) -> list[int]:
        """R7/R11: own train always; Mexican (R19: if the table has it) and marked trains
        not on a first turn."""
        if first_turn:
            return [seat]
        others = [(seat + k) % self.P for k in range(1, self.P)]
        mexican = [self.P] if self.rules.mexican_train else []
        return [seat, *mexican] + [t for t in others if self.trains[t].marked]

    def draw(self, seat: int) -> int | None:
        if not self.boneyard:
            return None
        tile = self.boneyard.popleft()
        self.hands[seat].add(tile)
        self.draws[seat] += 1
        self.history.append(history_entry(V.H_DRAW, seat))
        self.emit(
            {"event": "draw", "round": self.r, "seat": seat, "tile": list(self.ts.tile(tile))}
        )
        return tile

    def draw_for(self, seat: int, moves: Callable[[], list[Move]], duty: bool) -> list[Move]:
        """R10: draw one tile (R18: up to draw_limit, or until one fits); R11
        draw_to_start: keep drawing while the own train is empty."""
        keep_drawing = self.rules.draw_to_start and not duty and not self.trains[seat].tiles
        limit = self.rules.draw_limit or self.ts.count
        drawn = 0
        while self.draw(seat) is not None:
            drawn += 1
            found = moves()
            if found or (drawn >= limit and not keep_drawing):
                return found
        return []

    def fill_view(self, seat: int, moves: list[Move], first: bool, duty: bool, laid: int) -> None:
        """Everything R17 lets the mover see, laid out as mexsim/game/view.py says."""
        v = self.view
        v[V.ROUND], v[V.ENGINE], v[V.SEAT] = self.r, self.engine, seat
        v[V.BONEYARD] = len(self.boneyard)
        v[V.N_OPEN] = len(self.open_doubles)
        v[V.FIRST_TURN], v[V.DUTY], v[V.LAID_THIS_TURN] = first, duty, laid
        v[V.N_MOVES] = len(moves)
        for t in range(V.MAX_TRAINS):
            train = self.trains[t] if t <= self.P else Train(self.engine)
            v[V.TRAIN_END + t], v[V.TRAIN_LEN + t] = train.end, len(train.tiles)
            v[V.TRAIN_MARKED + t] = train.marked
            v[V.OPEN_DOUBLES + t] = self.open_doubles[t] if t < len(self.open_doubles) else -1
        for s in range(self.P):
            v[V.HAND_SIZE + s] = len(self.hands[s])
        for w in range(self.ts.number_mask.shape[1]):
            word = sum(1 << (t - 64 * w) for t in self.hands[seat] if t >> 6 == w)
            v[V.HAND + w] = as_int64(word)
        for i, (tile, onto) in enumerate(moves):
            v[V.MOVE_TILE + i], v[V.MOVE_TRAIN + i] = tile, onto
        # nothing of another seat's moves beyond the mover's own
        v[V.MOVE_TILE + len(moves) : V.MOVE_TILE + V.MAX_MOVES] = 0
        v[V.MOVE_TRAIN + len(moves) : V.MOVE_TRAIN + V.MAX_MOVES] = 0
        self.show_public_table(v)
        self.players[seat].show_own(v)

    def show_public_table(self, v: np.ndarray) -> None:
        """R17's public table: the tiles on each train and on the table, the seats'
        counters and the round's history (zero beyond it)."""
        v[V.PASS_COUNT], v[V.FIRST_MOVER] = self.pass_count, self.first_mover
        v[V.TRAIN_TILES : V.HISTORY] = 0
        for t in range(self.P + 1):
            base = V.TRAIN_TILES + 4 * t
            v[base : base + 4] = tile_words(self.trains[t].tiles)
        on_table = {t for train in self.trains for t in train.tiles}
        v[V.TABLE_TILES : V.TABLE_TILES + 4] = tile_words(on_table | {self.ts.double(self.engine)})
        for s in range(self.P):
            v[V.SEAT_DRAWS + s] = self.draws[s]
            v[V.SEAT_PASSES + s] = self.passes[s]
            v[V.SEAT_STARTED + s] = self.had_turn[s]
        n = len(self.history)
        v[V.HISTORY_LEN] = n
        v[V.HISTORY : V.HISTORY + n] = self.history
        v[V.HISTORY + n : V.SIZE] = 0

    def play(
        self, seat: int, moves: list[Move], first: bool = False, duty: bool = False, laid: int = 0
    ) -> int:
        if len(moves) == 1:
            i = 0  # a forced move: the strategy is not asked (docs/rules.md)
        else:
            if self.fixed is not None:
                self.fixed.show_to(self.view, seat)
            self.fill_view(seat, moves, first, duty, laid)
            i = self.players[seat].choose(self.view)
            if self.fixed is not None and self.players[seat].user:
                self.fixed.written_by = seat
        if not 0 <= i < len(moves):
            raise ValueError(f"strategy of seat {seat} chose move {i} of {len(moves)}")
        tile, train = moves[i]
        tr = self.trains[train]
        tr.end = self.ts.hi[tile] if self.ts.lo[tile] == tr.end else self.ts.lo[tile]
        tr.tiles.append(tile)
        self.hands[seat].remove(tile)
        if train == seat:
            tr.marked = False  # R8: the owner's play removes the marker
        if train in self.open_doubles:
            self.open_doubles.remove(train)  # R13: a tile on a double satisfies it
        if self.ts.lo[tile] == self.ts.hi[tile]:
            self.open_doubles.append(train)  # R12: a double is open until covered
        self.pass_count = 0  # R15: a play resets the count
        self.tiles_played[seat] += 1
        self.history.append(history_entry(V.H_PLAY, seat, tile, train))
        self.emit(
            {
                "event": "play",
                "round": self.r,
                "seat": seat,
                "tile": list(self.ts.tile(tile)),
                "train": trace_train(train, self.P),
            }
        )
        return tile

    def pass_turn(self, seat: int) -> bool:
        """R8/R10 pass; returns True when R15 blocks the round."""
        self.emit({"event": "pass", "round": self.r, "seat": seat})
        train = self.trains[seat]
        self.passes[seat] += 1
        if not train.marked:
            train.marked = True
            self.pass_count = 1  # R15: a new marker restarts the count
            self.history.append(history_entry(V.H_MARK, seat))
        else:
            self.pass_count += 1
            self.history.append(history_entry(V.H_PASS, seat))
        return not self.boneyard and self.pass_count >= self.P

    def is_double(self, tile: int) -> bool:
        return self.ts.lo[tile] == self.ts.hi[tile]

    # ------------------------------------------------------------ turns
    def turn(self, seat: int) -> str | None:
        """Play one turn; returns "out", "blocked" or None (the round goes on)."""
        first = not self.had_turn[seat]
        self.had_turn[seat] = True
        self.turns[seat] += 1
        if self.open_doubles:
            return self.duty_turn(seat, first)
        if first and self.rules.first_turn == "train":
            return self.train_turn(seat)
        return self.ordinary_turn(seat, first)

    def duty_turn(self, seat: int, first: bool) -> str | None:
        """R13: the only legal play is on the oldest open double; one draw at most."""
        oldest = [self.open_doubles[0]]
        moves = self.moves_on(seat, oldest)
        if not moves:
            moves = self.draw_for(seat, lambda: self.moves_on(seat, oldest), duty=True)
        if not moves:
            return "blocked" if self.pass_turn(seat) else None
        self.play(seat, moves, first=first, duty=True)
        return "out" if not self.hands[seat] else None  # R14

    def train_turn(self, seat: int) -> str | None:
        """R11 first_turn = "train": lay a chain on the own train."""
        laid = 0
        last_was_double = False
        own = [seat]
        while True:
            moves = self.moves_on(seat, own)
            if not moves:
                if laid and not last_was_double:
                    return None  # the chain stops; no draw, no marker
                moves = self.draw_for(seat, lambda: self.moves_on(seat, own), duty=False)
                if not moves:
                    return "blocked" if self.pass_turn(seat) else None
            tile = self.play(seat, moves, first=True, laid=laid)
            if not self.hands[seat]:
                return "out"  # R14
            laid += 1
            last_was_double = self.is_double(tile)

    def ordinary_turn(self, seat: int, first: bool) -> str | None:
        """R9/R10/R12: play if able, a double obliges another play; else draw, else pass."""
        laid = 0
        while True:

            def legal() -> list[Move]:
                return self.moves_on(seat, self.usable_trains(seat, first))

            moves = legal()
            if not moves:
                moves = self.draw_for(seat, legal, duty=False)
                if not moves:
                    return "blocked" if self.pass_turn(seat) else None
            tile = self.play(seat, moves, first=first, laid=laid)
            if not self.hands[seat]:
                return "out"  # R14
            if not self.is_double(tile):
                return None
            laid += 1

    # ------------------------------------------------------------ the round
    def place_engine(self) -> int:
        """R5: returns the seat that takes the first turn."""
        if self.rules.engine == "set_aside":
            first = self.r % self.P
        else:
            engine_tile = self.ts.double(self.engine)
            holders = [s for s in range(self.P) if engine_tile in self.hands[s]]
            if holders:
                first = holders[0]
            else:
                seat = self.r % self.P
                while self.draw(seat) != engine_tile:
                    seat = (seat + 1) % self.P
                first = seat
            self.hands[first].remove(engine_tile)
        self.first_mover = first
        self.history.append(history_entry(V.H_ENGINE, first, self.ts.double(self.engine)))
        self.emit({"event": "engine", "round": self.r, "seat": first})
        return first

    def play_round(self) -> RoundResult:
        seat = self.place_engine()
        while True:
            outcome = self.turn(seat)
            if outcome is not None:
                break
            seat = (seat + 1) % self.P  # R2: clockwise
        values = [
            self.rules.double_blank_points if t == self.ts.double(0) else int(self.ts.pips[t])
            for t in range(self.ts.count)
        ]
        penalties = [sum(values[t] for t in hand) for hand in self.hands]  # R16
        for s, penalty in enumerate(penalties):
            self.view[V.SCORE + s] += penalty
        self.emit(
            {"event": "round_end", "round": self.r, "reason": outcome, "penalties": penalties}
        )
        return RoundResult(
            penalties=penalties,
            tiles_left=[len(h) for h in self.hands],
            went_out=seat if outcome == "out" else -1,
            blocked=outcome == "blocked",
            tiles_played=self.tiles_played,
            draws=self.draws,
            first=self.first_mover,
            turns=self.turns,
            passes=self.passes,
        )


def deal(rules: Rules, seed: int, match: int, round_no: int) -> tuple[list[list[int]], list[int]]:
    """R3/R5: shuffle (without the engine under set_aside) and deal; returns hands, boneyard."""
    ts = tile_set(rules.max_pip)
    engine_tile = ts.double(rules.max_pip - round_no)
    tiles = [t for t in range(ts.count) if not (rules.engine == "set_aside" and t == engine_tile)]
    Xoshiro(key_py(seed, match, STREAM_SHUFFLE, round_no)).shuffle(tiles)
    H, P = rules.hand_size, rules.players
    return [tiles[p * H : (p + 1) * H] for p in range(P)], tiles[P * H :]


@dataclass
class MatchRecord:
    events: list[Event]
    rounds: list[RoundResult]

    @property
    def totals(self) -> list[int]:
        per_round = [r.penalties for r in self.rounds]
        return [sum(seat) for seat in zip(*per_round, strict=True)]


def make_players(rules: Rules, seats: Sequence[Seat], seed: int, match: int) -> list[Player]:
    """Each seat's strategy with its own random stream, strategy_key(seed, match, seat)."""
    return [
        Player(seat, Xoshiro(strategy_key_py(seed, match, s)))
        for s, seat in enumerate(seated(seats))
    ]


def play_match(
    rules: Rules,
    seed: int,
    match: int,
    seats: Sequence[Seat],
    header: Event | None = None,
    deal_no: int | None = None,
) -> MatchRecord:
    """Play all N+1 rounds of match ``match`` with the given strategy per seat (R4).

    The shuffles and the seats' random streams come from deal ``deal_no`` (default: the
    match itself; duplicate deals replay one deal in several matches)."""
    events: list[Event] = [header] if header else []
    source = match if deal_no is None else deal_no
    players = make_players(rules, seats, seed, source)
    view = static_view(rules, match)
    fixed = FixedPart(view.copy())
    rounds = []
    for r in range(rules.rounds):
        hands, boneyard = deal(rules, seed, source, r)
        rounds.append(
            Round(rules, r, hands, boneyard, players, view, events.append, fixed).play_round()
        )
    record = MatchRecord(events, rounds)
    events.append({"event": "match_end", "totals": record.totals})
    return record
