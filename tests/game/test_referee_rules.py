"""The referee (mexsim/game/referee.py) accepts legal traces and names the rule a bad one breaks.

Hand-built rounds (double-6 set, small hands) exercise each rule; a small random game
player written here from docs/rules.md makes complete legal matches for every rule
option, which the referee must accept and whose mutations it must reject.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from mexsim.game.referee import RefereeError, check_jsonl, check_round, check_trace
from mexsim.game.rules import Rules, resolve_rules

Tile = tuple[int, int]
M = "mexican"

# ---------------------------------------------------------------------------------
# A random legal player, written from docs/rules.md "A turn" (independent of the
# referee's replay code). It produces complete traces.


class _Round:
    def __init__(self, rules: Rules, r: int, rng: random.Random, events: list[dict]) -> None:
        self.rules, self.r, self.rng, self.ev = rules, r, rng, events
        self.P = rules.players

    def emit(self, kind: str, **fields: Any) -> None:
        self.ev.append({"event": kind, "round": self.r, **fields})

    def run(self) -> list[int]:
        ru, P, rng = self.rules, self.P, self.rng
        e = ru.max_pip - self.r
        engine = (e, e)
        tiles = [(a, b) for a in range(ru.max_pip + 1) for b in range(a, ru.max_pip + 1)]
        if ru.engine == "set_aside":
            tiles.remove(engine)
        rng.shuffle(tiles)
        H = ru.hand_size
        self.hands = [tiles[p * H : (p + 1) * H] for p in range(P)]
        self.bone = tiles[P * H :]
        self.emit(
            "deal",
            engine=e,
            hands=[[list(t) for t in h] for h in self.hands],
            boneyard=[list(t) for t in self.bone],
        )
        if ru.engine == "holder":
            first = next((p for p in range(P) if engine in self.hands[p]), None)
            p = self.r % P
            while first is None:
                t = self.bone.pop(0)
                self.hands[p].append(t)
                self.emit("draw", seat=p, tile=list(t))
                if t == engine:
                    first = p
                p = (p + 1) % P
            self.hands[first].remove(engine)
        else:
            first = self.r % P
        self.emit("engine", seat=first)
        self.ends = [e] * (P + 1)
        self.sizes = [0] * (P + 1)
        self.marked = [False] * P
        self.open: list[int] = []  # trains whose last tile is an open double, oldest first
        self.had_turn = [False] * P
        self.count = 0
        self.over = not self.hands[first]
        if self.over:
            return self.finish("out")
        p = first
        while not self.over:
            self.turn(p)
            p = (p + 1) % P
        return self.penalties

    def finish(self, reason: str) -> list[int]:
        dbp = self.rules.double_blank_points
        self.penalties = [sum(dbp if t == (0, 0) else t[0] + t[1] for t in h) for h in self.hands]
        self.ev.append(
            {"event": "round_end", "round": self.r, "reason": reason, "penalties": self.penalties}
        )
        self.over = True
        return self.penalties

    def moves(self, p: int, trains: list[int], tiles: list[Tile] | None = None) -> list:
        tiles = self.hands[p] if tiles is None else tiles
        return [(t, tr) for tr in trains for t in tiles if self.ends[tr] in t]

    def play(self, p: int, move: tuple[Tile, int]) -> bool:
        """Play; True if the tile was a double and the round goes on."""
        t, tr = move
        self.hands[p].remove(t)
        self.ends[tr] = t[1] if t[0] == self.ends[tr] else t[0]
        self.sizes[tr] += 1
        if tr == p:
            self.marked[p] = False
        if tr in self.open:
            self.open.remove(tr)
        if t[0] == t[1]:
            self.open.append(tr)
        self.count = 0
        self.emit("play", seat=p, tile=list(t), train=M if tr == self.P else tr)
        if not self.hands[p]:
            self.finish("out")
            return False
        return t[0] == t[1]

    def do_pass(self, p: int) -> None:
        if self.marked[p]:
            self.count += 1
        else:
            self.marked[p] = True
            self.count = 1
        self.emit("pass", seat=p)
        if not self.bone and self.count >= self.P:
            self.finish("blocked")

    def draw_and_try(self, p: int, trains: list[int], once: bool) -> bool | None:
        """R10/R11 drawing: None after a pass, else what play() returned."""
        multi = self.rules.draw_to_start and not once
        limit = self.rules.draw_limit or len(self.bone)  # R18 (0: until playable)
        drawn = 0
        while self.bone:
            t = self.bone.pop(0)
            self.hands[p].append(t)
            drawn += 1
            self.emit("draw", seat=p, tile=list(t))
            ms = self.moves(p, trains, [t])
            if ms:
                return self.play(p, self.rng.choice(ms))
            if drawn >= limit and not (multi and self.sizes[p] == 0):
                break
        self.do_pass(p)
        return None

    def turn(self, p: int) -> None:
        first = not self.had_turn[p]
        self.had_turn[p] = True
        if self.open:  # duty
            trains = [self.open[0]]
            ms = self.moves(p, trains)
            if ms:
                self.play(p, self.rng.choice(ms))
            else:
                self.draw_and_try(p, trains, once=True)
            return
        if first:
            trains = [p]
        else:
            mexican = [self.P] if self.rules.mexican_train else []  # R19
            trains = [p, *mexican] + [
                q % self.P for q in range(p + 1, p + self.P) if self.marked[q % self.P]
            ]
        if first and self.rules.first_turn == "train":
            laid_single = False
            while True:
                ms = self.moves(p, trains)
                if ms:
                    again = self.play(p, self.rng.choice(ms))
                elif laid_single:
                    return
                else:
                    again = self.draw_and_try(p, trains, once=False)
                    if again is None:
                        return
                if self.over:
                    return
                laid_single = not again
        while True:
            ms = self.moves(p, trains)
            if ms:
                again = self.play(p, self.rng.choice(ms))
            else:
                again = self.draw_and_try(p, trains, once=False)
            if not again or self.over:
                return


def random_match(options: dict[str, Any], players: int, seed: int) -> list[dict]:
    rules = resolve_rules(options, players)
    rng = random.Random(seed)
    events: list[dict] = [
        {
            "event": "match",
            "match": seed,
            "seed": 1,
            "players": [
                {"seat": s, "player": f"p{s}", "strategy": "random"} for s in range(players)
            ],
            "rules": rules.to_dict(),
        }
    ]
    totals = [0] * players
    for r in range(rules.rounds):
        pens = _Round(rules, r, rng, events).run()
        totals = [a + b for a, b in zip(totals, pens, strict=True)]
    events.append({"event": "match_end", "totals": totals})
    return events


OPTION_SETS = [
    {"preset": "seed-001", "max_pip": 6, "hand_size": 5},
    {"preset": "seed-000", "max_pip": 6, "hand_size": 4},
    {"preset": "standard", "max_pip": 6, "hand_size": 6},
    {"preset": "seed-001", "max_pip": 9, "hand_size": 7, "draw_to_start": True},
    {
        "preset": "standard",
        "max_pip": 9,
        "hand_size": 8,
        "first_turn": "train",
        "double_blank_points": 50,
    },
    {"preset": "seed-000", "max_pip": 9, "hand_size": 3, "engine": "set_aside"},
    {"preset": "seed-001"},
    {"preset": "seed-000"},
    {"preset": "standard", "max_pip": 15, "hand_size": 12},
    # the house rules R18 and R19
    {"preset": "seed-001", "max_pip": 6, "hand_size": 5, "draw_limit": 3, "mexican_train": False},
    {"preset": "standard", "max_pip": 9, "hand_size": 6, "draw_limit": "until_playable"},
    {"preset": "seed-000", "max_pip": 6, "hand_size": 4, "draw_limit": 2},
]


def expect(rule: str, events: list[dict], index: int | None = None) -> RefereeError:
    with pytest.raises(RefereeError) as info:
        check_trace(events)
    err = info.value
    assert err.rule == rule, str(err)
    if index is not None:
        assert err.index == index, str(err)
    return err


def expect_round(
    rule: str, rules: Rules, events: list[dict], index: int | None = None
) -> RefereeError:
    with pytest.raises(RefereeError) as info:
        check_round(rules, 0, events)
    err = info.value
    assert err.rule == rule, str(err)
    if index is not None:
        assert err.index == index, str(err)
    return err


# ---------------------------------------------------------------------------------
# Hand-built rounds: round 0 of a double-6 set (engine 6|6), tiles written "a|b".


def tl(text: str) -> list[int]:
    a, b = sorted(int(x) for x in text.split("|"))
    return [a, b]


def deal(rules: Rules, hands: list[str], front: str = "") -> dict:
    """A round-0 deal; the boneyard is ``front`` then every other tile in order."""
    hand_tiles = [[tl(x) for x in h.split()] for h in hands]
    front_tiles = [tl(x) for x in front.split()]
    e = rules.max_pip
    used = {tuple(t) for h in hand_tiles for t in h} | {tuple(t) for t in front_tiles}
    if rules.engine == "set_aside":
        used.add((e, e))
    rest = [[a, b] for a in range(e + 1) for b in range(a, e + 1) if (a, b) not in used]
    return {
        "event": "deal",
        "round": 0,
        "engine": e,
        "hands": hand_tiles,
        "boneyard": front_tiles + rest,
    }


def engine(seat: int) -> dict:
    return {"event": "engine", "round": 0, "seat": seat}


def play(seat: int, tile: str, train: int | str) -> dict:
    return {"event": "play", "round": 0, "seat": seat, "tile": tl(tile), "train": train}


def draw(seat: int, tile: str) -> dict:
    return {"event": "draw", "round": 0, "seat": seat, "tile": tl(tile)}


def pass_(seat: int) -> dict:
    return {"event": "pass", "round": 0, "seat": seat}


def end(reason: str, penalties: list[int]) -> dict:
    return {"event": "round_end", "round": 0, "reason": reason, "penalties": penalties}


def replaced(events: list[dict], index: int, *new: dict) -> list[dict]:
    """``events`` with event ``index`` replaced by ``new`` (nothing: deleted)."""
    return [*events[:index], *new, *events[index + 1 :]]


def inserted(events: list[dict], index: int, *new: dict) -> list[dict]:
    return [*events[:index], *new, *events[index:]]


STANDARD = {"preset": "standard", "max_pip": 6}

# Round A: standard rules, 2 players, 2 tiles each; seat 0 goes out with a double.
RULES_A = resolve_rules({**STANDARD, "hand_size": 2, "double_blank_points": 50}, 2)
ROUND_A = [
    deal(RULES_A, ["6|1 1|1", "6|4 0|0"], "3|5"),
    engine(0),  # 1  set aside: seat r mod P = 0 starts
    play(0, "6|1", 0),  # 2
    play(1, "6|4", 1),  # 3
    play(0, "1|1", 0),  # 4  the last tile is a double: out at once (R14)
    end("out", [0, 50]),  # 5  0|0 counts 50 (R16)
]

# Round B: standard, 2 players, 3 tiles: a double left open, duty turns, markers.
RULES_B = resolve_rules({**STANDARD, "hand_size": 3, "double_blank_points": 50}, 2)
ROUND_B = [
    deal(RULES_B, ["6|1 1|1 2|3", "6|4 4|5 0|0"], "3|5 2|5 0|1"),  # then 0|2 0|3 ...
    engine(0),  # 1
    play(0, "6|1", 0),  # 2
    play(1, "6|4", 1),  # 3
    play(0, "1|1", 0),  # 4  double: play again (R12)
    draw(0, "3|5"),  # 5  nothing fits: draw once (R10)
    pass_(0),  # 6  marks train 0 (R8); 1|1 stays open
    draw(1, "2|5"),  # 7  duty on 1|1 (R13): no 1, draw
    pass_(1),  # 8
    draw(0, "0|1"),  # 9  seat 0's duty
    play(0, "0|1", 0),  # 10 the drawn tile fits: played (R10); marker off (R8)
    play(1, "4|5", 1),  # 11
    draw(0, "0|2"),  # 12
    play(0, "0|2", 0),  # 13
    play(1, "2|5", 1),  # 14
    play(0, "2|3", 0),  # 15 train 1 (open end 2) is closed again
    draw(1, "0|3"),  # 16
    pass_(1),  # 17
    play(0, "3|5", 0),  # 18 out
    end("out", [0, 53]),  # 19
]

# Round C: standard, 2 players, 5 tiles: two open doubles, served oldest first.
RULES_C = resolve_rules({**STANDARD, "hand_size": 5}, 2)
ROUND_C = [
    deal(RULES_C, ["6|1 1|4 2|2 4|4 0|5", "6|3 6|2 2|5 4|5 3|3"], "0|1 1|3"),
    engine(0),  # 1
    play(0, "6|1", 0),  # 2
    play(1, "6|3", 1),  # 3
    play(0, "1|4", 0),  # 4
    play(1, "6|2", M),  # 5
    play(0, "2|2", M),  # 6  open double on the Mexican train (older)
    play(0, "4|4", 0),  # 7  open double on train 0 (newer)
    draw(0, "0|1"),  # 8
    pass_(0),  # 9
    play(1, "2|5", M),  # 10 duty: the oldest open double first (R13)
    draw(0, "1|3"),  # 11 duty on 4|4
    pass_(0),  # 12
    play(1, "4|5", 0),  # 13 duty, on a closed train
    play(0, "0|5", 0),  # 14
    play(1, "3|3", 1),  # 15 out
    end("out", [5, 0]),  # 16
]

# Round D: seed-001 (engine holder, first_turn "train"), 2 players, 5 tiles.
RULES_D = resolve_rules({"preset": "seed-001", "max_pip": 6, "hand_size": 5}, 2)
ROUND_D = [
    deal(RULES_D, ["6|2 2|4 5|5 0|3 4|4", "6|6 6|1 1|1 1|3 0|2"], "3|4 5|6"),
    engine(1),  # 1  seat 1 holds 6|6 (R5)
    play(1, "6|1", 1),  # 2  first-turn train (R11)
    play(1, "1|1", 1),  # 3
    play(1, "1|3", 1),  # 4  0|2 does not fit: the train stops, no draw
    play(0, "6|2", 0),  # 5
    play(0, "2|4", 0),  # 6
    play(0, "4|4", 0),  # 7  a double and nothing fits: draw
    draw(0, "3|4"),  # 8
    play(0, "3|4", 0),  # 9  the drawn tile fits: the train goes on
    play(0, "0|3", 0),  # 10
    draw(1, "5|6"),  # 11
    play(1, "5|6", M),  # 12
    play(0, "5|5", M),  # 13 out
    end("out", [0, 2]),  # 14
]

# Round E: seed-000 (holder, "single", draw_to_start), 2 players, 2 tiles.
RULES_E = resolve_rules(
    {"preset": "seed-000", "max_pip": 6, "hand_size": 2, "double_blank_points": 25}, 2
)
ROUND_E = [
    deal(RULES_E, ["6|6 2|3", "6|1 4|5"], "0|5 3|4 2|6 0|0 1|2 5|6 0|4 1|4"),
    engine(0),  # 1
    draw(0, "0|5"),  # 2  own train empty: keep drawing (R11 draw_to_start)
    draw(0, "3|4"),  # 3
    draw(0, "2|6"),  # 4
    play(0, "2|6", 0),  # 5
    play(1, "6|1", 1),  # 6
    play(0, "2|3", 0),  # 7
    draw(1, "0|0"),  # 8  own train started: one draw only
    pass_(1),  # 9
    play(0, "3|4", 0),  # 10
    draw(1, "1|2"),  # 11
    play(1, "1|2", 1),  # 12
    draw(0, "5|6"),  # 13
    play(0, "5|6", M),  # 14
    play(1, "4|5", M),  # 15
    draw(0, "0|4"),  # 16
    play(0, "0|4", 0),  # 17
    draw(1, "1|4"),  # 18
    play(1, "1|4", M),  # 19
    play(0, "0|5", 0),  # 20 out
    end("out", [0, 25]),  # 21
]

# Round A3: standard, 3 players (so a wrong seat is not just "the same seat again").
RULES_A3 = resolve_rules({**STANDARD, "hand_size": 2}, 3)
ROUND_A3 = [
    deal(RULES_A3, ["6|1 1|1", "6|4 0|0", "6|2 2|2"]),
    engine(0),  # 1
    play(0, "6|1", 0),  # 2
    play(1, "6|4", 1),  # 3
    play(2, "6|2", 2),  # 4
    play(0, "1|1", 0),  # 5
    end("out", [0, 0, 4]),  # 6
]


@pytest.mark.parametrize(
    ("rules", "events"),
    [
        (RULES_A, ROUND_A),
        (RULES_B, ROUND_B),
        (RULES_C, ROUND_C),
        (RULES_D, ROUND_D),
        (RULES_E, ROUND_E),
        (RULES_A3, ROUND_A3),
    ],
)
def test_hand_built_rounds_are_accepted(rules: Rules, events: list[dict]) -> None:
    assert check_round(rules, 0, events) == events[-1]["penalties"]


def test_r9_drawing_or_passing_while_a_play_exists() -> None:
    # Seat 1 holds 2|5 for its own train (open end 5).
    err = expect_round("R9", RULES_B, replaced(ROUND_B, 14, draw(1, "0|3")), 14)
    assert "drew while a legal play existed (2|5 on train 1)" in str(err)
    assert str(err).startswith("event 14 (round 0, seat 1): R9: ")
    expect_round("R9", RULES_B, replaced(ROUND_B, 14, pass_(1)), 14)
    # ... also within a first-turn train (1|3 fits after 1|1), and in a duty turn
    # (seat 1 holds 4|5 for the open 4|4).
    expect_round("R9", RULES_D, replaced(ROUND_D, 4, draw(1, "3|4")), 4)
    expect_round("R9", RULES_C, replaced(ROUND_C, 13, draw(1, "0|4")), 13)


def test_r10_draw_and_pass() -> None:
    # Passing when the drawn tile fits.
    expect_round("R10", RULES_B, replaced(ROUND_B, 13, pass_(0)), 13)
    expect_round("R10", RULES_B, replaced(ROUND_B, 10, pass_(0)), 10)  # duty turn
    expect_round("R10", RULES_D, replaced(ROUND_D, 9, pass_(0)), 9)  # train turn
    # Passing without drawing while the boneyard is not empty.
    expect_round("R10", RULES_B, replaced(ROUND_B, 5, pass_(0)), 5)
    # Drawing from the middle of the boneyard.
    err = expect_round("R10", RULES_B, replaced(ROUND_B, 5, draw(0, "2|5")), 5)
    assert "next boneyard tile is 3|5" in str(err)
    # Drawing twice (the first tile does not fit; draw_to_start is off).
    expect_round("R10", RULES_B, inserted(ROUND_B, 6, draw(0, "2|5")), 6)
    expect_round("R10", RULES_B, inserted(ROUND_B, 8, draw(1, "0|1")), 8)  # duty
    # With draw_to_start, once the own train is started.
    expect_round("R10", RULES_E, inserted(ROUND_E, 9, draw(1, "1|2")), 9)
    # After a draw the same seat must play or pass.
    expect_round("R10", RULES_B, replaced(ROUND_B, 6, pass_(1)), 6)
    # A drawn tile that fits must be played, not kept while drawing on.
    expect_round("R10", RULES_B, replaced(ROUND_B, 10, draw(0, "0|2")), 10)


def test_r7_closed_trains() -> None:
    # Train 1 (open end 2) lost its marker when seat 1 played on it (R8): closed (R7).
    err = expect_round("R7", RULES_B, replaced(ROUND_B, 15, play(0, "2|3", 1)), 15)
    assert "train 1 is closed" in str(err)
    expect_round("R7", RULES_C, replaced(ROUND_C, 14, play(0, "1|3", 1)), 14)
    expect_round("R7", RULES_C, replaced(ROUND_C, 5, play(1, "6|2", 0)), 5)


def test_r8_a_pass_opens_the_train() -> None:
    events = [
        deal(RULES_B, ["6|1 1|2 3|4", "6|4 0|5 3|5"], "0|2"),
        engine(0),
        play(0, "6|1", 0),
        play(1, "6|4", 1),
        play(0, "1|2", 0),
        draw(1, "0|2"),
        pass_(1),  # 5, 6: train 1 (open end 4) gets a marker
        play(0, "3|4", 1),  # 7: so seat 0 may play on it
        end("out", [0, 15]),
    ]
    assert check_round(RULES_B, 0, events) == [0, 15]
    # (Round B, event 15, checks that the owner's own play takes the marker off.)


def test_r11_first_turn() -> None:
    # Playing on the Mexican train on a first turn.
    err = expect_round("R11", RULES_A, replaced(ROUND_A, 3, play(1, "6|4", M)), 3)
    assert "first turn" in str(err)
    expect_round("R11", RULES_D, replaced(ROUND_D, 2, play(1, "6|1", M)), 2)
    # first_turn = "train": stopping the train after a double, or while a tile fits.
    expect_round("R11", RULES_D, replaced(ROUND_D, 3, play(0, "6|2", 0)), 3)
    expect_round("R11", RULES_D, replaced(ROUND_D, 6, play(1, "0|2", M)), 6)
    # ... and going on after it stopped (0|2 does not fit 3; no draw).
    expect_round("R11", RULES_D, inserted(ROUND_D, 5, draw(1, "3|4")), 5)
    # draw_to_start: the own train is empty, so a non-fitting draw is followed by another.
    expect_round("R11", RULES_E, replaced(ROUND_E, 3, pass_(0)), 3)


def test_r12_a_double_obliges_another_play() -> None:
    err = expect_round("R12", RULES_B, replaced(ROUND_B, 5, draw(1, "3|5")), 5)
    assert "must play again" in str(err)
    # A non-double ends the turn: the same seat may not go on.
    expect_round("R12", RULES_B, inserted(ROUND_B, 3, play(0, "1|1", 0)), 3)


def test_r13_oldest_open_double_first() -> None:
    # Round C, event 10: the Mexican 2|2 is older than 4|4 on train 0.
    err = expect_round("R13", RULES_C, replaced(ROUND_C, 10, play(1, "4|5", 0)), 10)
    assert "oldest open double 2|2 on mexican" in str(err)
    # Round B, event 7: seat 1 ignores the open 1|1 and plays on its own train.
    expect_round("R13", RULES_B, replaced(ROUND_B, 7, play(1, "4|5", 1)), 7)
    # Satisfying the double ends the turn.
    expect_round("R13", RULES_C, inserted(ROUND_C, 11, play(1, "3|3", 1)), 11)


def test_r14_round_ends_when_a_hand_is_empty() -> None:
    err = expect_round("R14", RULES_A, inserted(ROUND_A, 5, draw(1, "3|5")), 5)
    assert "hand is empty" in str(err)
    expect_round("R14", RULES_C, replaced(ROUND_C, 16, play(0, "1|3", 1)), 16)
    # The wrong reason, and "out" while nobody is out.
    expect_round("R14", RULES_A, replaced(ROUND_A, 5, end("blocked", [0, 50])), 5)
    expect_round("R14", RULES_A, inserted(ROUND_A, 4, end("out", [2, 50])), 4)


def test_r15_blocked_too_early() -> None:
    err = expect_round("R15", RULES_A, inserted(ROUND_A, 4, end("blocked", [2, 50])), 4)
    assert "boneyard still holds" in str(err)
    expect_round("R15", RULES_B, inserted(ROUND_B, 9, end("blocked", [5, 54])), 9)


def test_r16_penalties() -> None:
    err = expect_round("R16", RULES_A, replaced(ROUND_A, 5, end("out", [0, 0])), 5)
    assert "seat 1's penalty is 0, expected 50" in str(err)
    expect_round("R16", RULES_C, replaced(ROUND_C, 16, end("out", [4, 0])), 16)


def test_r2_r5_seats() -> None:
    # A wrong seat moving (R2: clockwise).
    err = expect_round("R2", RULES_A3, replaced(ROUND_A3, 3, play(2, "6|2", 2)), 3)
    assert "seat 2 moved, but it is seat 1's turn" in str(err)
    expect_round("R2", RULES_A3, replaced(ROUND_A3, 4, play(0, "1|1", 0)), 4)
    # R5: the set-aside engine opens with seat r mod P; the holder places the engine.
    expect_round("R5", RULES_A, replaced(ROUND_A, 1, engine(1)), 1)
    expect_round("R5", RULES_D, replaced(ROUND_D, 1, engine(0)), 1)
    expect_round("R5", RULES_D, replaced(ROUND_D, 1, draw(0, "3|4")), 1)
    expect_round("R5", RULES_D, replaced(ROUND_D, 2, play(0, "6|2", 0)), 2)


def test_r5_engine_search() -> None:
    rules = resolve_rules({"preset": "seed-001", "max_pip": 6, "hand_size": 2}, 3)
    events = [
        deal(rules, ["0|1 0|2", "0|3 0|4", "0|5 0|6"], "1|1 1|2 6|6"),
        draw(0, "1|1"),  # 1  nobody holds 6|6: draw clockwise from seat 0
        draw(1, "1|2"),  # 2
        draw(2, "6|6"),  # 3
        engine(2),  # 4
        play(2, "0|6", 2),  # 5
    ]
    expect_round("R4", rules, events, len(events))  # legal; the trace just ends
    expect_round("R5", rules, replaced(events, 1, draw(1, "1|1")), 1)
    expect_round("R5", rules, replaced(events, 2, draw(1, "1|3")), 2)
    expect_round("R5", rules, replaced(events, 4, engine(0)), 4)
    expect_round("R5", rules, replaced(events, 1, engine(0)), 1)
    expect_round("R5", rules, inserted(events, 4, draw(0, "1|3")), 4)


def test_r1_r3_r5_deal() -> None:
    bad = copy.deepcopy(ROUND_A)
    bad[0]["boneyard"][3] = [1, 1]  # 1|1 twice
    expect_round("R1", RULES_A, bad, 0)
    bad = copy.deepcopy(ROUND_A)
    del bad[0]["boneyard"][3]  # a tile missing
    expect_round("R1", RULES_A, bad, 0)
    bad = copy.deepcopy(ROUND_A)
    bad[0]["hands"][0].append(bad[0]["boneyard"].pop())
    expect_round("R3", RULES_A, bad, 0)
    bad = copy.deepcopy(ROUND_A)
    bad[0]["boneyard"].append([6, 6])  # set aside: the engine is in no hand
    expect_round("R5", RULES_A, bad, 0)
    bad = copy.deepcopy(ROUND_A)
    bad[0]["boneyard"][0] = [7, 1]
    expect_round("R1", RULES_A, bad, 0)
    bad = copy.deepcopy(ROUND_D)
    bad[0]["hands"][1].remove([6, 6])  # holder: the engine must be dealt too
    bad[0]["hands"][1].append(bad[0]["boneyard"].pop())
    expect_round("R1", RULES_D, bad, 0)


def test_r6_tiles_must_match_and_be_held() -> None:
    err = expect_round("R6", RULES_B, replaced(ROUND_B, 11, play(1, "0|0", 1)), 11)
    assert "does not match the open end 4" in str(err)
    err = expect_round("R6", RULES_B, replaced(ROUND_B, 11, play(1, "4|4", 1)), 11)
    assert "not in seat 1's hand" in str(err)


def test_blocked_rounds_from_random_matches() -> None:
    """R15 exactly: a blocked round may end neither one pass early nor one pass late."""
    checked = 0
    for seed in range(60):
        events = random_match({"preset": "seed-000", "max_pip": 6, "hand_size": 8}, 3, seed)
        ends = [
            i
            for i, e in enumerate(events)
            if e["event"] == "round_end" and e["reason"] == "blocked"
        ]
        for k in ends[:2]:
            last = events[k - 1]
            assert last["event"] == "pass"
            check_trace(events)
            expect("R15", replaced(events, k - 1), k - 1)  # one pass too few
            nxt = (last["seat"] + 1) % 3
            extra = {"event": "pass", "round": last["round"], "seat": nxt}
            expect("R15", inserted(events, k, extra), k)  # one pass too many
            bad = copy.deepcopy(events)
            bad[k]["reason"] = "out"
            expect("R15", bad, k)
            checked += 1
    assert checked >= 10


def test_complete_match_with_a_hand_built_round() -> None:
    events = random_match({**STANDARD, "hand_size": 3, "double_blank_points": 50}, 2, 4)
    first_end = next(i for i, e in enumerate(events) if e["event"] == "round_end")
    events = [events[0], *copy.deepcopy(ROUND_B), *events[first_end + 1 :]]
    totals = [0, 0]
    for e in events:
        if e["event"] == "round_end":
            totals = [t + p for t, p in zip(totals, e["penalties"], strict=True)]
    events[-1] = {"event": "match_end", "totals": totals}
    check_trace(events)
    # Indices in errors are trace indices: round B's event 14 is trace event 15.
    err = expect("R9", replaced(events, 15, draw(1, "0|3")), 15)
    assert str(err).startswith("event 15 (round 0, seat 1): R9:")
    bad = copy.deepcopy(events)
    bad[-1]["totals"][0] -= 1
    err = expect("R4", bad, len(events) - 1)
    assert "totals" in str(err)


# ---------------------------------------------------------------------------------
# Complete matches


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_legal_matches_are_accepted(options: dict, players: int) -> None:
    for seed in range(6):
        check_trace(random_match(options, players, seed))


def _seat_draws_then(events: list[dict], kind: str) -> int | None:
    """The index of the first ``kind`` event right after a draw by the same seat, in a
    round that still has a boneyard to draw from."""
    for i in range(1, len(events)):
        before, ev = events[i - 1], events[i]
        if before["event"] == "draw" and ev["event"] == kind and ev.get("seat") == before["seat"]:
            return i
    return None


def test_a_pass_before_the_draw_limit_is_refused() -> None:
    """R18: draw_limit = 3 lets a player pass only after three draws (or an empty
    boneyard); the same trace read under draw_limit = 3 from one drawn under 1 fails."""
    options = {"preset": "standard", "max_pip": 9, "hand_size": 6}
    for seed in range(20):
        events = random_match(options, 3, seed)
        header = dict(events[0])
        header["rules"] = dict(header["rules"], draw_limit=3)
        i = _seat_draws_then(events, "pass")
        if i is None:
            continue
        bad = [header, *events[1:]]
        with pytest.raises(RefereeError) as info:
            check_trace(bad)
        if info.value.rule == "R18":
            assert "passed after 1 draw(s), but draw_limit = 3" in str(info.value)
            return
    pytest.fail("no trace with a pass after one draw")


def test_a_draw_beyond_the_limit_is_refused() -> None:
    events = random_match({"preset": "standard", "draw_limit": 2}, 4, 3)
    check_trace(events)
    header = dict(events[0])
    header["rules"] = dict(header["rules"], draw_limit=1)
    with pytest.raises(RefereeError) as info:
        check_trace([header, *events[1:]])
    assert info.value.rule in {"R10", "R18"}


def test_the_mexican_train_is_refused_without_one() -> None:
    events = random_match({"preset": "seed-001"}, 4, 5)
    assert any(e.get("train") == "mexican" for e in events)
    header = dict(events[0])
    header["rules"] = dict(header["rules"], mexican_train=False)
    with pytest.raises(RefereeError) as info:
        check_trace([header, *events[1:]])
    assert info.value.rule == "R19" and "no Mexican train" in str(info.value)


def test_many_players_and_jsonl() -> None:
    events = random_match({"preset": "seed-001"}, 10, 3)
    check_trace(events)
    text = "\n".join(json.dumps(e) for e in events) + "\n"
    check_jsonl(text)
    with pytest.raises(RefereeError) as info:
        check_jsonl(text.replace('"event": "pass"', '"event": "pass', 1))
    assert info.value.rule == "TRACE"


def test_match_level_rejections() -> None:
    events = random_match({"preset": "seed-001", "max_pip": 6, "hand_size": 5}, 3, 1)
    check_trace(events)
    # R4: a wrong total.
    bad = copy.deepcopy(events)
    bad[-1]["totals"][1] += 1
    expect("R4", bad, len(events) - 1)
    # R4: the trace ends early (also within a round), or goes on after match_end.
    expect("R4", events[:-1], len(events) - 1)
    expect("R4", events[:40], 40)
    expect("R4", [*events, {"event": "pass", "round": 6, "seat": 0}], len(events))
    # R4: a round missing (the last one dropped; match_end comes too soon).
    last_deal = max(i for i, e in enumerate(events) if e["event"] == "deal")
    expect("R4", events[:last_deal] + events[-1:], last_deal)
    # R4: the deal names the wrong engine.
    bad = copy.deepcopy(events)
    bad[1]["engine"] = 5
    expect("R4", bad, 1)
    # A malformed first event.
    expect("TRACE", events[1:], 0)


def test_mutations_of_random_matches_are_rejected() -> None:
    """A play turned into a draw, a draw into a pass, a pass moved to another seat."""
    rng = random.Random(7)
    for seed in range(40):
        options = OPTION_SETS[seed % len(OPTION_SETS)]
        players = 2 + seed % 3
        events = random_match(options, players, seed)
        moves = [i for i, e in enumerate(events) if e["event"] in ("play", "draw", "pass")]
        for i in rng.sample(moves, 8):
            bad = list(events)
            ev = bad[i] = dict(events[i])
            if ev["event"] == "pass":
                ev["seat"] = (ev["seat"] + 1) % players
                rules = {"R2", "R5", "R10", "R11", "R12", "R13", "R18"}
            elif ev["event"] == "draw":
                bad[i] = {"event": "pass", "round": ev["round"], "seat": ev["seat"]}
                rules = {"R5", "R10", "R11", "R18"}
            else:
                ev["event"] = "draw"
                rules = {"R9", "R10"}
            with pytest.raises(RefereeError) as info:
                check_trace(bad)
            err = info.value
            assert err.index == i and err.rule in rules, str(err)
