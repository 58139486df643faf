"""The Python side of the numba core: rules and seats in, results and traces out."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

import numpy as np
from numba.core.errors import NumbaError, NumbaExperimentalFeatureWarning

from mexsim.errors import StrategyError
from mexsim.game import kernel, view
from mexsim.game.contexts import Outputs, PlayerArrays, RuleNumbers, TileTables
from mexsim.game.enums import (
    BAD_NOTE,
    IN_KERNEL_CALLINGS,
    N_EVENT_FIELDS,
    N_FIELDS,
    N_STATUS,
    Calling,
    Dispatch,
    Event,
    Field,
    Reason,
    Status,
)
from mexsim.game.kernel_longest_train import in_table_decide
from mexsim.game.rng import MASK64
from mexsim.game.rules import MAX_STRATEGIES, Rules
from mexsim.game.seat import Seat, seated
from mexsim.game.signature import ready
from mexsim.game.stall_watch import watched
from mexsim.game.stand_in import stand_in_decide
from mexsim.game.strategy_output import Said, collect_output, said_event
from mexsim.game.tiles import tile_set
from mexsim.game.trace_words import trace_train
from mexsim.jit.options import DirectCall, remember_function_addresses

# Strategies are first-class functions, which numba still labels experimental; the
# differential tests against the reference engine are what we rely on.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

# A run calls the kernel once a block: without numba's typing of its arguments and
# its look-up of the strategies' addresses at every call, ~0.7 ms a block (docs/speed.md)
remember_function_addresses()
_play_matches = DirectCall(kernel.play_matches)


def rule_numbers(rules: Rules) -> RuleNumbers:
    """The rules as the kernels and the step take them."""
    return RuleNumbers(
        rules.players,
        rules.max_pip,
        rules.hand_size,
        rules.first_turn == "train",
        rules.engine == "set_aside",
        rules.draw_to_start,
        rules.double_blank_points,
        rules.draw_limit or tile_set(rules.max_pip).count,  # R18 "until_playable": at most the set
        rules.mexican_train,
    )


@dataclass(frozen=True)
class KernelArgs:
    """Everything the kernels need about the rules and the players, as numbers and arrays
    (the bundles of mexsim/game/contexts.py).

    ``players`` are the run's players (seat order, when there are exactly as many as
    seats and no seating is given); the kernels call ``funcs[arrays.func[i]]`` for
    player i with ``arrays.params[i]``.
    """

    rules: Rules
    players: tuple[Seat, ...]
    funcs: tuple
    numbers: RuleNumbers
    arrays: PlayerArrays
    tiles: TileTables
    decides: tuple  # the players' own decides, by slot (funcs holds stand-ins: build)

    @classmethod
    def build(cls, rules: Rules, players: Sequence[Seat]) -> KernelArgs:
        resolved = seated(players)
        if len(resolved) < rules.players:
            raise ValueError(f"{len(resolved)} players for {rules.players} seats")
        chosen = _decides(resolved)
        decides: list = []
        for d in chosen:
            if d not in decides:
                decides.append(d)
        if len(decides) > MAX_STRATEGIES:
            raise ValueError(f"{len(decides)} different strategies (at most {MAX_STRATEGIES})")
        n = len(resolved)
        player_func = np.array([decides.index(d) for d in chosen], dtype=np.int64)
        params = np.zeros((n, view.MAX_PARAMS), dtype=np.float64)
        n_params = np.zeros(n, dtype=np.int64)
        n_memory = np.zeros(n, dtype=np.int64)
        calling = np.zeros(n, dtype=np.int64)
        for i, (player, played) in enumerate(zip(resolved, chosen, strict=True)):
            params[i, : len(player.params)] = player.params
            n_params[i] = len(player.params)
            n_memory[i] = player.memory
            calling[i] = player.calling(played)
        # A slot whose every seat the kernel plays itself (IN_KERNEL_CALLINGS) holds the
        # stand-in under Dispatch.plugin: that decide is never called there, nor compiled;
        # any other is compiled now if it was not (a shipped one: signature.ready)
        in_kernel = {
            int(f) for f, c in zip(player_func, calling, strict=True) if c in IN_KERNEL_CALLINGS
        }
        slots = [stand_in_decide() if i in in_kernel else ready(d) for i, d in enumerate(decides)]
        # Pad to MAX_STRATEGIES so the kernels' type, and so their cache, is the same
        # for every table; the padding is never called. The last slot
        # (LONGEST_TRAIN_SLOT) is longest_train as the kernel plays it on its private
        # table, compiled only for a table that has it (mexsim/game/kernel_longest_train.py)
        in_table = (
            in_table_decide() if (calling == Calling.longest_train_in_kernel).any() else slots[0]
        )
        funcs = (*slots, *(slots[0],) * (MAX_STRATEGIES - len(slots)), in_table)
        ts = tile_set(rules.max_pip)
        return cls(
            rules,
            resolved,
            funcs,
            rule_numbers(rules),
            PlayerArrays(player_func, params, n_params, n_memory, calling),
            TileTables(ts.lo, ts.hi, ts.pips, ts.number_mask),
            tuple(decides),
        )

    def kernel_args(
        self, dispatch: int = Dispatch.plugin
    ) -> tuple[RuleNumbers, tuple, PlayerArrays, TileTables]:
        """(rules, funcs, players, tiles): the arguments every kernel takes, in order.
        Another ``dispatch`` than Dispatch.plugin (benchmarks, `replay --moves`) calls
        every seat's own decide: the slots hold them all, compiled now if not yet."""
        funcs = self.funcs
        if dispatch != Dispatch.plugin:
            called = tuple(ready(d) for d in self.decides)
            funcs = (*called, *funcs[len(called) :])
        return self.numbers, funcs, self.arrays, self.tiles

    def deciding(
        self,
        status: np.ndarray,
        player_of: Callable[[int, int], int] | None = None,
        match_word: str = "match",
    ) -> str:
        """ "strategy 'x' (seat s) in match m, round r": whose decide the kernel called
        last (``player_of`` as for raise_for; ``match_word`` names matches that are not
        the run's: the luck model's pilot)."""
        seat, match = int(status[Status.seat]), int(status[Status.match])
        name = self.players[player_of(match, seat) if player_of else seat].name
        return (
            f"strategy '{name}' (seat {seat}) in {match_word} {match}, "
            f"round {int(status[Status.round])}"
        )

    def raise_for(
        self,
        status: np.ndarray,
        exc: BaseException | None = None,
        player_of: Callable[[int, int], int] | None = None,
        match_word: str = "match",
    ) -> None:
        """Turn a failed kernel (status flag, or an exception from a strategy) into
        StrategyError naming the strategy, the match and the round. ``player_of(match,
        seat)`` says who sat there (default: player i in seat i)."""
        if exc is None and not status[Status.bad_choice]:
            return
        where = self.deciding(status, player_of, match_word)
        if exc is not None:
            raise StrategyError(f"{where} raised {type(exc).__name__}: {exc}") from exc
        if status[Status.bad_choice] == BAD_NOTE:
            k, memory = int(status[Status.choice]), int(status[Status.n_moves])
            raise StrategyError(
                f"{where} wrote view[NOTES + {k}], past its MEMORY = {memory} notes (not "
                f"kept for it, and shown to the next seat): declare MEMORY = {k + 1} or more "
                "in its file (a built-in it calls keeps its own notes: longest_train's "
                "MEMORY is 32)"
            )
        raise StrategyError(
            f"{where} chose move {int(status[Status.choice])} of "
            f"{int(status[Status.n_moves])} legal moves (allowed: 0.."
            f"{int(status[Status.n_moves]) - 1})"
        )


