"""`mexsim play`'s terminal interface (Textual): the person's seat at a config's match.

It fits an 80 x 24 terminal and works over ssh. The screen shows only what the person's
seat sees (R17): their hand, the trains, open doubles, hand sizes, the boneyard's count,
totals and the round's public history. Type a move's number and Enter to play it; ``h``
shows a hint, ``q`` quits (the game is kept: `mexsim play --resume RECORD`).
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from mexsim.errors import StrategyError
from mexsim.game import view as V
from mexsim.person.session import Rating, Session, history_lines


def table_text(session: Session) -> str:
    """The table as the person's seat sees it, in lines."""
    g, me = session.game, session.seat
    st = g.state
    P = g.rules.players
    totals = g.totals()
    head = (
        f"match {g.match}  round {g.round + 1} of {g.rules.rounds}  "
        f"engine {int(st[V.ENGINE])}|{int(st[V.ENGINE])}  "
        f"boneyard {int(st[V.BONEYARD])}  you are seat {me}"
    )
    n_open = int(st[V.N_OPEN])
    open_trains = [int(st[V.OPEN_DOUBLES + k]) for k in range(n_open)]
    lines = [head]
    for tr in range(P + (1 if g.rules.mexican_train else 0)):
        marks = []
        if tr < P and st[V.TRAIN_MARKED + tr]:
            marks.append("marker")
        if tr in open_trains:
            first = " (to serve first)" if open_trains and open_trains[0] == tr else ""
            marks.append("open double" + first)
        if tr == P:
            who = "Mexican train    "
        else:
            name = "you" if tr == me else f"seat {tr}"
            who = f"{name:<7} hand {int(st[V.HAND_SIZE + tr]):>2}  total {totals[tr]:>3}  "
        lines.append(
            f"  {who}train end {int(st[V.TRAIN_END + tr]):>2}, "
            f"{int(st[V.TRAIN_LEN + tr]):>2} tiles" + (f"  [{', '.join(marks)}]" if marks else "")
        )
    hand = " ".join(g.tile_text(t) for t in g.hand(me))
    lines.append(f"your hand: {hand}")
    return "\n".join(lines)


def moves_text(session: Session) -> str:
    g = session.game
    if g.is_over():
        return ""
    if not session.my_turn:
        return "(the others are playing)"
    items = [f"{i}: {a}|{b} on {train}" for i, ((a, b), train) in enumerate(g.legal_moves())]
    return "your moves  " + "   ".join(items)


def rating_lines(ratings: list[Rating]) -> list[str]:
    """A round's decisions rated, the costliest first."""
    if not ratings:
        return ["  no decision of yours with a choice this round"]
    lost = sum(r.lost for r in ratings)
    out = [f"  your {len(ratings)} decisions lost {lost:.1f} expected points in all"]
    for r in sorted(ratings, key=lambda r: -r.lost)[:3]:
        (a, b), train = r.moves[r.chosen]
        (c, d), best_train = r.moves[r.best]
        if r.chosen == r.best:
            out.append(f"  {a}|{b} on {train}: the best move")
        else:
            out.append(
                f"  {a}|{b} on {train}: {r.lost:.1f} ± {1.96 * r.error:.1f} points worse "
                f"than {c}|{d} on {best_train}"
            )
    return out


class PlayApp(App[None]):
    """The person's seat: the table, the history, the moves, a line to type in."""

    CSS = """
    #table { height: auto; }
    #history { height: auto; color: $text-muted; }
    #moves { height: auto; color: $accent; }
    #said { height: auto; }
    #prompt { dock: bottom; height: 1; margin-bottom: 1; }
    """
    DIGITS = "0123456789"  # not str.isdigit: "²" is a digit to it, and no move number
    BINDINGS: ClassVar = [
        Binding("h", "hint", "hint", priority=True),
        Binding("q", "quit_game", "quit (kept)", priority=True),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.said: list[str] = []
        self.typed = ""  # the move number being typed
        self.failure: StrategyError | None = None  # a bot's strategy failed: said on exit

    def compose(self) -> ComposeResult:
        # the screen's text is the game's, never markup: "[marker]" is shown as it is
        with VerticalScroll(id="screen"):
            yield Static(id="table", markup=False)
            yield Static(id="history", markup=False)
            yield Static(id="moves", markup=False)
            yield Static(id="said", markup=False)
        yield Static(id="prompt", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "mexsim play"
        self.refresh_screen()

    def say(self, *lines: str) -> None:
        self.said = list(lines)
        self.refresh_screen()
        if lines:  # what was just said, in view on a small screen
            self.query_one("#screen", VerticalScroll).scroll_end(animate=False)

    def refresh_screen(self) -> None:
        s = self.session
        self.query_one("#table", Static).update(table_text(s))
        recent = history_lines(s.game, s.seat, last=4)
        self.query_one("#history", Static).update("\n".join(recent) or "(nothing played yet)")
        self.query_one("#moves", Static).update(moves_text(s))
        self.query_one("#said", Static).update("\n".join(self.said))
        self.query_one("#prompt", Static).update(f"move number, then Enter: {self.typed}_")

    def on_key(self, event: events.Key) -> None:
        if (
            event.character is not None
            and len(event.character) == 1
            and (event.character in self.DIGITS)
        ):
            self.typed = (self.typed + event.character)[-3:]
        elif event.key == "backspace":
            self.typed = self.typed[:-1]
        elif event.key == "enter":
            text, self.typed = self.typed, ""
            self.submit(text)
            return
        else:
            return
        self.refresh_screen()

    def submit(self, text: str) -> None:
        s = self.session
        if s.game.is_over():
            self.say("the match is over: q to leave")
            return
        n = s.game.move_count()
        if not text.isdigit() or not 0 <= int(text) < n:
            self.say(f"type a move's number, 0..{n - 1}, then Enter (h: a hint, q: quit)")
            return
        try:
            rnd = s.play(int(text))
        except StrategyError as exc:  # a bot's strategy failed: the game is kept
            self.failure = exc
            self.exit()
            return
        lines = []
        if s.game.is_over() or s.game.round != rnd:
            res = s.game.results()[rnd]
            pens = ", ".join(
                ("you" if k == s.seat else f"seat {k}") + f" {int(res[k][0])}"
                for k in range(s.game.rules.players)
            )
            lines.append(f"round {rnd + 1} over: penalties {pens}")
            lines += rating_lines(s.review(rnd))
        if s.game.is_over():
            totals = s.game.totals()
            best = min(totals)
            winners = [k for k, t in enumerate(totals) if t == best]
            who = " and ".join("you" if k == s.seat else f"seat {k}" for k in winners)
            lines.append(
                f"the match is over: totals {totals}; {who} won. Recorded in {s.record}. q to leave"
            )
        self.say(*lines)

    def action_hint(self) -> None:
        s = self.session
        if not s.my_turn:
            return
        ranked = s.hint()
        items = [
            f"{i:>2}: {a}|{b} on {train:<8} {mean:5.1f} ± {1.96 * err:.1f}"
            for i, ((a, b), train), mean, err in ranked
        ]
        lines = ["hint: each move's expected penalty this round, best first"]
        for k in range(0, len(items), 2):  # two a line: 20 moves in 10 lines
            lines.append("  " + "    ".join(items[k : k + 2]))
        self.say(*lines)

    def action_quit_game(self) -> None:
        self.session.save()
        self.exit()
