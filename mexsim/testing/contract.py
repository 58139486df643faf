"""The strategy contract, checked decision by decision over drawn games.

At each decision of the tested seat, in this order (the first that fails is reported):

- **returns in time** — within DECIDE_LIMIT_S, not an endless loop;
- **does not raise** — decide returns a move;
- **no out-of-bounds access** — the bounds-checked compile (mexsim.testing.probes)
  raises IndexError where a run would read or write past the view;
- **returns a legal index** — ``0 <= choice < move_count(view)``;
- **uses no global random state** — numba's np.random / random generators are not
  drawn from (a run with them is irreproducible: its threads share them);
- **writes only its random stream and notes** — every other view word is unchanged;
- **deterministic** — the same view (stream and notes included) gives the same move
  and the same view after.

Before any play, **loads** (the registry imports and compiles the file) and **returns
an integer** (the fixed signature would truncate a float). After the games,
**deterministic across processes**: a fresh Python process makes the same moves on
the recorded states. Then the decision time is measured on those states.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mexsim.game import view as V
from mexsim.game.reference import Round, deal, make_players, static_view
from mexsim.jit.interrupts import raise_if_received
from mexsim.strategy.policy import Policy
from mexsim.strategy.registry import StrategyInfo, available_strategies
from mexsim.testing import probes
from mexsim.testing.games import Game

CHECKS = (
    "loads",
    "returns an integer",
    "does not raise",
    "no out-of-bounds access",
    "returns a legal index",
    "uses no global random state",
    "writes only its random stream and notes",
    "deterministic",
    "deterministic across processes",
    "returns in time",
)
# a decision this slow is an endless loop, or as good as one: a run of a million matches
# makes tens of millions of decisions
DECIDE_LIMIT_S = 10.0
KEEP_STATES = 400  # decisions kept for the cross-process check and the timing


@dataclass
class Decision:
    """A decision state of the tested seat: the view as received, and its params."""

    view: np.ndarray
    params: np.ndarray
    choice: int = -1


class ContractViolation(Exception):
    """A check failed; ``decision`` and ``game`` say where (``game`` once known)."""

    def __init__(
        self, check: str, cause: str, decision: Decision | None = None, game: Game | None = None
    ) -> None:
        super().__init__(f"{check}: {cause}")
        self.check = check
        self.cause = cause
        self.decision = decision
        self.game = game


@dataclass
class Checker:
    """Plays drawn games with one strategy in the tested seat and checks its decisions."""

    info: StrategyInfo
    params: tuple[float, ...]
    checked: Any  # the bounds-checked dispatcher of decide
    kept: list[Decision] = field(default_factory=list)
    decisions: int = 0  # all decisions checked
    rounds: int = 0  # rounds played
    hung: ContractViolation | None = None  # a decide that never returned

    def writable(self) -> np.ndarray:
        mask = np.zeros(V.SIZE, dtype=bool)
        mask[V.RNG : V.RNG + 4] = True
        mask[V.NOTES : V.NOTES + self.info.memory] = True
        return mask

    def call(self, view: np.ndarray, params: np.ndarray, d: Decision) -> int:
        """decide on a thread of its own (the checked compile releases the GIL), so that
        one that never returns is reported after DECIDE_LIMIT_S instead of hanging the
        check; it is left spinning, and every later call fails at once (hypothesis
        would otherwise start another on each replay)."""
        if self.hung is not None:
            raise self.hung
        outcome: list = []

        def decide() -> None:
            try:
                outcome.append(int(self.checked(view, params)))
            except Exception as exc:  # a user's decide: whatever it raised is the cause
                outcome.append(exc)

        thread = threading.Thread(target=decide, name="mexsim-check-decide", daemon=True)
        thread.start()
        thread.join(DECIDE_LIMIT_S)
        if not outcome:
            self.hung = ContractViolation(
                "returns in time",
                f"decide did not return within {DECIDE_LIMIT_S:g} s "
                "(an endless loop?); it was left running",
                d,
            )
            raise self.hung
        if isinstance(outcome[0], IndexError):
            raise ContractViolation("no out-of-bounds access", f"IndexError: {outcome[0]}", d)
        if isinstance(outcome[0], Exception):
            raise ContractViolation(
                "does not raise", f"{type(outcome[0]).__name__}: {outcome[0]}", d
            )
        return outcome[0]

    def decide(self, view: np.ndarray, params: np.ndarray) -> int:
        """Stands in for the tested seat's decide in the reference engine."""
        d = Decision(view.copy(), params.copy())
        probes.seed_global_random(12345)
        expected = probes.draw_global_random()
        probes.seed_global_random(12345)
        choice = self.call(view, params, d)
        n = int(d.view[V.N_MOVES])
        if not 0 <= choice < n:
            raise ContractViolation(
                "returns a legal index", f"returned {choice} with {n} legal moves (0..{n - 1})", d
            )
        if probes.draw_global_random() != expected:
            raise ContractViolation(
                "uses no global random state",
                "decide drew from numba's global np.random / random generators: use "
                "random_below(view, n), the seat's own stream",
                d,
            )
        changed = np.flatnonzero(view != d.view)
        bad = changed[~self.writable()[changed]]
        if len(bad):
            raise ContractViolation(
                "writes only its random stream and notes",
                f"wrote view word {_word_name(int(bad[0]))} ({len(bad)} word(s) in all); "
                f"a strategy may write view[RNG:RNG+4] and its MEMORY = "
                f"{self.info.memory} notes only",
                d,
            )
        again = d.view.copy()
        second = self.call(again, params, d)
        if second != choice or not np.array_equal(again, view):
            raise ContractViolation(
                "deterministic",
                f"the same view gave move {choice}, then move {second}"
                if second != choice
                else "the same view gave the same move but different view words after",
                d,
            )
        d.choice = choice
        self.decisions += 1
        if len(self.kept) < KEEP_STATES:
            self.kept.append(d)
        return choice

    def play(self, game: Game) -> None:
        raise_if_received()  # a Ctrl-C numba's compiler swallowed: stop here, not pass
        known = available_strategies((), set(game.others))
        seats = [
            Policy(self.info, self.params)
            if s == game.tested
            else Policy(known[name], tuple(known[name].params.values()))
            for s, name in enumerate(game.others)
        ]
        players = make_players(game.rules, seats, game.seed, game.match)
        players[game.tested].decide = self.decide
        hands, boneyard = deal(game.rules, game.seed, game.match, game.round_no)
        try:
            Round(
                game.rules,
                game.round_no,
                hands,
                boneyard,
                players,
                static_view(game.rules, game.match),
                lambda event: None,
            ).play_round()
        except ContractViolation as exc:
            if exc.game is None:  # (a hang keeps the game it hung in)
                exc.game = game
            raise
        self.rounds += 1


def _word_name(k: int) -> str:
    """``view[TRAIN_END + 3]`` for word 3 of TRAIN_END: the view's layout by name."""
    blocks = sorted(
        (value, name)
        for name, value in vars(V).items()
        if name.isupper()
        and isinstance(value, int)
        and name
        not in (
            "SIZE",
            "MAX_PLAYERS",
            "MAX_TRAINS",
            "MAX_TILES",
            "MAX_NUMBERS",
            "MAX_WORDS",
            "MAX_MOVES",
            "MAX_PARAMS",
            "MAX_MEMORY",
            "WORDS_PER_HAND",
        )
        and value <= k
    )
    value, name = blocks[-1]
    return f"{k} (view[{name}{f' + {k - value}' if k > value else ''}])"