# how a strategy's fault in the luck model's pilot (docs/luck.md) names its match
PILOT_MATCH = "the luck model's pilot match"


def event_capacity(rules: Rules) -> int:
    """An upper bound on event rows per match: deal, draws, plays and passes per round.

    Every pass with a non-empty boneyard follows a draw; with an empty boneyard at most
    P passes separate two plays or two new markers (R15).
    """
    T, P = rules.tiles, rules.players
    return rules.rounds * (4 * T + (T + P + 2) * P + 4)


def _seed(seed: int) -> np.uint64:
    return np.uint64(seed & MASK64)


def _run_kernel(
    args: KernelArgs,
    status: np.ndarray,
    call,
    player_of: Callable[[int, int], int] | None = None,
    match_word: str = "match",
):
    """Run a kernel; a strategy's exception is named by the seat, match and round the
    kernel put in ``status`` before calling it (not the view's: the strategy may have
    written over them), the match as ``match_word`` says (deciding)."""
    try:
        with watched(status, lambda words: args.deciding(words, player_of, match_word)):
            result = call()
    except (StrategyError, NumbaError):
        # NumbaError: the kernel itself failed to compile, a fault of mexsim's (every
        # strategy was compiled, and any error of its own reported, when it was loaded)
        raise
    except Exception as exc:  # raised inside a user's strategy: name it
        args.raise_for(status, exc, player_of, match_word)
    args.raise_for(status, player_of=player_of, match_word=match_word)
    return result


