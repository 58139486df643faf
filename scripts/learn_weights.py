"""From decisions to a player, end to end (docs/learning.md, "A learned player").

1. record the decisions of `search` playing longest_train, head to head
   (`mexsim.run(..., decisions)`: decisions.parquet, a row for each legal move);
2. fit a conditional logit of the chosen move on weights' eight features — with
   scikit-learn, as a logistic regression on the differences between the chosen move's
   features and each other move's (the pairwise form of the conditional logit);
3. write the coefficients as weights' parameters (a params file, `[params]`);
4. play `weights` with them against longest_train, duplicate deals, with `mexsim.run`.

    python scripts/learn_weights.py --record 1000 --play 20000 --out results/learn

Needs scikit-learn (`pip install scikit-learn`). Prints the fitted weights and the
head-to-head result; the folder keeps every file (the configs, the dataset, fitted.toml).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

import mexsim

FEATURES = ["pips", "double", "own", "public", "plan", "follow", "starve", "trap"]
SCALE = 200.0  # the largest weight written (weights allows -1000..1000; argmax needs no scale)

RECORD = """[run]
matches = {matches}
seed = {seed}
decisions = ["teacher"]

[[players]]
name = "teacher"
strategy = "{teacher}"
{params}

[[players]]
strategy = "longest_train"
"""

PLAY = """[run]
matches = {matches}
seed = {seed}

[tournament]
duplicate = true

[[players]]
name = "fitted"
strategy = "weights"
params_file = "fitted.toml"

[[players]]
strategy = "longest_train"
"""


def pairwise(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """For each decision, the chosen move's features minus each other move's (label 1)
    and the reverse (label 0): a logistic regression on them without an intercept is the
    conditional logit's pairwise form."""
    x = rows[FEATURES].to_numpy(dtype=np.float64)
    key = rows["match"].to_numpy() * 100_000 + rows["decision"].to_numpy()
    chosen = rows["chosen"].to_numpy()
    index = pd.Series(np.flatnonzero(chosen), index=key[chosen])
    best = index.reindex(key).to_numpy()  # each row's decision's chosen row
    others = ~chosen
    diff = x[best[others]] - x[others]
    return np.vstack([diff, -diff]), np.r_[np.ones(len(diff)), np.zeros(len(diff))]


def fit(rows: pd.DataFrame) -> dict[str, float]:
    from sklearn.linear_model import LogisticRegression

    x, y = pairwise(rows)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(fit_intercept=False, C=1.0, max_iter=1000)
    model.fit(x / scale, y)
    coef = model.coef_[0] / scale  # back to the features' own units
    coef *= SCALE / np.abs(coef).max()
    return {name: round(float(c), 3) for name, c in zip(FEATURES, coef, strict=True)}


def agreement(rows: pd.DataFrame, weights: dict[str, float]) -> float:
    """The share of the recorded decisions where ``weights`` would choose as the teacher."""
    w = np.array([weights[f] for f in FEATURES])
    score = rows[FEATURES].to_numpy(dtype=np.float64) @ w - 1e-6 * rows["tile"].to_numpy()
    best = pd.Series(score).groupby([rows["match"], rows["decision"]]).idxmax()
    return float(rows["chosen"].to_numpy()[best.to_numpy()].mean())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", type=int, default=1000, help="matches whose decisions to record")
    ap.add_argument("--play", type=int, default=20000, help="matches of the head-to-head")
    ap.add_argument("--teacher", default="search", help="the strategy whose decisions to fit")
    ap.add_argument("--worlds", type=int, default=32, help="a search teacher's worlds")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=Path("results/learn"))
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    params = f"params = {{ worlds = {a.worlds} }}" if a.teacher == "search" else ""
    record = a.out / "record.toml"
    record.write_text(
        RECORD.format(matches=a.record, seed=a.seed, teacher=a.teacher, params=params),
        encoding="utf-8",
    )
    recorded = mexsim.run(record, out=a.out / "recorded", force=True)
    rows = recorded.decisions(["match", "decision", "tile", "chosen", *FEATURES])
    decisions = rows.groupby(["match", "decision"]).ngroups
    print(f"recorded {decisions:,} decisions of {a.teacher} ({len(rows):,} rows)")

    weights = fit(rows)
    print(f"the fitted weights choose as {a.teacher} did in {100 * agreement(rows, weights):.1f} %")
    lines = "".join(f"{k} = {v}\n" for k, v in weights.items())
    (a.out / "fitted.toml").write_text(f"[params]\n{lines}", encoding="utf-8")
    print("fitted weights: " + ", ".join(f"{k} {v}" for k, v in weights.items()))

    play = a.out / "play.toml"
    play.write_text(PLAY.format(matches=a.play, seed=a.seed + 1), encoding="utf-8")
    played = mexsim.run(play, out=a.out / "played", force=True)
    h2h = played.head_to_head.set_index(["player", "opponent"]).loc[("fitted", "longest_train")]
    print(
        f"fitted weights ahead of longest_train in {100 * h2h['share']:.1f} % "
        f"[{100 * h2h['share_lo']:.1f}, {100 * h2h['share_hi']:.1f}] of {int(h2h['matches']):,} "
        "matches (duplicate deals)"
    )


if __name__ == "__main__":
    main()
