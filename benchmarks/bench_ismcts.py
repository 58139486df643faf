"""The built-in `search` against OpenSpiel's ISMCTS, at equal rollouts a decision.

Both play one round of a 2-seat double-6 table (7 tiles each) through the OpenSpiel
game (mexsim/env/openspiel.py). Duplicate deals: each deal (every chance outcome, so
the hands and the boneyard's order) is played twice, ISMCTS at seat 0 and then at seat 1,
`search` at the other. ISMCTS (open_spiel.python.algorithms.ismcts) runs SIMULATIONS
simulations a decision, each one random rollout (RandomRolloutEvaluator), worlds dealt
by resample_from_infostate; `search` gets the same number of rollouts a decision
(``budget``), with the rollout policy ROLLOUT (random, as ISMCTS's, or longest_train).

    python benchmarks/bench_ismcts.py --deals 60 --simulations 100 --rollout random

Prints, for the ISMCTS seat: the share of deals' games it ended ahead (Wilson 95 %), the
mean round penalty of each side and the paired difference per game with a 95 % t interval,
and each side's seconds a decision.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np

CONFIG = """
[run]
matches = 1
seed = {seed}

[rules]
max_pip = 6
hand_size = 7

[[players]]
strategy = "search"
params = {{ budget = {budget}, rollout = "{rollout}" }}

[[players]]
strategy = "search"
params = {{ budget = {budget}, rollout = "{rollout}" }}
"""


def main() -> None:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts
    from scipy import stats

    import mexsim.env.openspiel  # noqa: F401  (registers the game)
    from mexsim.env.actions import legal_actions

    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--simulations", type=int, default=100)
    ap.add_argument("--rollout", default="random")
    ap.add_argument("--uct-c", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    folder = Path(tempfile.mkdtemp())
    config = folder / "ismcts.toml"
    config.write_text(
        CONFIG.format(seed=a.seed, budget=a.simulations, rollout=a.rollout), encoding="utf-8"
    )
    game = pyspiel.load_game("python_mexican_train", {"config": str(config), "rounds": 1})
    deal_rng = np.random.default_rng(a.seed)
    bot_rng = np.random.RandomState(a.seed)
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=bot_rng),
        uct_c=a.uct_c,
        max_simulations=a.simulations,
        random_state=bot_rng,
    )
    diffs, ahead, ties = [], 0.0, 0
    pen = {"ismcts": [], "search": []}
    secs = {"ismcts": [0.0, 0], "search": [0.0, 0]}
    for deal in range(a.deals):
        order = list(deal_rng.permutation(28))  # a rank for each tile: the deal's order
        for bot_seat in (0, 1):
            st = game.new_initial_state()
            while not st.is_terminal():
                if st.is_chance_node():
                    left = [t for t, _ in st.chance_outcomes()]
                    st.apply_action(min(left, key=lambda t: order[t]))
                    continue
                side = "ismcts" if st.current_player() == bot_seat else "search"
                t0 = time.process_time()
                if side == "ismcts":
                    action = bot.step(st)
                else:
                    # the seat's configured search decides from its view (R17)
                    action = legal_actions(st.game)[st.game.suggest()]
                secs[side][0] += time.process_time() - t0
                secs[side][1] += 1
                st.apply_action(action)
            r = st.returns()
            mine, theirs = -r[bot_seat], -r[1 - bot_seat]
            pen["ismcts"].append(mine)
            pen["search"].append(theirs)
            diffs.append(theirs - mine)
            ahead += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
            ties += mine == theirs
        print(
            f"deal {deal + 1}/{a.deals}: ISMCTS ahead in {ahead:.1f} of {2 * (deal + 1)}",
            flush=True,
        )
    n = len(diffs)
    p = ahead / n
    z = 1.959963984540054
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    d = np.array(diffs, dtype=float)
    t = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / math.sqrt(n)
    print(
        f"ISMCTS ({a.simulations} simulations, uct_c {a.uct_c}) against search (budget "
        f"{a.simulations}, rollout {a.rollout}), {a.deals} deals x 2 seats, one round of double-6:"
    )
    lo, hi = 100 * (centre - half), 100 * (centre + half)
    print(f"  ISMCTS ahead in {100 * p:.1f} % [{lo:.1f}, {hi:.1f}] (ties half; {ties} ties)")
    mean_ismcts, mean_search = np.mean(pen["ismcts"]), np.mean(pen["search"])
    print(f"  mean round penalty: ISMCTS {mean_ismcts:.2f}, search {mean_search:.2f}")
    m = d.mean()
    print(f"  search's penalty minus ISMCTS's: {m:+.2f} [{m - t:+.2f}, {m + t:+.2f}] a game")
    for side, (s, k) in secs.items():
        print(f"  {side}: {1000 * s / max(k, 1):.1f} ms a decision ({k} decisions)")


if __name__ == "__main__":
    main()
