"""Invariants checked after every event of random games in the reference engine:
every tile in exactly one place, trains are valid chains from the engine, markers and
open doubles are consistent, penalties equal the pips left, and a round ends exactly
when R14/R15 say. (The differential tests carry these over to the numba core.)"""

from __future__ import annotations

from hypothesis import given, settings

from mexsim.game.reference import Round, deal, make_players, static_view
from tests.profiles import examples
from tests.strategies_hyp import matches, rules_and_seats, seeds


def check_state(rnd: Round, engine_placed: bool) -> None:
    ts, P = rnd.ts, rnd.P
    engine_tile = ts.double(rnd.engine)
    # every tile in exactly one place: a hand, the boneyard, a train, or the centre
    places = [t for h in rnd.hands for t in h] + list(rnd.boneyard)
    places += [t for tr in rnd.trains for t in tr.tiles]
    if engine_placed or rnd.rules.engine == "set_aside":
        assert engine_tile not in places
        places.append(engine_tile)
    assert sorted(places) == list(range(ts.count))
    # trains are valid chains from the engine; the Mexican train never carries a marker
    for tr in rnd.trains:
        end = rnd.engine
        for t in tr.tiles:
            a, b = ts.tile(t)
            assert end in (a, b)
            end = b if a == end else a
        assert end == tr.end
    assert not rnd.trains[P].marked
    # open doubles: exactly the trains whose last tile is a double, each once
    ending_in_double = {
        i for i, tr in enumerate(rnd.trains) if tr.tiles and rnd.is_double(tr.tiles[-1])
    }
    assert sorted(rnd.open_doubles) == sorted(ending_in_double)
    assert rnd.pass_count >= 0


def legal_anywhere(rnd: Round, seat: int) -> bool:
    if rnd.open_doubles:
        return bool(rnd.moves_on(seat, [rnd.open_doubles[0]]))
    return bool(rnd.moves_on(seat, rnd.usable_trains(seat, first_turn=False)))


@settings(max_examples=examples(60), deadline=None)
@given(rules_and_seats(max_players=7), seeds, matches)
def test_invariants_hold_after_every_event(case, seed, match):
    rules, seats = case
    players = make_players(rules, seats, seed, match)
    view = static_view(rules, match)
    for r in (0, rules.max_pip // 2, rules.max_pip):
        hands, boneyard = deal(rules, seed, match, r)
        events: list[dict] = []
        holder: list[Round] = []
        blocks_after: list[bool] = []  # per event: does R15 block the round right here?

        def emit(event: dict, events=events, holder=holder, blocks_after=blocks_after) -> None:
            events.append(event)
            if holder:
                rnd = holder[0]
                check_state(rnd, any(e["event"] == "engine" for e in events))
                if event["event"] == "pass":  # the count is updated just after the event
                    count = 1 if not rnd.trains[event["seat"]].marked else rnd.pass_count + 1
                    blocks_after.append(not rnd.boneyard and count >= rules.players)
                else:
                    blocks_after.append(False)

        rnd = Round(rules, r, hands, boneyard, players, view, emit)
        holder.append(rnd)
        result = rnd.play_round()
        end = events[-1]
        assert end["event"] == "round_end"
        # R16: penalties are the pips left, 0|0 at double_blank_points
        for s, hand in enumerate(rnd.hands):
            pips = sum(
                rules.double_blank_points if t == rnd.ts.double(0) else int(rnd.ts.pips[t])
                for t in hand
            )
            assert result.penalties[s] == pips
        if end["reason"] == "out":
            # R14: the round ended on the play that emptied a hand
            assert events[-2]["event"] == "play"
            assert not rnd.hands[events[-2]["seat"]]
            assert sum(1 for h in rnd.hands if not h) == 1
        else:
            # R15: boneyard empty and nobody can play
            assert not rnd.boneyard
            assert all(rnd.hands)
            assert not any(legal_anywhere(rnd, s) for s in range(rules.players))
            assert events[-2]["event"] == "pass"
        # R15: the round ends blocked exactly after the first pass that completes the count
        first_block = blocks_after.index(True) if True in blocks_after else None
        if end["reason"] == "blocked":
            assert first_block == len(blocks_after) - 2
        else:
            assert first_block is None