def play_match_results(
    rules: Rules,
    seats: Sequence[Seat],
    seed: int,
    match: int,
    record: bool = False,
    deal: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play one match in the core; returns (res[round, seat, field], event rows).

    The shuffles and strategy streams come from ``deal`` (default: the match itself)."""
    res, ev, _ = _play_match(rules, seats, seed, match, record, deal)
    return res, ev


def _play_match(
    rules: Rules,
    seats: Sequence[Seat],
    seed: int,
    match: int,
    record: bool,
    deal: int | None,
    dispatch: int = Dispatch.plugin,
    listen: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[Said]]:
    """play_match_results, as ``dispatch`` asks the strategies; with ``listen``, what
    they print is collected, by decision, rather than shown."""
    args = KernelArgs.build(rules, seats)
    res = np.zeros((rules.rounds, rules.players, N_FIELDS), dtype=np.int64)
    ev = np.zeros((event_capacity(rules) if record else 1, N_EVENT_FIELDS), dtype=np.int64)
    status = np.zeros(N_STATUS, dtype=np.int64)
    work = np.zeros(view.SIZE, dtype=np.int64)
    if len(args.players) != rules.players:
        raise ValueError(f"{len(args.players)} seats for {rules.players} players")
    listening: AbstractContextManager[list[Said]] = (
        collect_output(ev, status) if listen else nullcontext([])
    )
    with listening as said:
        n = _run_kernel(
            args,
            status,
            lambda: kernel.play_match(
                _seed(seed),
                match,
                match if deal is None else deal,
                *args.kernel_args(dispatch),
                Outputs(work, res, ev, status),
                record,
                dispatch,
            ),
        )
    return res, ev[:n], said


def _decides(players: Sequence[Seat]) -> list:
    """Each player's compiled decide: the form its values ask for (Seat.decide), unless
    that makes more than the kernels' MAX_STRATEGIES slots (the config counts strategies
    by name: a built-in with two forms counts once). Then every seat of such a built-in
    plays its other form, which plays every value alike (longest_train's weighted form
    plans by counting at pip_weight 0); its own decide plays only the values
    decide_for gives it."""
    chosen = [p.decide for p in players]
    if len({id(d) for d in chosen}) <= MAX_STRATEGIES:
        return chosen
    other = {
        id(p.decide_for_any_values): d
        for p, d in zip(players, chosen, strict=True)
        if d is not p.decide_for_any_values
    }
    return [other.get(id(d), d) for d in chosen]


@dataclass(frozen=True)
class _Block:
    """What a block's kernel call needs besides the seed: the arguments checked and laid
    out, the results array and the status words."""

    args: KernelArgs
    match_ids: np.ndarray
    deal_ids: np.ndarray
    seating: np.ndarray
    res: np.ndarray
    status: np.ndarray
    work: np.ndarray

    @classmethod
    def build(
        cls,
        rules: Rules,
        players: Sequence[Seat],
        match_ids: np.ndarray,
        deal_ids: np.ndarray,
        seating: np.ndarray,
    ) -> _Block:
        match_ids = np.ascontiguousarray(match_ids, dtype=np.int64)
        deal_ids = np.ascontiguousarray(deal_ids, dtype=np.int64)
        seating = np.ascontiguousarray(seating, dtype=np.int64)
        n = len(match_ids)
        if deal_ids.shape != (n,) or seating.shape != (n, rules.players):
            raise ValueError("match_ids, deal_ids and seating[match, seat] must agree")
        return cls(
            KernelArgs.build(rules, players),
            match_ids,
            deal_ids,
            seating,
            np.zeros((n, rules.rounds, rules.players, N_FIELDS), dtype=np.int64),
            np.zeros(N_STATUS, dtype=np.int64),
            np.zeros(view.SIZE, dtype=np.int64),
        )

    def player_of(self, match: int, seat: int) -> int:
        """The player in ``seat`` of ``match`` (for a failed strategy's message)."""
        return int(self.seating[int(np.flatnonzero(self.match_ids == match)[0]), seat])


def play_scheduled(
    rules: Rules,
    players: Sequence[Seat],
    seed: int,
    match_ids: np.ndarray,
    deal_ids: np.ndarray,
    seating: np.ndarray,
    dispatch: int = Dispatch.plugin,
) -> np.ndarray:
    """Play match match_ids[k] from deal deal_ids[k] with player seating[k, s] in seat s;
    returns res[k, round, seat, field]. Releases the GIL while playing.

    ``dispatch`` is for benchmarks only: Dispatch.hardwired and
    Dispatch.engine_only play greedy compiled into the core instead of the seats'
    plug-ins, Dispatch.called calls every seat's plug-in with its view, the built-in greedy's,
    random's, early_doubles' and longest_train's too (see mexsim/game/kernel.py and
    enums.Calling).
    """
    b = _Block.build(rules, players, match_ids, deal_ids, seating)
    _run_kernel(
        b.args,
        b.status,
        lambda: _play_matches(
            _seed(seed),
            b.match_ids,
            b.deal_ids,
            b.seating,
            *b.args.kernel_args(dispatch),
            b.work,
            b.res,
            b.status,
            dispatch,
        ),
        b.player_of,
    )
    return b.res


def play_scheduled_moves(
    rules: Rules,
    players: Sequence[Seat],
    seed: int,
    match_ids: np.ndarray,
    deal_ids: np.ndarray,
    seating: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`play_scheduled` keeping each match's moves (mexsim/game/recorded.py):
    (res, moves[k, j] = (tile, train) of match k's j-th play, n_moves[k])."""
    from mexsim.game.recorded import play_matches_recorded

    b = _Block.build(rules, players, match_ids, deal_ids, seating)
    n = len(b.match_ids)
    ev = np.zeros((event_capacity(rules), N_EVENT_FIELDS), dtype=np.int64)
    moves = np.zeros((n, rules.rounds * rules.tiles, 2), dtype=np.int16)  # a play a tile
    n_moves = np.zeros(n, dtype=np.int64)
    _run_kernel(
        b.args,
        b.status,
        lambda: play_matches_recorded(
            _seed(seed),
            b.match_ids,
            b.deal_ids,
            b.seating,
            *b.args.kernel_args(Dispatch.plugin),
            b.work,
            b.res,
            b.status,
            Dispatch.plugin,
            ev,
            moves,
            n_moves,
        ),
        b.player_of,
    )
    return b.res, moves, n_moves


def play_scheduled_luck(
    rules: Rules,
    players: Sequence[Seat],
    seed: int,
    match_ids: np.ndarray,
    deal_ids: np.ndarray,
    seating: np.ndarray,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`play_scheduled` with the luck of every chance event (mexsim/game/luck.py).

    ``weights``: the value model's weight per feature; returns (res, deal_luck[k, round,
    seat], draw_luck[k, round, seat], sums), sums zero. ``weights`` None plays the pilot
    instead: the luck arrays stay zero and ``sums`` holds the integer sums of products of
    [1, features, round penalty] over every seat after every chance event."""
    from mexsim.game import luck

    b = _Block.build(rules, players, match_ids, deal_ids, seating)
    ev = np.zeros((event_capacity(rules), N_EVENT_FIELDS), dtype=np.int64)
    deal_luck = np.zeros(b.res.shape[:3])
    draw_luck = np.zeros(b.res.shape[:3])
    size = luck.N_FEATURES + 2
    sums = np.zeros((size, size), dtype=np.int64)
    w = (
        np.zeros(luck.N_FEATURES)
        if weights is None
        else np.ascontiguousarray(weights, dtype=np.float64)
    )
    mode = luck.COLLECT if weights is None else luck.SCORE

    _run_kernel(
        b.args,
        b.status,
        lambda: luck.play_matches_luck(
            _seed(seed),
            b.match_ids,
            b.deal_ids,
            b.seating,
            *b.args.kernel_args(),
            b.work,
            b.res,
            b.status,
            Dispatch.plugin,
            ev,
            w,
            mode,
            sums,
            deal_luck,
            draw_luck,
        ),
        b.player_of,
        # the pilot's matches are deals of its own: `mexsim replay --match` shows others
        PILOT_MATCH if weights is None else "match",
    )
    return b.res, deal_luck, draw_luck, sums


def play_matches_results(
    rules: Rules,
    seats: Sequence[Seat],
    seed: int,
    first_match: int,
    n_matches: int,
    dispatch: int = Dispatch.plugin,
    stride: int = 1,
) -> np.ndarray:
    """Play matches first_match + k·stride, k < n_matches, all with these seats and each
    from its own deal; returns res[k, round, seat, field] (see :func:`play_scheduled`)."""
    match_ids = first_match + stride * np.arange(n_matches, dtype=np.int64)
    seating = np.broadcast_to(np.arange(rules.players, dtype=np.int64), (n_matches, rules.players))
    return play_scheduled(rules, seats, seed, match_ids, match_ids, seating, dispatch)


def events_to_trace(
    rules: Rules,
    res: np.ndarray,
    ev: np.ndarray,
    header: dict | None = None,
    said: Sequence[Said] = (),
) -> list[dict]:
    """Event rows of :func:`play_match_results` as trace dicts (docs/interface.md
    format); what the strategies printed (``said``) as "print" events, each before the
    event of the decision it was printed at."""
    ts = tile_set(rules.max_pip)
    P = rules.players

    def tile(t: int) -> list[int]:
        return [int(ts.lo[t]), int(ts.hi[t])]

    out: list[dict] = [header] if header else []
    deal: dict | None = None
    to_say = iter(said)
    line = next(to_say, None)
    for row, (kind, rnd, seat, t, extra) in enumerate(ev.tolist()):
        while line is not None and line.row <= row:
            out.append(said_event(line))
            line = next(to_say, None)
        if kind in (Event.deal_hand, Event.deal_boneyard):
            if deal is None:
                deal = {
                    "event": "deal",
                    "round": rnd,
                    "engine": rules.max_pip - rnd,
                    "hands": [[] for _ in range(P)],
                    "boneyard": [],
                }
                out.append(deal)
            (deal["hands"][seat] if kind == Event.deal_hand else deal["boneyard"]).append(tile(t))
            continue
        deal = None
        if kind == Event.engine:
            out.append({"event": "engine", "round": rnd, "seat": seat})
        elif kind == Event.draw:
            out.append({"event": "draw", "round": rnd, "seat": seat, "tile": tile(t)})
        elif kind == Event.play:
            out.append(
                {
                    "event": "play",
                    "round": rnd,
                    "seat": seat,
                    "tile": tile(t),
                    "train": trace_train(extra, P),
                }
            )
        elif kind == Event.pass_:
            out.append({"event": "pass", "round": rnd, "seat": seat})
        elif kind == Event.round_end:
            out.append(
                {
                    "event": "round_end",
                    "round": rnd,
                    "reason": "blocked" if extra == Reason.blocked else "out",
                    "penalties": [int(p) for p in res[rnd, :, Field.penalty]],
                }
            )
    out.extend(said_event(rest) for rest in ([line] if line else []) + list(to_say))
    out.append(
        {"event": "match_end", "totals": [int(x) for x in res[:, :, Field.penalty].sum(axis=0)]}
    )
    return out


def core_trace(
    rules: Rules,
    seats: Sequence[Seat],
    seed: int,
    match: int,
    header: dict | None = None,
    deal: int | None = None,
    explained: bool = False,
) -> list[dict]:
    """The trace of one match played by the numba core (from ``deal``, default
    ``match``), with what the strategies printed as "print" events at their decisions.
    ``explained``: the strategies are asked to explain their choices (access.explaining)."""
    res, ev, said = _play_match(
        rules,
        seats,
        seed,
        match,
        True,
        deal,
        Dispatch.explained if explained else Dispatch.plugin,
        listen=True,
    )
    return events_to_trace(rules, res, ev, header, said)


def play_dealt_round(
    rules: Rules,
    seats: Sequence[Seat],
    round_no: int,
    hands: Sequence[Sequence[int]],
    boneyard: Sequence[int],
    seed: int = 0,
    match: int = 0,
) -> tuple[np.ndarray, list[dict]]:
    """Play one round from a hand-made deal (tile numbers; equal hands of rules.hand_size).

    Returns (res[seat, field], the round's trace events from "deal" to "round_end").
    Strategy streams are those of (seed, match), as in a real match.
    """
    args = KernelArgs.build(rules, seats)
    P = rules.players
    if len(args.players) != P:
        raise ValueError(f"{len(args.players)} seats for {P} players")
    if len(hands) != P or any(len(h) != rules.hand_size for h in hands):
        raise ValueError(f"a deal needs {P} hands of {rules.hand_size} tiles")
    order = np.array([t for hand in hands for t in hand] + list(boneyard), dtype=np.int64)
    res = np.zeros((rules.rounds, P, N_FIELDS), dtype=np.int64)
    ev = np.zeros((event_capacity(rules), N_EVENT_FIELDS), dtype=np.int64)
    status = np.zeros(N_STATUS, dtype=np.int64)
    work = np.zeros(view.SIZE, dtype=np.int64)
    n_ev = _run_kernel(
        args,
        status,
        lambda: kernel.play_dealt_round(
            _seed(seed),
            match,
            round_no,
            order,
            len(order),
            *args.kernel_args(),
            Outputs(work, res, ev, status),
        ),
    )
    trace = events_to_trace(rules, res, ev[:n_ev])[:-1]  # no match_end
    return res[round_no], trace
