"""An independent referee for game traces (docs/interface.md, "Game trace").

The referee replays a trace event by event. It simulates the round state (hands,
boneyard, trains and their open ends, markers, the open-double queue, first-turn flags,
the R15 pass counter, whose turn it is and what the turn procedure of docs/rules.md
expects next) and raises :class:`RefereeError` at the first event that the rules do not
allow at that point, or where an event the rules demand is missing. The error names the
rule id of docs/rules.md (R1–R17) that was broken; a trace that is not well-formed JSONL of
the documented events fails with the pseudo rule id ``"TRACE"``.

It shares nothing with the engines but the rule options (:mod:`mexsim.game.rules`), so it
can check them. Public API: :func:`check_trace`, :func:`check_jsonl`,
:func:`check_file`, and the lower-level :func:`check_round`.
"""

from __future__ import annotations

import json
from os import PathLike
from typing import Any

from mexsim.errors import ConfigError
from mexsim.game.rules import MAX_PLAYERS, MIN_PLAYERS, RULE_KEYS, Rules, resolve_rules
from mexsim.game.trace_words import MEXICAN

__all__ = ["TRACE", "RefereeError", "check_file", "check_jsonl", "check_round", "check_trace"]

TRACE = "TRACE"  # pseudo rule id: the trace is malformed (not a rule of the game)

# Results of one step of a turn; a played tile is reported by its code (>= 0).
_PASS = -1
_OVER = -2

# How the previous turn ended, for the error when that seat moves again.
_ENDED_BY_TILE = ("R12", "a turn ends after a non-double tile")
_ENDED_BY_PASS = ("R10", "a turn ends with a pass")
_ENDED_BY_DUTY = ("R13", "a tile on an open double ends the turn")
_ENDED_BY_CHAIN = ("R11", "a first-turn train stops when no tile fits after a non-double")

# A tile (a, b), a <= b, is coded as a << 4 | b (pips are at most 15).


def _tile_str(code: int) -> str:
    return f"{code >> 4}|{code & 15}"


class RefereeError(Exception):
    """A trace broke a rule.

    ``rule`` is the docs/rules.md rule id (``"R13"``) or ``"TRACE"`` for a malformed trace,
    ``index`` the index of the offending event in the trace (the trace's length when it
    ends early), ``round`` and ``seat`` where known, ``detail`` the bare explanation.
    """

    def __init__(
        self,
        rule: str,
        index: int,
        detail: str,
        round: int | None = None,
        seat: int | None = None,
    ) -> None:
        where = [f"round {round}"] if round is not None else []
        if seat is not None:
            where.append(f"seat {seat}")
        place = f"event {index}" + (f" ({', '.join(where)})" if where else "")
        super().__init__(f"{place}: {rule}: {detail}")
        self.rule = rule
        self.index = index
        self.round = round
        self.seat = seat
        self.detail = detail


