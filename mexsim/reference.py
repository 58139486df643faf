"""The reference engine: RULES.md as short, readable Python.

Slow on purpose — it is the executable rulebook that the numba core (mexsim/core.py)
is checked against, trace for trace. The turn procedure follows docs/rules.md; each
rule-enforcing branch names its rule id.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mexsim.rng import STREAM_SHUFFLE, STREAM_STRATEGY, Xoshiro, key_py
from mexsim.rules import Rules
from mexsim.tiles import TileSet, tile_set

Move = tuple[int, int]  # (tile number, train number); the Mexican train is number P
Chooser = Callable[[Sequence[Move], Xoshiro], int]
Event = dict


def choose_random(moves: Sequence[Move], rng: Xoshiro) -> int:
    """`random`: uniform over the legal moves."""
    return rng.bounded(len(moves))


def choose_greedy(moves: Sequence[Move], rng: Xoshiro) -> int:
    """`greedy`: the heaviest tile (lowest number); ties go to the earliest move."""
    return min(range(len(moves)), key=lambda i: moves[i][0])


CHOOSERS: dict[str, Chooser] = {"random": choose_random, "greedy": choose_greedy}


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


class Round:
    """One round of R4–R16, played to its end by :meth:`play`."""

    def __init__(
        self,
        rules: Rules,
        round_no: int,
        hands: list[list[int]],
        boneyard: list[int],
        choosers: Sequence[Chooser],
        rngs: Sequence[Xoshiro],
        emit: Callable[[Event], None],
    ) -> None:
        self.rules = rules
        self.ts: TileSet = tile_set(rules.max_pip)
        self.P = rules.players
        self.r = round_no
        self.engine = rules.max_pip - round_no  # R4
        self.hands = [set(h) for h in hands]
        self.boneyard = deque(boneyard)
        self.choosers = choosers
        self.rngs = rngs
        self.emit = emit
        self.trains = [Train(self.engine) for _ in range(self.P + 1)]
        self.open_doubles: list[int] = []  # trains ending in an open double, oldest first
        self.had_turn = [False] * self.P
        self.pass_count = 0  # R15
        self.tiles_played = [0] * self.P
        self.draws = [0] * self.P
        self.emit({
            "event": "deal", "round": round_no, "engine": self.engine,
            "hands": [[list(self.ts.tile(t)) for t in sorted(h)] for h in hands],
            "boneyard": [list(self.ts.tile(t)) for t in boneyard],
        })

    # ------------------------------------------------------------ table helpers
    def fits(self, tile: int, train: int) -> bool:
        end = self.trains[train].end
        return self.ts.lo[tile] == end or self.ts.hi[tile] == end

    def moves_on(self, seat: int, trains: Sequence[int]) -> list[Move]:
        hand = sorted(self.hands[seat])
        return [(t, tr) for tr in trains for t in hand if self.fits(t, tr)]

    def usable_trains(self, seat: int, first_turn: bool) -> list[int]:
        """R7/R11: own train always; Mexican and marked trains not on a first turn."""
        if first_turn:
            return [seat]
        others = [(seat + k) % self.P for k in range(1, self.P)]
        return [seat, self.P] + [t for t in others if self.trains[t].marked]

    def draw(self, seat: int) -> int | None:
        if not self.boneyard:
            return None
        tile = self.boneyard.popleft()
        self.hands[seat].add(tile)
        self.draws[seat] += 1
        self.emit({"event": "draw", "round": self.r, "seat": seat,
                   "tile": list(self.ts.tile(tile))})
        return tile

    def draw_for(self, seat: int, moves: Callable[[], list[Move]], duty: bool) -> list[Move]:
        """R10: draw one tile; R11 draw_to_start: keep drawing while the own train is empty."""
        keep_drawing = self.rules.draw_to_start and not duty and not self.trains[seat].tiles
        while self.draw(seat) is not None:
            found = moves()
            if found or not keep_drawing:
                return found
        return []

    def play(self, seat: int, moves: list[Move]) -> int:
        i = self.choosers[seat](moves, self.rngs[seat])
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
        self.emit({"event": "play", "round": self.r, "seat": seat,
                   "tile": list(self.ts.tile(tile)),
                   "train": "mexican" if train == self.P else train})
        return tile

    def pass_turn(self, seat: int) -> bool:
        """R8/R10 pass; returns True when R15 blocks the round."""
        self.emit({"event": "pass", "round": self.r, "seat": seat})
        train = self.trains[seat]
        if not train.marked:
            train.marked = True
            self.pass_count = 1  # R15: a new marker restarts the count
        else:
            self.pass_count += 1
        return not self.boneyard and self.pass_count >= self.P

    def is_double(self, tile: int) -> bool:
        return self.ts.lo[tile] == self.ts.hi[tile]

    # ------------------------------------------------------------ turns
    def turn(self, seat: int) -> str | None:
        """Play one turn; returns "out", "blocked" or None (the round goes on)."""
        first = not self.had_turn[seat]
        self.had_turn[seat] = True
        if self.open_doubles:
            return self.duty_turn(seat)
        if first and self.rules.first_turn == "train":
            return self.train_turn(seat)
        return self.ordinary_turn(seat, first)

    def duty_turn(self, seat: int) -> str | None:
        """R13: the only legal play is on the oldest open double; one draw at most."""
        oldest = [self.open_doubles[0]]
        moves = self.moves_on(seat, oldest)
        if not moves:
            moves = self.draw_for(seat, lambda: self.moves_on(seat, oldest), duty=True)
        if not moves:
            return "blocked" if self.pass_turn(seat) else None
        self.play(seat, moves)
        return "out" if not self.hands[seat] else None  # R14

    def train_turn(self, seat: int) -> str | None:
        """R11 first_turn = "train": lay a chain on the own train."""
        laid = False
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
            tile = self.play(seat, moves)
            if not self.hands[seat]:
                return "out"  # R14
            laid = True
            last_was_double = self.is_double(tile)

    def ordinary_turn(self, seat: int, first: bool) -> str | None:
        """R9/R10/R12: play if able, a double obliges another play; else draw, else pass."""
        while True:
            def legal() -> list[Move]:
                return self.moves_on(seat, self.usable_trains(seat, first))

            moves = legal()
            if not moves:
                moves = self.draw_for(seat, legal, duty=False)
                if not moves:
                    return "blocked" if self.pass_turn(seat) else None
            tile = self.play(seat, moves)
            if not self.hands[seat]:
                return "out"  # R14
            if not self.is_double(tile):
                return None

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
        self.emit({"event": "round_end", "round": self.r, "reason": outcome,
                   "penalties": penalties})
        return RoundResult(
            penalties=penalties,
            tiles_left=[len(h) for h in self.hands],
            went_out=seat if outcome == "out" else -1,
            blocked=outcome == "blocked",
            tiles_played=self.tiles_played,
            draws=self.draws,
        )


def deal(rules: Rules, seed: int, match: int, round_no: int) -> tuple[list[list[int]], list[int]]:
    """R3/R5: shuffle (without the engine under set_aside) and deal; returns hands, boneyard."""
    ts = tile_set(rules.max_pip)
    engine_tile = ts.double(rules.max_pip - round_no)
    tiles = [t for t in range(ts.count) if not (rules.engine == "set_aside" and t == engine_tile)]
    Xoshiro(key_py(seed, match, STREAM_SHUFFLE, round_no)).shuffle(tiles)
    H, P = rules.hand_size, rules.players
    return [tiles[p * H:(p + 1) * H] for p in range(P)], tiles[P * H:]


@dataclass
class MatchRecord:
    events: list[Event]
    rounds: list[RoundResult]

    @property
    def totals(self) -> list[int]:
        per_round = [r.penalties for r in self.rounds]
        return [sum(seat) for seat in zip(*per_round, strict=True)]


def play_match(
    rules: Rules,
    seed: int,
    match: int,
    strategies: Sequence[str],
    header: Event | None = None,
) -> MatchRecord:
    """Play all N+1 rounds of match ``match`` with the given strategy per seat (R4)."""
    events: list[Event] = [header] if header else []
    choosers = [CHOOSERS[name] for name in strategies]
    rngs = [Xoshiro(key_py(seed, match, STREAM_STRATEGY, s)) for s in range(rules.players)]
    rounds = []
    for r in range(rules.rounds):
        hands, boneyard = deal(rules, seed, match, r)
        rounds.append(Round(rules, r, hands, boneyard, choosers, rngs, events.append).play_round())
    record = MatchRecord(events, rounds)
    events.append({"event": "match_end", "totals": record.totals})
    return record
