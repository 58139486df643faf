"""A game trace (docs/interface.md, "Game trace") told as text for people.

Pure Python: the renderer replays the events on its own small model of the table —
hands, the boneyard size, each train's tiles, open end and marker (R6, R8) — so it can
say what every play did. It describes a trace; it does not referee it.

Conventions: seats and rounds are numbered from 0, as in the trace and the results
files; a tile is always written higher half first (``12|5``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mexsim.game.trace_words import MEXICAN

RULE = "=" * 72


def tile_text(tile: Sequence[int]) -> str:
    """``[5, 12]`` -> ``"12|5"`` (higher half first)."""
    low, high = sorted(tile)
    return f"{high}|{low}"


def _heaviest_first(tiles: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return sorted(tiles, key=lambda t: (t[0] + t[1], max(t)), reverse=True)


@dataclass
class _Train:
    end: int
    tiles: list[tuple[int, int]] = field(default_factory=list)
    marked: bool = False


@dataclass
class _Round:
    number: int
    engine: int
    hands: list[list[tuple[int, int]]]
    boneyard: int
    trains: dict[Any, _Train]
    engine_placed: bool = False
    last_player: int | None = None


class _Renderer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[int, str] = {}
        self.strategies: dict[int, str] = {}
        self.rules: dict[str, Any] = {}
        self.totals: list[int] = []
        self.round: _Round | None = None
        self.offered: dict[int, list[tuple[list[int], Any]]] = {}  # see render_text
        self.index = 0  # of the event being told
        self.said: list[str] = []  # printed at a decision: told after the move it made

    # --- helpers ----------------------------------------------------------------------

    def out(self, text: str = "") -> None:
        self.lines.append(text)

    def who(self, seat: int) -> str:
        name = self.names.get(seat)
        return f"seat {seat} ({name})" if name is not None else f"seat {seat}"

    def train_name(self, train: Any, mover: int) -> str:
        if train == MEXICAN:
            return "the Mexican train"
        if train == mover:
            return "its own train"
        return f"seat {train}'s train"

    def seats(self) -> range:
        count = len(self.names) or (len(self.round.hands) if self.round else 0)
        return range(count)

    def take(self, seat: int, tile: tuple[int, int]) -> None:
        """Remove ``tile`` from a tracked hand (quietly, if the trace disagrees)."""
        assert self.round is not None
        hand = self.round.hands[seat] if 0 <= seat < len(self.round.hands) else []
        if tile in hand:
            hand.remove(tile)

    # --- events -----------------------------------------------------------------------

    def on_match(self, ev: dict[str, Any]) -> None:
        for p in ev.get("players", []):
            self.names[p["seat"]] = p["player"]
            params = ", ".join(f"{k}={_param(v)}" for k, v in p.get("params", {}).items())
            self.strategies[p["seat"]] = p["strategy"] + (f": {params}" if params else "")
        self.rules = dict(ev.get("rules", {}))
        self.totals = [0] * len(self.names)
        self.out(RULE)
        deal = f", deal {ev['deal']}" if "deal" in ev else ""  # duplicate deals
        variant = f", variant {ev['variant']!r}" if "variant" in ev else ""  # rule variants
        self.out(f"Match {ev.get('match', '?')} (seed {ev.get('seed', '?')}{deal}{variant})")
        if self.rules:
            self.out("Rules: " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in self.rules.items()))
        for seat in self.seats():
            self.out(f"  seat {seat}: {self.names[seat]} [{self.strategies[seat]}]")

    def on_deal(self, ev: dict[str, Any]) -> None:
        hands = [[tuple(sorted(t)) for t in hand] for hand in ev["hands"]]
        engine = int(ev["engine"])
        trains: dict[Any, _Train] = {seat: _Train(end=engine) for seat in range(len(hands))}
        trains[MEXICAN] = _Train(end=engine)
        self.round = _Round(
            number=ev["round"],
            engine=engine,
            hands=hands,
            boneyard=len(ev["boneyard"]),
            trains=trains,
        )
        if not self.totals:
            self.totals = [0] * len(hands)
        self.out()
        self.out(RULE)
        self.out(f"Round {ev['round']} — engine {engine}|{engine}")
        self.out(RULE)
        for seat, hand in enumerate(hands):
            pips = sum(a + b for a, b in hand)
            tiles = " ".join(tile_text(t) for t in _heaviest_first(hand))
            self.out(f"{self.who(seat)}, {len(hand)} tiles, {pips} pips: {tiles}")
        self.out(f"boneyard: {self.round.boneyard} tiles")
        self.out()

    def on_engine(self, ev: dict[str, Any]) -> None:
        rnd = self._need_round()
        seat = ev["seat"]
        double = f"{rnd.engine}|{rnd.engine}"
        if self.rules.get("engine") == "set_aside":
            self.out(f"the engine {double} stands in the centre; {self.who(seat)} starts")
        else:
            self.take(seat, (rnd.engine, rnd.engine))
            self.out(f"{self.who(seat)} places the engine {double} and starts")
        rnd.engine_placed = True

    def on_draw(self, ev: dict[str, Any]) -> None:
        rnd = self._need_round()
        seat = ev["seat"]
        tile = tuple(sorted(ev["tile"]))
        rnd.hands[seat].append(tile)
        rnd.boneyard -= 1
        note = "" if rnd.engine_placed else " (looking for the engine)"
        self.out(f"{self.who(seat)} draws {tile_text(tile)}{note} — boneyard {rnd.boneyard}")

    def on_play(self, ev: dict[str, Any]) -> None:
        rnd = self._need_round()
        seat, where = ev["seat"], ev["train"]
        tile = tuple(sorted(ev["tile"]))
        train = rnd.trains.setdefault(where, _Train(end=rnd.engine))
        notes = []
        if train.tiles and train.tiles[-1][0] == train.tiles[-1][1]:  # R13: an open double
            notes.append(f"satisfies the double {tile_text(train.tiles[-1])}")
        if tile[0] == train.end:
            train.end = tile[1]
        elif tile[1] == train.end:
            train.end = tile[0]
        else:
            notes.append(f"!! does not fit the open end {train.end}")
            train.end = tile[1]
        train.tiles.append(tile)
        if where == seat and train.marked:
            train.marked = False
            notes.append("marker removed")
        self.take(seat, tile)
        rnd.last_player = seat
        if 0 <= seat < len(rnd.hands) and not rnd.hands[seat]:
            notes.append("goes out")
        elif tile[0] == tile[1]:
            notes.append("double: plays again")
        tail = f" ({'; '.join(notes)})" if notes else ""
        self.out(
            f"{self.who(seat)} plays {tile_text(tile)} on {self.train_name(where, seat)}"
            f" — open end {train.end}{tail}"
        )
        offered = self.offered.get(self.index)
        if offered is not None:
            self.out(self.choice_line(offered, tile, where, seat))

    def choice_line(
        self, offered: list[tuple[list[int], Any]], tile: tuple[int, ...], where: Any, seat: int
    ) -> str:
        """The legal moves offered, the chosen one marked; a single one is forced."""
        if len(offered) == 1:
            return "    forced: the only legal move"
        moves = []
        for i, (option, train) in enumerate(offered):
            mark = "*" if tuple(sorted(option)) == tile and train == where else " "
            name = "mexican" if train == MEXICAN else ("own" if train == seat else f"seat {train}")
            moves.append(f"{mark}{i}: {tile_text(option)} {name}")
        return f"    chose from {len(offered)}: " + ", ".join(moves)

    def on_pass(self, ev: dict[str, Any]) -> None:
        rnd = self._need_round()
        seat = ev["seat"]
        train = rnd.trains.setdefault(seat, _Train(end=rnd.engine))
        if train.marked:
            self.out(f"{self.who(seat)} cannot play, passes (train already open)")
        else:
            train.marked = True
            self.out(f"{self.who(seat)} cannot play, passes: train opened")

    def on_print(self, ev: dict[str, Any]) -> None:
        self.said.append(f"    > {ev.get('text', '')}")

    def tell_said(self) -> None:
        self.lines.extend(self.said)
        self.said = []

    def on_round_end(self, ev: dict[str, Any]) -> None:
        rnd = self._need_round()
        penalties = list(ev["penalties"])
        if len(self.totals) < len(penalties):
            self.totals += [0] * (len(penalties) - len(self.totals))
        if ev["reason"] == "out":
            winner = rnd.last_player
            reason = f"{self.who(winner)} went out" if winner is not None else "a player went out"
        else:
            reason = "blocked (nobody can play and the boneyard is empty)"
        self.out()
        self.out(f"End of round {rnd.number}: {reason}")
        self.out("Trains (* = marked, open to everyone):")
        engine = f"{rnd.engine}|{rnd.engine}"
        for key in [*range(len(rnd.hands)), MEXICAN]:
            train = rnd.trains.get(key, _Train(end=rnd.engine))
            chain = " · ".join([engine, *(tile_text(t) for t in train.tiles)])
            label = "Mexican" if key == MEXICAN else f"seat {key}"
            mark = " *" if train.marked else ""
            self.out(f"  {label}{mark}: {chain} → {train.end}")
        self.out("Penalties (pips left in hand):")
        for seat, penalty in enumerate(penalties):
            self.totals[seat] += penalty
            hand = rnd.hands[seat] if seat < len(rnd.hands) else []
            left = " ".join(tile_text(t) for t in _heaviest_first(hand)) or "no tiles"
            self.out(f"  {self.who(seat)}: {penalty:>3}   total {self.totals[seat]:>4}   ({left})")
        self.round = None

    def on_match_end(self, ev: dict[str, Any]) -> None:
        totals = list(ev["totals"])
        self.out()
        self.out(RULE)
        self.out("Match over. Totals (lowest wins):")
        for seat, total in sorted(enumerate(totals), key=lambda st: (st[1], st[0])):
            self.out(f"  {self.who(seat)}: {total}")
        if totals:
            best = min(totals)
            winners = [self.who(seat) for seat, total in enumerate(totals) if total == best]
            if len(winners) == 1:
                self.out(f"Winner: {winners[0]} with {best}")
            else:
                self.out(f"Winners (tied at {best}, sharing the win): {', '.join(winners)}")
        if self.totals and list(self.totals) != totals:
            self.out(f"!! totals differ from the sum of the round penalties: {self.totals}")

    def _need_round(self) -> _Round:
        if self.round is None:
            raise ValueError("trace event before any 'deal' event")
        return self.round


_HANDLERS = {
    "match": _Renderer.on_match,
    "deal": _Renderer.on_deal,
    "engine": _Renderer.on_engine,
    "draw": _Renderer.on_draw,
    "play": _Renderer.on_play,
    "pass": _Renderer.on_pass,
    "round_end": _Renderer.on_round_end,
    "print": _Renderer.on_print,
    "match_end": _Renderer.on_match_end,
}


def render_text(
    events: list[dict[str, Any]],
    offered: dict[int, list[tuple[list[int], Any]]] | None = None,
    totals: list[int] | None = None,
) -> str:
    """Tell a game trace (a list of trace event dicts) as readable text, one line per action.

    With ``offered`` (mexsim.game.referee.offered_moves), each play is followed by the
    legal moves offered, the chosen one marked ``*`` (index = what the strategy
    returned), or ``forced`` when it was the only one. What a strategy printed at a
    decision ("print" events) follows the move it chose, each line marked ``>``.
    ``totals``: each seat's match total before the first round given (one round shown)."""
    renderer = _Renderer()
    renderer.offered = offered or {}
    for index, ev in enumerate(events):
        renderer.index = index
        kind = ev.get("event", "")
        handler = _HANDLERS.get(kind)
        if handler is None:
            renderer.out(f"?? unknown event: {ev}")
        else:
            handler(renderer, ev)
        if kind == "match" and totals is not None:
            renderer.totals = list(totals)
        if kind != "print":
            renderer.tell_said()
    renderer.tell_said()
    return "\n".join(renderer.lines) + "\n"


def _param(value: Any) -> str:
    """A parameter's value as a config writes it: 2, 0.5, mine."""
    return f"{value:g}" if isinstance(value, int | float) else str(value)