class _Referee:
    """The replay state. One instance checks one match (or one round)."""

    prev_seat: int | None

    def __init__(self, events: list[Any], rules: Rules | None = None) -> None:
        self.events = events
        # event index -> the legal moves offered at that play, when asked for
        self.offered: dict[int, list[tuple[list[int], int | str]]] | None = None
        self.n_events = len(events)
        self.pos = 0
        self.r: int | None = None
        if rules is not None:
            self._set_rules(rules)

    # ----------------------------------------------------------------- plumbing

    def _set_rules(self, rules: Rules) -> None:
        self.rules = rules
        self.P = rules.players
        self.N = rules.max_pip
        self.train_mode = rules.first_turn == "train"
        self.dts = rules.draw_to_start
        self.mexican = rules.mexican_train  # R19
        n = self.N
        self.full_set = {a << 4 | b for a in range(n + 1) for b in range(a, n + 1)}
        self.limit = rules.draw_limit or len(self.full_set)  # R18 (0: until playable)

    def err(self, rule: str, detail: str, index: int | None = None) -> RefereeError:
        """An error at ``index`` (default: the event just read); the seat is the event's."""
        if index is None:
            index = self.pos - 1
        seat = None
        if 0 <= index < self.n_events:
            ev = self.events[index]
            if isinstance(ev, dict) and type(ev.get("seat")) is int:
                seat = ev["seat"]
        return RefereeError(rule, index, detail, self.r, seat)

    def skip_said(self) -> None:
        """Pass over "print" events: what a strategy printed, not a move."""
        while self.pos < self.n_events and _is_said(self.events[self.pos]):
            self.pos += 1

    def next(self, what: str) -> dict[str, Any]:
        self.skip_said()
        i = self.pos
        if i >= self.n_events:
            where = f" in round {self.r}" if self.r is not None else ""
            raise self.err("R4", f"the trace ends early{where}: expected {what}", index=i)
        ev = self.events[i]
        self.pos = i + 1
        if type(ev) is not dict or "event" not in ev:
            raise self.err(TRACE, f"not an event object: {ev!r}")
        return ev

    def check_round_field(self, ev: dict[str, Any]) -> None:
        if ev.get("round") != self.r:
            raise self.err(
                TRACE,
                f"the event says round {ev.get('round')!r}, but round {self.r} is being played",
            )

    def tile(self, raw: Any) -> int:
        """R1: a tile of the double-N set, written [a, b] with a <= b."""
        if type(raw) in (list, tuple) and len(raw) == 2:
            a, b = raw
            if type(a) is int and type(b) is int and 0 <= a <= b <= self.N:
                return a << 4 | b
        raise self.err(
            "R1", f"{raw!r} is not a tile of the double-{self.N} set written [a, b] with a <= b"
        )

    def train_name(self, t: int) -> str:
        return MEXICAN if t == self.P else f"train {t}"

    # -------------------------------------------------------------------- match

    def match(self) -> None:
        ev = self.next("the 'match' event")
        if ev["event"] != "match":
            raise self.err(TRACE, f"a trace starts with a 'match' event, not {ev['event']!r}")
        for key in ("match", "seed"):
            if type(ev.get(key)) is not int:
                raise self.err(TRACE, f"'{key}' must be an integer, got {ev.get(key)!r}")
        if "deal" in ev and type(ev["deal"]) is not int:  # duplicate deals' shared deal
            raise self.err(TRACE, f"'deal' must be an integer, got {ev['deal']!r}")
        players = ev.get("players")
        if not isinstance(players, list):
            raise self.err(TRACE, "'players' must be a list")
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise self.err("R2", f"{len(players)} players; allowed {MIN_PLAYERS}..{MAX_PLAYERS}")
        for seat, p in enumerate(players):
            if not isinstance(p, dict) or p.get("seat") != seat:
                raise self.err(TRACE, f"players[{seat}] must be an object with 'seat': {seat}")
        options = ev.get("rules")
        if not isinstance(options, dict):
            raise self.err(TRACE, "'rules' must be an object")
        missing = [k for k in RULE_KEYS if k not in options]
        if missing:
            raise self.err(TRACE, f"'rules' lacks the resolved option(s) {', '.join(missing)}")
        try:
            rules = resolve_rules(options, len(players), where="'rules'")
        except ConfigError as exc:
            raise self.err(TRACE, str(exc)) from None
        self._set_rules(rules)

        P = self.P
        totals = [0] * P
        # R4: N+1 rounds, engine N-r in round r; totals add up.
        for r in range(rules.rounds):
            penalties = self.round(r)
            for s in range(P):
                totals[s] += penalties[s]
        self.r = None
        ev = self.next("the 'match_end' event")
        if ev["event"] != "match_end":
            raise self.err(
                "R4",
                f"a match is {rules.rounds} rounds (N+1): expected "
                f"'match_end' after round {rules.max_pip}, got {ev['event']!r}",
            )
        got = ev.get("totals")
        if got != totals:
            raise self.err(
                "R4", f"totals {got!r} are not the sums of the round penalties {totals!r}"
            )
        if self.pos < self.n_events:
            raise self.err("R4", "an event after 'match_end'", index=self.pos)

    # -------------------------------------------------------------------- round

    def round(self, r: int) -> list[int]:
        """Check round ``r`` from its 'deal' to its 'round_end'; return the penalties."""
        self.r = r
        rules, P, N = self.rules, self.P, self.N
        ev = self.next(f"the 'deal' of round {r}")
        kind = ev["event"]
        if kind != "deal":
            if kind == "match_end":
                raise self.err(
                    "R4", f"the match ends after {r} rounds; a match is {rules.rounds} rounds (N+1)"
                )
            raise self.err("R4", f"expected the 'deal' of round {r}, got {kind!r}")
        self.check_round_field(ev)
        e = N - r
        eng = e << 4 | e
        if ev.get("engine") != e:
            raise self.err(
                "R4", f"round {r} uses the engine {e}|{e}, the deal says {ev.get('engine')!r}"
            )
        self.deal(ev, eng)

        # R5: the engine and the first player.
        hands, cnt = self.hands, self.cnt
        if rules.engine == "holder":
            placer = next((s for s in range(P) if eng in hands[s]), None)
            if placer is None:
                # Nobody holds it: draw clockwise from seat r mod P until it is drawn.
                s = r % P
                while placer is None:
                    ev = self.next(f"an engine-search draw by seat {s}")
                    if ev["event"] != "draw":
                        raise self.err(
                            "R5",
                            f"nobody holds the engine {e}|{e}: seats draw one "
                            f"tile each clockwise from seat {r % P} until it "
                            f"is drawn; expected a draw by seat {s}",
                        )
                    self.check_round_field(ev)
                    if ev.get("seat") != s:
                        raise self.err(
                            "R5",
                            f"the engine search draws clockwise from seat "
                            f"{r % P}: seat {s} draws next",
                        )
                    c = self.tile(ev.get("tile"))
                    self.check_front(c, "R5")
                    self.add(s, c)
                    if c == eng:
                        placer = s
                    s = (s + 1) % P
                why = f"seat {placer} drew the engine {e}|{e} and places it"
            else:
                why = f"seat {placer} holds the engine {e}|{e} and places it"
        else:
            placer = r % P
            why = f"the engine is set aside; seat {placer} (round {r} mod {P}) takes the first turn"
        ev = self.next("the 'engine' event")
        if ev["event"] != "engine":
            raise self.err("R5", f"expected the 'engine' event ({why}), got {ev['event']!r}")
        self.check_round_field(ev)
        if ev.get("seat") != placer:
            raise self.err("R5", f"the engine event names seat {ev.get('seat')!r}, but {why}")
        if rules.engine == "holder":
            hands[placer].discard(eng)
            cnt[placer][e] -= 1
            if not hands[placer]:
                # R14: placing the engine emptied the hand (possible only with hand_size 1).
                self.expect_end("out", f"seat {placer}'s hand is empty after placing the engine")
                return self.penalties

        # Turns (R2: clockwise from the player who placed the engine).
        mover = placer
        rule, why = "R5", f"seat {placer} takes the first turn ({why})"
        while not self.turn(mover, rule, why):
            self.prev_seat = mover
            rule, why = "R2", f"it is seat {(mover + 1) % P}'s turn (clockwise after seat {mover})"
            mover = (mover + 1) % P
        return self.penalties

    def deal(self, ev: dict[str, Any], eng: int) -> None:
        """R1 (one set, every tile once), R3 (hand sizes), R5 (set-aside engine)."""
        rules, P, N = self.rules, self.P, self.N
        raw_hands, raw_bone = ev.get("hands"), ev.get("boneyard")
        if not isinstance(raw_hands, list) or len(raw_hands) != P:
            raise self.err(TRACE, f"'hands' must list {P} hands")
        if not isinstance(raw_bone, list):
            raise self.err(TRACE, "'boneyard' must be a list")
        seen: set[int] = set()
        hands: list[set[int]] = []
        cnt: list[list[int]] = []

        def deal_once(t: Any) -> int:
            code = self.tile(t)
            if code in seen:  # R1: every tile of the set exactly once
                raise self.err("R1", f"{_tile_str(code)} is dealt twice")
            seen.add(code)
            return code

        for s, raw in enumerate(raw_hands):
            if not isinstance(raw, list):
                raise self.err(TRACE, f"the hand of seat {s} must be a list")
            if len(raw) != rules.hand_size:
                raise self.err(
                    "R3", f"seat {s} is dealt {len(raw)} tiles; hand_size is {rules.hand_size}"
                )
            hand: set[int] = set()
            c = [0] * (N + 1)
            for t in raw:
                code = deal_once(t)
                hand.add(code)
                a, b = code >> 4, code & 15
                c[a] += 1
                if b != a:
                    c[b] += 1
            hands.append(hand)
            cnt.append(c)
        bone: list[int] = []
        for t in raw_bone:
            bone.append(deal_once(t))
        if rules.engine == "set_aside":
            if eng in seen:
                raise self.err(
                    "R5",
                    f"the engine {_tile_str(eng)} must be set aside, in no hand "
                    "and not in the boneyard",
                )
            seen.add(eng)
        missing = self.full_set - seen
        if missing:
            names = " ".join(_tile_str(x) for x in sorted(missing))
            raise self.err("R1", f"the deal lacks tile(s) of the double-{N} set: {names}")
        if not bone:
            raise self.err("R3", "the deal leaves no tile in the boneyard")

        self.hands, self.cnt, self.bone, self.bpos = hands, cnt, bone, 0
        e = eng & 15
        self.end = [e] * (P + 1)  # R6: an empty train's open end is the engine number
        self.length = [0] * (P + 1)
        self.marker = [False] * (P + 1)  # R8; the Mexican train (index P) never has one
        self.dbl_open = [False] * (P + 1)  # R13: the train's last tile is an open double
        self.queue: list[int] = []  # R13: trains with an open double, oldest first
        self.had_turn = [False] * P  # R11
        self.passes = 0  # R15
        self.prev_seat = None  # the seat whose turn just ended, and how
        self.prev_end = _ENDED_BY_TILE
        self.penalties: list[int] = []

    def add(self, s: int, code: int) -> None:
        self.hands[s].add(code)
        c = self.cnt[s]
        a, b = code >> 4, code & 15
        c[a] += 1
        if b != a:
            c[b] += 1

    def check_front(self, code: int, rule: str) -> None:
        """R5/R10: draws come from the front of the boneyard."""
        bpos = self.bpos
        if bpos >= len(self.bone):
            raise self.err(rule, "drew from an empty boneyard")
        if code != self.bone[bpos]:
            raise self.err(
                rule,
                f"drew {_tile_str(code)}, but the next boneyard tile is "
                f"{_tile_str(self.bone[bpos])}",
            )
        self.bpos = bpos + 1

    # -------------------------------------------------------------------- turns

    def turn(self, s: int, rule: str, why: str) -> bool:
        """Play seat ``s``'s turn (docs/rules.md, "A turn"); True when the round ended."""
        first = not self.had_turn[s]
        self.had_turn[s] = True  # a duty turn spends the first turn too
        if self.queue:
            # R13: duty turn, the only legal moves are on the oldest open double.
            res = self.step(s, (self.queue[0],), "duty", rule, why, False)
            self.prev_end = _ENDED_BY_PASS if res == _PASS else _ENDED_BY_DUTY
            return res == _OVER
        if first and self.train_mode:
            return self.train_turn(s, rule, why)
        P = self.P
        if first:
            trains: tuple[int, ...] = (s,)  # R11: a "single" first turn: own train only
            mode = "first"
        else:
            # R7: own train, the Mexican train (R19: if any), and marked trains
            # (clockwise from s + 1).
            m = self.marker
            mexican = (P,) if self.mexican else ()
            trains = (s, *mexican, *[t % P for t in range(s + 1, s + P) if m[t % P]])
            mode = "normal"
        dts = self.dts
        while True:
            res = self.step(s, trains, mode, rule, why, dts)
            if res < 0:
                self.prev_end = _ENDED_BY_PASS
                return res == _OVER
            if res >> 4 != res & 15:
                self.prev_end = _ENDED_BY_TILE
                return False  # R12: the turn ends after a non-double tile
            # R12: a double obliges another play, with its own single draw.
            rule, why = "R12", f"seat {s} played the double {_tile_str(res)} and must play again"

    def train_turn(self, s: int, rule: str, why: str) -> bool:
        """R11, first_turn = "train": lay tiles on the own train while one fits."""
        cnt, end = self.cnt[s], self.end
        chain_may_stop = False  # a tile was laid and the last one was not a double
        while True:
            if chain_may_stop and not cnt[end[s]]:
                self.prev_end = _ENDED_BY_CHAIN
                return False  # R11: the chain stops; no draw, no marker
            res = self.step(s, (s,), "first", rule, why, self.dts)
            if res < 0:
                self.prev_end = _ENDED_BY_PASS
                return res == _OVER
            chain_may_stop = res >> 4 != res & 15
            rule, why = (
                "R11",
                (
                    f"seat {s}'s first-turn train goes on while a tile fits "
                    "its own train (or after a double)"
                ),
            )

    def move_event(self, s: int, rule: str, why: str) -> dict[str, Any]:
        """The next event, which must be a draw, play or pass by seat ``s``."""
        self.skip_said()
        i = self.pos
        if i >= self.n_events:
            raise self.err(
                "R4",
                f"the trace ends early in round {self.r}: expected a move by seat {s}",
                index=i,
            )
        ev = self.events[i]
        self.pos = i + 1
        kind = ev.get("event") if type(ev) is dict else None
        if kind == "play" or kind == "draw" or kind == "pass":
            if ev.get("round") != self.r:
                self.check_round_field(ev)
            seat = ev.get("seat")
            if seat != s:
                if rule == "R2" and seat == self.prev_seat:
                    # The previous mover goes on: say why its turn was over.
                    rule, why = self.prev_end[0], f"its turn ended ({self.prev_end[1]}); {why}"
                raise self.err(rule, f"seat {seat!r} moved, but {why}")
            return ev
        if kind == "round_end":
            reason = ev.get("reason")
            if reason == "blocked":
                raise self.err("R15", f"the round is not blocked yet ({self.block_state()})")
            if reason == "out":
                raise self.err(
                    "R14", f"the round ended 'out', but no hand is empty (seat {s} is to move)"
                )
            raise self.err(TRACE, f"unknown round_end reason {reason!r}")
        if kind in ("deal", "engine", "match", "match_end"):
            raise self.err(
                "R4",
                f"a {kind!r} event in the middle of round {self.r} (expected a move by seat {s})",
            )
        raise self.err(TRACE, f"not a known event: {ev!r}")

    def block_state(self) -> str:
        left = len(self.bone) - self.bpos
        if left:
            return f"the boneyard still holds {left} tile(s)"
        return f"{self.passes} pass(es) since the last play or new marker; {self.P} are needed"

    def legal_example(self, s: int, trains: tuple[int, ...]) -> str | None:
        """A legal (tile, train) for an error message, in the engines' move order."""
        end = self.end
        for t in trains:
            for code in sorted(self.hands[s]):
                if end[t] in (code >> 4, code & 15):
                    return f"{_tile_str(code)} on {self.train_name(t)}"
        return None

    def step(
        self,
        s: int,
        trains: tuple[int, ...],
        mode: str,
        rule: str,
        why: str,
        dts: bool,
    ) -> int:
        """One obligation to play (R9/R10): a tile code, or _PASS, or _OVER.

        ``trains`` are the trains seat ``s`` may use now; ``mode`` says why ("duty":
        R13, "first": R11, "normal": R7); ``dts`` allows repeated drawing (R11
        draw_to_start) while the own train is empty.
        """
        ev = self.move_event(s, rule, why)
        kind = ev["event"]
        if kind == "play":
            return self.play(ev, s, trains, mode)  # R9: any legal play is the strategy's choice
        cnt, end = self.cnt[s], self.end
        for t in trains:
            if cnt[end[t]]:
                verb = "drew" if kind == "draw" else "passed"
                example = self.legal_example(s, trains)
                raise self.err("R9", f"{verb} while a legal play existed ({example})")
        # R10: no legal play; draw (once, up to draw_limit (R18), or repeatedly under
        # draw_to_start), then pass.
        bone = self.bone
        drawn = 0
        while self.bpos < len(bone) and (drawn < self.limit or (dts and self.length[s] == 0)):
            if kind != "draw":
                if kind == "play":
                    self.check_play(ev, s, trains, mode)  # raises: nothing is playable
                if drawn and drawn < self.limit:
                    limit = self.rules.to_dict()["draw_limit"]
                    raise self.err(
                        "R18",
                        f"passed after {drawn} draw(s), but draw_limit = {limit} makes a "
                        "player draw again while no drawn tile can be played and the "
                        "boneyard has tiles",
                    )
                if drawn:
                    detail = (
                        "passed, but draw_to_start makes a player whose own train is empty "
                        "keep drawing until a drawn tile can be played or the boneyard "
                        "is empty"
                    )
                    raise self.err("R11", detail)
                raise self.err(
                    "R10",
                    f"passed without drawing (the boneyard holds {len(bone) - self.bpos} tile(s))",
                )
            code = self.tile(ev.get("tile"))
            self.check_front(code, "R10")
            self.add(s, code)
            drawn += 1
            a, b = code >> 4, code & 15
            fits = next((t for t in trains if end[t] == a or end[t] == b), None)
            if fits is not None:
                # R10: a drawn tile with a legal move must be played.
                ev = self.move_event(
                    s,
                    "R10",
                    f"seat {s} drew {_tile_str(code)}, which fits "
                    f"{self.train_name(fits)}, and must play it",
                )
                if ev["event"] != "play":
                    verb = "drew again" if ev["event"] == "draw" else "passed"
                    raise self.err(
                        "R10",
                        f"{verb}, but the drawn tile {_tile_str(code)} fits "
                        f"{self.train_name(fits)} and must be played",
                    )
                return self.play(ev, s, trains, mode)
            ev = self.move_event(
                s, "R10", f"seat {s} drew {_tile_str(code)}, which does not fit, and must pass"
            )
            kind = ev["event"]
        # R10: nothing to play and no draw left: pass (R8: mark the own train).
        if kind != "pass":
            if kind == "play":
                self.check_play(ev, s, trains, mode)  # raises: nothing is playable
            if self.bpos >= len(bone):
                detail = "drew from an empty boneyard"
            elif self.limit > 1:
                detail = (
                    f"drew a tile beyond draw_limit = {self.limit} (R18); the drawn tiles do "
                    "not fit, so the player passes"
                )
            elif mode == "duty":
                detail = "drew twice in a duty turn (R13: one draw, then pass)"
            else:
                detail = "drew a second tile; the drawn tile does not fit, so the player passes"
            raise self.err("R10", detail)
        m = self.marker
        if not m[s]:
            m[s] = True
            self.passes = 1  # R15: a new marker restarts the count
        else:
            self.passes += 1
        if self.passes >= self.P and self.bpos >= len(bone):
            self.expect_end(
                "blocked",
                f"the boneyard is empty and {self.passes} passes were "
                "made since the last play or new marker",
            )
            return _OVER
        return _PASS

    def check_play(
        self,
        ev: dict[str, Any],
        s: int,
        trains: tuple[int, ...],
        mode: str,
    ) -> tuple[int, int]:
        """A legal move for seat ``s`` now: (tile code, train index)."""
        code = self.tile(ev.get("tile"))
        t = ev.get("train")
        P = self.P
        if t == MEXICAN:
            if not self.mexican:
                raise self.err("R19", "the table has no Mexican train (mexican_train = false)")
            t = P
        elif type(t) is not int or not 0 <= t < P:
            raise self.err(TRACE, f"'train' must be a seat number or \"mexican\", got {t!r}")
        if code not in self.hands[s]:
            raise self.err("R6", f"{_tile_str(code)} is not in seat {s}'s hand")
        if t not in trains:
            name = self.train_name(t)
            if mode == "duty":
                q = trains[0]
                raise self.err(
                    "R13",
                    f"must play on the oldest open double "
                    f"{self.end[q]}|{self.end[q]} on {self.train_name(q)}, "
                    f"not on {name}",
                )
            if mode == "first":
                raise self.err("R11", f"a first turn is restricted to the own train, not {name}")
            raise self.err("R7", f"{name} is closed (it carries no marker)")
        e = self.end[t]
        if code >> 4 != e and code & 15 != e:
            raise self.err(
                "R6", f"{_tile_str(code)} does not match the open end {e} of {self.train_name(t)}"
            )
        return code, t

    def offer(self, s: int, trains: tuple[int, ...]) -> None:
        """Note the legal moves of the play just read, in the engines' move order
        (docs/rules.md: train by train as ``trains`` lists them, each by tile number)."""
        hand = sorted(self.hands[s], key=lambda c: (-((c >> 4) + (c & 15)), -(c & 15)))
        assert self.offered is not None  # asked for: play() calls this only then
        self.offered[self.pos - 1] = [
            ([code >> 4, code & 15], MEXICAN if t == self.P else t)
            for t in trains
            for code in hand
            if self.end[t] in (code >> 4, code & 15)
        ]

    def play(self, ev: dict[str, Any], s: int, trains: tuple[int, ...], mode: str) -> int:
        if self.offered is not None:
            self.offer(s, trains)
        code, t = self.check_play(ev, s, trains, mode)
        hand = self.hands[s]
        hand.discard(code)
        c = self.cnt[s]
        a, b = code >> 4, code & 15
        c[a] -= 1
        if b != a:
            c[b] -= 1
        self.end[t] = b if a == self.end[t] else a  # R6: the other half is the new open end
        self.length[t] += 1
        if t == s:
            self.marker[s] = False  # R8: playing on the own train removes the marker
        if self.dbl_open[t]:
            self.dbl_open[t] = False  # R13: a tile on the double satisfies it
            self.queue.remove(t)
        if a == b:
            self.dbl_open[t] = True  # R12/R13: a double stays open until covered
            self.queue.append(t)
        self.passes = 0  # R15: a play resets the count
        if not hand:
            # R14: an empty hand ends the round at once.
            self.expect_end("out", f"seat {s}'s hand is empty")
            return _OVER
        return code

    # -------------------------------------------------------------- end of round

    def expect_end(self, reason: str, why: str) -> None:
        """The round must end here (R14 "out" / R15 "blocked"); check the penalties (R16)."""
        rule = "R14" if reason == "out" else "R15"
        ev = self.next(f"'round_end' ({why})")
        if ev["event"] != "round_end":
            raise self.err(
                rule,
                f"the round must end here ({why}), but the trace goes on with "
                f"a {ev['event']!r} event",
            )
        self.check_round_field(ev)
        if ev.get("reason") != reason:
            raise self.err(
                rule, f"round_end reason {ev.get('reason')!r}, expected {reason!r} ({why})"
            )
        # R16: pips left in hand, 0|0 worth double_blank_points.
        dbp = self.rules.double_blank_points
        penalties = [
            sum(dbp if code == 0 else (code >> 4) + (code & 15) for code in hand)
            for hand in self.hands
        ]
        got = ev.get("penalties")
        if got != penalties:
            if not isinstance(got, list) or len(got) != self.P:
                raise self.err(TRACE, f"'penalties' must list {self.P} integers, got {got!r}")
            s = next(i for i in range(self.P) if got[i] != penalties[i])
            left = " ".join(_tile_str(x) for x in sorted(self.hands[s])) or "nothing"
            raise self.err(
                "R16",
                f"seat {s}'s penalty is {got[s]!r}, expected {penalties[s]} "
                f"(left in hand: {left}; 0|0 counts {dbp})",
            )
        self.penalties = penalties


