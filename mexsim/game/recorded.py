"""A block of matches played by the core, each match's moves kept: the tile and train of
every play, in order (the decisions dataset replays them on the step,
mexsim/tournament/decision_rows.py).

The core plays exactly as for a run (kernel.play_rounds, the same seats, deals and
streams), with its trace recorded into one match's event rows, from which the plays are
kept: a block's results are the run's, byte for byte."""

from __future__ import annotations

from mexsim.game.contexts import Outputs
from mexsim.game.enums import Event, EventField
from mexsim.game.kernel import block_seats, new_scratch, play_rounds, start_block_match
from mexsim.jit.options import compiled


@compiled(cache=True, nogil=True)
def play_matches_recorded(
    seed, match_ids, deal_ids, seating, rules, funcs, players, tiles, view, res, status,
    dispatch, ev, moves, n_moves,
):  # fmt: skip
    """kernel.play_matches, keeping match k's plays: moves[k, j] = (tile, train) of its
    j-th play (its j-th decision, a forced one too), n_moves[k] of them. ``ev`` is one
    match's event rows (play.event_capacity). Returns the matches completed."""
    seats = block_seats(rules.players, players)
    scratch = new_scratch(rules.players, tiles.lo.shape[0], view.shape[0])
    for k in range(match_ids.shape[0]):
        start_block_match(
            k, seed, match_ids, deal_ids, seating, rules, players, seats, tiles, scratch, view
        )
        n_ev = play_rounds(
            seed,
            deal_ids[k],
            0,
            rules.max_pip + 1,
            -1,
            rules,
            funcs,
            seats,
            tiles,
            scratch,
            Outputs(view, res[k], ev, status),
            0,
            True,
            dispatch,
        )
        if n_ev < 0:
            return k
        c = 0
        for e in range(n_ev):
            if ev[e, EventField.kind] == Event.play:
                moves[k, c, 0] = ev[e, EventField.tile]
                moves[k, c, 1] = ev[e, EventField.extra]
                c += 1
        n_moves[k] = c
    return match_ids.shape[0]
