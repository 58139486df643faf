"""What a learning environment's step costs beside the policy (docs/learning.md, "Speed").

Plays the same match (CONFIG's match 0 under seed 2026, every seat choosing its first
legal move) REPEAT times through the PettingZoo AEC environment, in process CPU time on
one core, and prints the median µs a step: the step alone, the step with the acting
seat's observation (what ``env.last()`` builds), and ``Game.play`` alone.

    python benchmarks/bench_env.py [--config configs/default.toml] [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

from mexsim.env import aec_env
from mexsim.env.actions import legal_actions


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.toml")
    ap.add_argument("--repeat", type=int, default=15)
    a = ap.parse_args()
    env = aec_env(a.config)
    env.reset(seed=2026)
    actions = []
    while not env.game.is_over():
        actions.append(legal_actions(env.game)[0])
        env.step(actions[-1])

    def steps(observe: bool) -> float:
        env.reset(seed=2026)
        t = time.process_time()
        for action in actions:
            if observe:
                env.observe(env.agent_selection)
            env.step(action)
        return (time.process_time() - t) / len(actions) * 1e6

    def plays() -> float:
        env.reset(seed=2026)
        game = env.game
        t = time.process_time()
        while not game.is_over():
            game.play(0)
        return (time.process_time() - t) / len(actions) * 1e6

    steps(True)  # warm: compiled code loaded, caches filled
    plays()
    rows = {
        "AEC step": [steps(False) for _ in range(a.repeat)],
        "AEC step + observation": [steps(True) for _ in range(a.repeat)],
        "Game.play": [plays() for _ in range(a.repeat)],
    }
    print(f"{a.config}, {len(actions)} decisions a match, median of {a.repeat}:")
    for name, values in rows.items():
        print(f"  {name}: {statistics.median(values):.1f} µs a decision")


if __name__ == "__main__":
    main()