# ----------------------------------------------------------------------- public


def _is_said(ev: Any) -> bool:
    return type(ev) is dict and ev.get("event") == "print"


def check_trace(events: list[dict[str, Any]]) -> None:
    """Replay a whole match trace; raise :class:`RefereeError` at the first violation."""
    _Referee(events).match()


def offered_moves(events: list[dict[str, Any]]) -> dict[int, list[tuple[list[int], int | str]]]:
    """For each play event of a match trace (by its index), the legal moves offered, as
    ``([a, b], train)`` in the engines' move order: the strategy chose among these (a
    single one is a forced move, played without asking it). Raises RefereeError as
    :func:`check_trace` does."""
    referee = _Referee(events)
    referee.offered = {}
    referee.match()
    return referee.offered


def check_round(rules: Rules, round_index: int, events: list[dict[str, Any]]) -> list[int]:
    """Check one round, from its 'deal' to its 'round_end', under ``rules``.

    ``events`` holds exactly that round (indices in errors refer to this list). Returns
    the round's penalties.
    """
    ref = _Referee(events, rules)
    penalties = ref.round(round_index)
    if ref.pos < ref.n_events:
        raise ref.err("R4", "an event after this round's 'round_end'", index=ref.pos)
    return penalties


def check_jsonl(text: str) -> None:
    """Check a trace given as JSONL text (one event per line; blank lines are ignored)."""
    events: list[dict[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise RefereeError(TRACE, len(events), f"line {lineno} is not JSON: {exc}") from None
    check_trace(events)


def check_file(path: str | PathLike[str]) -> None:
    """Check a JSONL trace file."""
    with open(path, encoding="utf-8") as f:
        check_jsonl(f.read())
