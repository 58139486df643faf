"""A match a decision at a time, from Python: the step's face (mexsim/game/step.py) for
people, notebooks and learning libraries.

    from mexsim.tournament.table import Game
    g = Game.from_config("configs/default.toml", match=0)  # the match `mexsim run` plays
    while not g.is_over():
        g.play(g.suggest())          # every seat as its configured strategy plays
    g.totals()                       # exactly matches.parquet's totals of that match

``g.view(seat)`` is the int64 view a ``decide`` gets (R17), so a strategy's plain-Python
decide (``decide.py_func``) can be tried on it in seconds, before anything compiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mexsim.errors import ConfigError, StrategyError
from mexsim.game import step, view
from mexsim.game.enums import N_EVENT_FIELDS, N_FIELDS, Event, Field, Reason
from mexsim.game.kernel import deal_events, history_events
from mexsim.game.kernel_view import fill_static_view
from mexsim.game.play import KernelArgs, event_capacity, events_to_trace
from mexsim.game.rng import MASK64
from mexsim.game.rules import Rules
from mexsim.game.seat import Seat
from mexsim.game.signature import ready
from mexsim.game.state import (
    OUTCOME_BLOCKED,
    OUTCOME_OUT,
    W_BONEYARD,
    W_HANDS,
    W_LEFT,
    W_OUTCOME,
    W_PENALTY,
    W_PLAYED,
    W_PUBLIC,
    W_TURNS,
    W_WENT_OUT,
    WORLD_SIZE,
)
from mexsim.tournament.config import Config, config_schedule, load_config
from mexsim.tournament.lineup import match_policies
from mexsim.tournament.replay import match_header

Move = tuple[tuple[int, int], str]


def check_playable(config: Config, match: int) -> None:
    """ConfigError unless match ``match`` of ``config`` can be dealt again: a seed of its
    own, and a match the config plays."""
    if config.seed_drawn:
        raise ConfigError(
            f'{config.path}: seed = "random" draws a new seed each run: give the '
            "run's seed (its run.json) as [run] seed"
        )
    if not 0 <= match < config.matches:
        raise ConfigError(
            f"match {match} is out of range: {config.path} plays {config.matches} "
            f"matches (allowed: 0..{config.matches - 1})"
        )


class Game:
    """One match of ``rules`` between ``seats`` (seat s plays seats[s]), dealt as the core
    deals match ``match`` of a run with this ``seed`` (``deal``: the deal it replays, for
    duplicate deals; default the match). Always at a decision of the seat ``to_move``,
    or over."""

    def __init__(
        self,
        rules: Rules,
        seats: Sequence[Seat],
        seed: int,
        match: int = 0,
        deal: int | None = None,
        *,
        given_deals: bool = False,
    ) -> None:
        self.rules = rules
        self.match = match
        self.deal = match if deal is None else deal
        self.seed = seed
        self._args = KernelArgs.build(rules, seats)
        if len(self._args.players) != rules.players:
            raise ValueError(f"{len(self._args.players)} seats for {rules.players} players")
        self.players = self._args.players
        arrays = self._args.arrays
        self._decides = [self._args.decides[int(f)] for f in arrays.func]
        self._params = [arrays.params[s].copy() for s in range(rules.players)]
        self._notes = [int(n) for n in arrays.n_memory]
        self._seed = np.uint64(seed & MASK64)
        self.state = np.zeros(WORLD_SIZE, dtype=np.int64)
        tiles = self._args.tiles
        fill_static_view(
            self.state,
            match,
            self._args.numbers,
            tiles.lo,
            tiles.hi,
            tiles.pips,
            tiles.number_mask,
        )
        self.state[W_PUBLIC] = 1
        step.new_match(self.state, self._seed, self.deal)
        self._results = np.zeros((rules.rounds, rules.players, N_FIELDS), dtype=np.int64)
        self._over = False
        self._suggested: tuple[int, int, np.ndarray] | None = None
        self._decision = 0  # counts decisions: a suggestion holds for its own only
        # the match's event rows, as the core records them (trace)
        self._ev = np.zeros((event_capacity(rules), N_EVENT_FIELDS), dtype=np.int64)
        self._n_ev = 0
        self._seen = (0, 0)  # the round's history entries recorded, boneyard tiles drawn
        self.header: dict | None = None  # the trace's first event (from_config sets it)
        self._given_deals = given_deals
        self._awaiting: int | None = None  # the round waiting for its deal (given_deals)
        self._redealt = False  # True once redeal_hidden made it: no longer a match record
        self._new_round(0)

    @classmethod
    def from_config(
        cls,
        path: str | Path,
        match: int = 0,
        *,
        variant: int = 0,
        strategies: Sequence[str | Path] = (),
    ) -> Game:
        """Match ``match`` of a config, exactly as `mexsim run` plays it (the same deal,
        seats and streams; under rule variant ``variant``, the baseline by default)."""
        return cls.of_config(load_config(path, strategy_dirs=strategies), match, variant=variant)

    @classmethod
    def of_config(
        cls,
        config: Config,
        match: int = 0,
        *,
        variant: int = 0,
        seed: int | None = None,
        given_deals: bool = False,
    ) -> Game:
        """from_config's game of a loaded config; ``seed``: the same match under another
        run seed (its trace then has no header: no run played it)."""
        check_playable(config, match)
        game = cls(
            config.variant_rules(variant),
            match_policies(config, match),
            config.seed if seed is None else seed,
            match,
            config_schedule(config).deal_of(match),
            given_deals=given_deals,
        )
        if seed is None or seed == config.seed:
            game.header = match_header(config, match, variant)
        return game

    # --- where the match stands

    @property
    def to_move(self) -> int:
        """The seat whose decision it is; -1 once the match is over (or while a round
        waits for its deal, with ``given_deals``)."""
        return -1 if self._over or self._awaiting is not None else int(self.state[view.SEAT])

    @property
    def awaiting_deal(self) -> bool:
        """True while the round (``given_deals``) waits for ``deal_tiles``."""
        return self._awaiting is not None

    @property
    def round(self) -> int:
        """The round being played, 0-based (the last one once the match is over)."""
        return int(self.state[view.ROUND])

    def is_over(self) -> bool:
        return self._over

    def totals(self) -> list[int]:
        """Each seat's match total so far (the rounds finished)."""
        return [int(x) for x in self.state[view.SCORE : view.SCORE + self.rules.players]]

    def results(self) -> np.ndarray:
        """res[round, seat, enums.Field]: the rounds finished, as the core writes them
        (rounds.parquet's columns); zero for the rounds still to play."""
        return self._results.copy()

    # --- the decision

    def _check_seat(self, seat: int) -> int:
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"seat {seat} is not at the table (0..{self.rules.players - 1})")
        return seat

    def move_count(self) -> int:
        return 0 if self.to_move < 0 else int(self.state[view.N_MOVES])

    def legal_moves(self) -> list[Move]:
        """The seat to move's legal moves, in the core's order: ((the half that matches
        the train's end, the new end), the train: "own", "mexican" or "seat s")."""
        st = self.state
        seat = self.to_move
        moves: list[Move] = []
        for i in range(self.move_count()):
            t = int(st[view.MOVE_TILE + i])
            tr = int(st[view.MOVE_TRAIN + i])
            end = int(st[view.TRAIN_END + tr])
            lo, hi = int(st[view.TILE_LO + t]), int(st[view.TILE_HI + t])
            other = hi if lo == end else lo
            moves.append(((end, other), self.train_name(tr, seat)))
        return moves

    def train_name(self, train: int, seat: int | None = None) -> str:
        """A train as the seat to move (or ``seat``) calls it."""
        me = self.to_move if seat is None else seat
        if train == self.rules.players:
            return "mexican"
        return "own" if train == me else f"seat {train}"

    def view(self, seat: int) -> np.ndarray:
        """The int64 view ``seat`` would be given by the core now (R17): its legal moves
        when it is to move; a fresh array, yours to keep."""
        v = np.zeros(view.SIZE, dtype=np.int64)
        step.observe(self.state, self._check_seat(seat), self._notes[seat], v)
        return v

    def params(self, seat: int) -> np.ndarray:
        """The parameter values ``seat``'s strategy is called with (a copy)."""
        return self._params[self._check_seat(seat)].copy()

    def suggest(self) -> int:
        """The move index the seat to move's configured strategy chooses now (a forced
        move is 0, without asking it, as the core plays it). Asking again gives the same
        answer; the strategy's random stream and notes move on when the move is played,
        as in a run."""
        self._check_deciding("suggest")
        if self._suggested is not None and self._suggested[0] == self._decision:
            return self._suggested[1]
        seat = self.to_move
        nm = self.move_count()
        if nm == 1:
            return 0
        v = self.view(seat)
        decide = ready(self._decides[seat])
        try:
            i = int(decide(v, self._params[seat].copy()))
        except Exception as exc:
            raise StrategyError(
                f"strategy '{self.players[seat].name}' (seat {seat}) in match {self.match}, "
                f"round {self.round} raised {type(exc).__name__}: {exc}"
            ) from exc
        if not 0 <= i < nm:
            raise StrategyError(
                f"strategy '{self.players[seat].name}' (seat {seat}) in match {self.match}, "
                f"round {self.round} chose move {i} of {nm} legal moves (allowed: 0..{nm - 1})"
            )
        self._suggested = (self._decision, i, v)
        return i

    def play(self, i: int) -> None:
        """The seat to move plays its legal move ``i``; the rest of the turn follows the
        rules, then the others' turns up to the next decision (the next round's, once a
        round ends)."""
        self._check_deciding("play")
        nm = self.move_count()
        if not 0 <= i < nm:
            raise ValueError(f"move {i} is not legal: {nm} legal moves (0..{nm - 1})")
        seat = self.to_move
        if self._suggested is not None and self._suggested[0] == self._decision:
            step.take_back(self.state, seat, self._notes[seat], self._suggested[2])
        self._suggested = None
        self._decision += 1
        step.apply(self.state, i)
        self._record_history()
        if step.round_over(self.state):
            self._finish_round()

    def _check_deciding(self, what: str) -> None:
        if self._over:
            raise ValueError(f"the match is over: no move to {what}")
        if self._awaiting is not None:
            raise ValueError(
                f"round {self._awaiting} waits for its deal (Game.deal_tiles): no move to {what}"
            )

    # --- the deal

    def tiles_to_deal(self) -> list[int]:
        """The tiles the awaited round deals (``given_deals``): the whole set, less the
        engine where R5 sets it aside; in tile-number order."""
        if self._awaiting is None:
            raise ValueError("no round waits for its deal")
        skip = (
            int(step.engine_tile(self.state, self._awaiting))
            if self.rules.engine == "set_aside"
            else -1
        )
        return [t for t in range(self.rules.tiles) if t != skip]

    def deal_tiles(self, order: Sequence[int]) -> None:
        """Deal the awaited round (``given_deals``): ``order`` is tiles_to_deal() in the
        order a shuffle would lay them: seat 0's hand first, then seat 1's, …, then the
        boneyard from its top (the next tile drawn first). The round then goes on to its
        first decision."""
        if self._awaiting is None:
            raise ValueError("no round waits for its deal")
        want = self.tiles_to_deal()
        tiles = [int(t) for t in order]
        if sorted(tiles) != want:
            raise ValueError(
                f"a deal of round {self._awaiting} orders its {len(want)} tiles "
                "(Game.tiles_to_deal) once each"
            )
        rnd, self._awaiting = self._awaiting, None
        self.state[W_BONEYARD : W_BONEYARD + len(tiles)] = tiles
        self._start_round(rnd, len(tiles))

    def _new_round(self, rnd: int) -> None:
        if self._given_deals:
            self._awaiting = rnd
            return
        self._start_round(rnd, int(step.shuffle_deal(self.state, self._seed, self.deal, rnd)))

    def _start_round(self, rnd: int, n: int) -> None:
        """Round ``rnd`` from the deal in the state's first ``n`` boneyard words."""
        st = self.state
        step.start_round(st, rnd, n)
        P, H = self.rules.players, self.rules.hand_size
        self._n_ev = deal_events(st, self._ev, self._n_ev, rnd, P, H, n)
        self._seen = (0, P * H)
        self._record_history()

    # --- other games from this one

    def copy(self) -> Game:
        """An independent game standing where this one stands (its strategies shared)."""
        new = object.__new__(Game)
        new.__dict__ = self.__dict__.copy()
        new.state = self.state.copy()
        new._results = self._results.copy()
        new._ev = self._ev.copy()
        new._params = [p.copy() for p in self._params]
        new._notes = list(self._notes)
        if self._suggested is not None:
            d, i, v = self._suggested
            new._suggested = (d, i, v.copy())
        return new

    def __deepcopy__(self, memo: dict) -> Game:
        return self.copy()

    def redeal_hidden(self, words: Sequence[int]) -> Game:
        """A copy in which what the seat to move cannot see is dealt afresh: the other
        hands (their sizes kept) and the boneyard's order, uniformly among the tiles it
        cannot see, keeping each seat's shown lack of numbers (the forward model's
        ``deal_world``, from the four random ``words``); the other seats' random streams
        and notes are the new world's. Everything the seat sees is unchanged, so its
        view, legal moves and ``text`` are the same. Such a game has no match record
        (``trace`` refuses)."""
        from mexsim.strategy.forward import deal_world, world_from_view

        seat = self.to_move
        if seat < 0:
            raise ValueError("no seat is deciding: nothing to redeal from")
        new = self.copy()
        v = new.view(seat)
        v[view.RNG : view.RNG + 4] = np.array(
            [int(w) & MASK64 for w in words], dtype=np.uint64
        ).view(np.int64)
        world_from_view(v, new.state)
        deal_world(v, new.state, True)
        new._seen = (int(new.state[view.HISTORY_LEN]), 0)
        new._suggested = None
        new._redealt = True
        return new

    def _record_history(self) -> None:
        n_seen, drawn = self._seen
        self._n_ev, n_seen, drawn = history_events(
            self.state, self._ev, self._n_ev, self.round, n_seen, drawn
        )
        self._seen = (int(n_seen), int(drawn))

    def _finish_round(self) -> None:
        st = self.state
        rnd = self.round
        res = self._results[rnd]
        outcome = int(st[W_OUTCOME])
        for s in range(self.rules.players):
            res[s, Field.penalty] = st[W_PENALTY + s]
            res[s, Field.tiles_left] = st[W_LEFT + s]
            res[s, Field.went_out] = int(outcome == OUTCOME_OUT and st[W_WENT_OUT] == s)
            res[s, Field.blocked] = int(outcome == OUTCOME_BLOCKED)
            res[s, Field.tiles_played] = st[W_PLAYED + s]
            res[s, Field.draws] = st[view.SEAT_DRAWS + s]
            res[s, Field.first] = int(st[view.FIRST_MOVER] == s)
            res[s, Field.turns] = st[W_TURNS + s]
            res[s, Field.passes] = st[view.SEAT_PASSES + s]
        step.end_round(st)
        reason = Reason.blocked if outcome == OUTCOME_BLOCKED else Reason.out
        self._ev[self._n_ev] = (Event.round_end, rnd, -1, -1, reason)
        self._n_ev += 1
        if rnd + 1 < self.rules.rounds:
            self._new_round(rnd + 1)
        else:
            self._over = True

    def trace(self) -> list[dict]:
        """The match so far as `mexsim replay --format jsonl` writes it (docs/interface.md,
        "Game trace"): the header (from_config's), then every event. It holds every
        hand and the boneyard's order: the match's record, not what a seat may see."""
        if self._redealt:
            raise ValueError(
                "a game made by redeal_hidden is a possible world, not a match: no trace"
            )
        return events_to_trace(
            self.rules, self._results, self._ev[: self._n_ev].copy(), self.header
        )

    # --- in words

    def tile_text(self, tile: int) -> str:
        return f"{int(self.state[view.TILE_HI + tile])}|{int(self.state[view.TILE_LO + tile])}"

    def hand(self, seat: int) -> list[int]:
        """``seat``'s tiles (numbers, heaviest first): what that seat sees of its own."""
        base = W_HANDS + 4 * self._check_seat(seat)
        return [t for t in range(self.rules.tiles) if step.holds(self.state, base, t)]

    def text(self, seat: int) -> str:
        """What a player at ``seat`` sees, in words: nothing of another hand or of the
        boneyard's order (R17)."""
        st = self.state
        P = self.rules.players
        lines = [
            f"match {self.match}, round {self.round} of {self.rules.rounds}, engine "
            f"{int(st[view.ENGINE])}|{int(st[view.ENGINE])}"
            + (" (over)" if self._over else f", seat {self.to_move} to move")
        ]
        lines.append(
            f"you are seat {seat}; your hand: "
            + " ".join(self.tile_text(t) for t in self.hand(seat))
        )
        n_open = int(st[view.N_OPEN])
        open_trains = [int(st[view.OPEN_DOUBLES + k]) for k in range(n_open)]
        for tr in range(P + (1 if self.rules.mexican_train else 0)):
            name = "Mexican train" if tr == P else f"seat {tr}'s train"
            marks = []
            if tr < P and st[view.TRAIN_MARKED + tr]:
                marks.append("marker")
            if tr in open_trains:
                marks.append("open double")
            lines.append(
                f"  {name}: end {int(st[view.TRAIN_END + tr])}, "
                f"{int(st[view.TRAIN_LEN + tr])} tiles"
                + (f" ({', '.join(marks)})" if marks else "")
            )
        lines.append(
            "hands: "
            + ", ".join(f"seat {s} {int(st[view.HAND_SIZE + s])}" for s in range(P))
            + f"; boneyard {int(st[view.BONEYARD])}"
        )
        lines.append("totals: " + ", ".join(f"seat {s} {x}" for s, x in enumerate(self.totals())))
        if not self._over and self.to_move == seat:
            lines.append("your legal moves:")
            for i, ((a, b), train) in enumerate(self.legal_moves()):
                lines.append(f"  {i}: {a}|{b} on {train}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        where = "over" if self._over else f"round {self.round}, seat {self.to_move} to move"
        return f"<Game match {self.match}, {self.rules.players} seats, {where}>"
