"""Plots of a results directory: penalties round by round, match totals, win shares.

matplotlib is imported inside ``write_plots`` only, so importing this module (and the
CLI) stays light. Figures are drawn on an explicit Agg canvas (``FigureCanvasAgg``)
rather than through ``pyplot``: nothing is ever displayed, no global backend is switched
under a caller who has their own (a notebook, say), and no figure lingers in pyplot's
registry after it is saved.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from mexsim.analysis.stats import CONFIDENCE, quiet_degenerate, t_quantile

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.figure import Figure

    from mexsim.analysis.comparison import Analysis
    from mexsim.analysis.results_stream import ResultsDigest

#: The files ``write_plots`` writes, in the order it returns them.
PLOT_FILES = (
    "penalty_by_round.png",
    "totals.png",
    "win_share.png",
    "head_to_head.png",
    "ratings.png",
)

#: ``plot_digest`` adds this one for a run with rule variants (docs/designers.md)
VARIANTS_PLOT = "variants.png"
#: and this one for a run with a parameter sweep (its values against the sweep's best)
SWEEPS_PLOT = "sweeps.png"

_DPI = 120


# a legend beside the plot, never over its data
_BESIDE: dict[str, Any] = {"loc": "upper left", "bbox_to_anchor": (1.01, 1), "borderaxespad": 0}


def new_figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(figure)  # attaches itself: savefig renders with Agg, never a display
    return figure


def save_figure(figure: Figure, path: Path, caption: str | None) -> None:
    """``path`` replaced whole: an interruption leaves the old plot or the new one.
    ``caption`` (which run: its folder, matches, seed and rules) heads the figure."""
    if caption:
        figure.suptitle(caption, fontsize="small", color="0.35")
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        # the image grows to hold every text: long player names in a pool pushed a
        # panel's title and label past the figure's edge
        figure.savefig(temporary, format=path.suffix[1:], bbox_inches="tight", pad_inches=0.1)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _colors(players: list[str]) -> dict[str, Any]:
    """One colour per player, the same in every plot (tab10, then tab20 beyond ten)."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if len(players) <= 10 else "tab20"]
    return {player: cmap(i % cmap.N) for i, player in enumerate(players)}


def _penalty_by_round(
    path: Path,
    digest: ResultsDigest,
    players: list[str],
    colors: dict[str, Any],
    caption: str | None = None,
) -> None:
    figure = new_figure(8, 4.8)
    ax = figure.add_subplot()
    moments = digest.round_penalty
    played = np.flatnonzero(moments.n.sum(axis=1) > 0)
    if len(played):
        with quiet_degenerate():  # one match: no spread, the band is simply absent
            half = t_quantile(0.5 + CONFIDENCE / 2, moments.n - 1) * np.sqrt(
                moments.var / moments.n
            )
        column = {name: i for i, name in enumerate(digest.players)}
        for player in players:
            i = column[player]
            rows = played[moments.n[played, i] > 0]
            if len(rows) == 0:
                continue
            mean = moments.mean[rows, i]
            ax.plot(rows, mean, marker="o", markersize=3, color=colors[player], label=player)
            ax.fill_between(
                rows,
                mean - half[rows, i],
                mean + half[rows, i],
                color=colors[player],
                alpha=0.2,
                linewidth=0,
            )
        ax.set_xticks(played, [str(e) for e in digest.engines[played]])
    ax.set_title(f"Mean penalty per round ({CONFIDENCE:.0%} interval bands)")
    ax.set_xlabel("round (engine double), in order of play")
    ax.set_ylabel("mean penalty (pips left)")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**_BESIDE, title="player", fontsize="small")
    save_figure(figure, path, caption)


def _box_statistics(counts: np.ndarray, label: str) -> dict[str, Any]:
    """The box plot's numbers from a count per whole total: quartiles, median, mean and
    whiskers at the 2.5 and 97.5 percentiles (what ``boxplot`` would compute)."""
    values = np.arange(len(counts), dtype=float)
    cumulative = np.cumsum(counts) / counts.sum()

    def percentile(q: float) -> float:
        return float(values[np.searchsorted(cumulative, q / 100)])

    return {
        "label": label,
        "mean": float((values * counts).sum() / counts.sum()),
        "med": percentile(50),
        "q1": percentile(25),
        "q3": percentile(75),
        "whislo": percentile(2.5),
        "whishi": percentile(97.5),
        "fliers": [],
    }


def _totals(
    path: Path,
    digest: ResultsDigest,
    players: list[str],
    colors: dict[str, Any],
    caption: str | None = None,
) -> None:
    figure = new_figure(11, 4.8)
    hist_ax, box_ax = figure.subplots(1, 2, width_ratios=[3, 2])
    column = {name: i for i, name in enumerate(digest.players)}
    shown = [p for p in players if digest.total_counts[column[p]].sum() > 0]
    if shown:
        counts = {p: digest.total_counts[column[p]] for p in shown}
        low = min(int(np.flatnonzero(c)[0]) for c in counts.values())
        high = max(int(np.flatnonzero(c)[-1]) for c in counts.values())
        # Integer-aligned bins (totals are whole pips), at most ~60 of them.
        step = int(max(1, np.ceil((high - low + 1) / 60)))
        edges = np.arange(low, high + step + 1, step) - 0.5
        for player in shown:
            c = counts[player]
            binned = np.add.reduceat(
                np.append(c, np.zeros(high + step + 1 - len(c)))[low:],
                np.arange(0, len(edges) - 1) * step,
            )[: len(edges) - 1]
            density = binned / (binned.sum() * step)
            hist_ax.stairs(density, edges, color=colors[player], linewidth=1.5, label=player)
            mean = (np.arange(len(c)) * c).sum() / c.sum()
            hist_ax.axvline(mean, color=colors[player], linestyle=":", linewidth=1)
        # Whiskers at the 2.5 / 97.5 percentiles and no outlier dots: with millions of
        # matches the dots would be a solid smear and take long to draw.
        boxes = box_ax.bxp(
            [_box_statistics(counts[p], p) for p in shown],
            orientation="horizontal",
            showfliers=False,
            showmeans=True,
            patch_artist=True,
            medianprops={"color": "black"},
            meanprops={"marker": "^", "markerfacecolor": "white", "markeredgecolor": "black"},
        )
        for patch, player in zip(boxes["boxes"], shown, strict=True):
            patch.set_facecolor(colors[player])
            patch.set_alpha(0.5)
        box_ax.invert_yaxis()  # best player on top, as in the table
        hist_ax.legend(**_BESIDE, title="player", fontsize="small")
    hist_ax.set_title("Distribution of match totals (dotted: mean)")
    hist_ax.set_xlabel("match total (pips)")
    hist_ax.set_ylabel("density")
    box_ax.set_title("Quartiles, median and mean (△)")
    box_ax.set_xlabel("match total (pips); whiskers at 2.5 and 97.5 %")
    box_ax.set_ylabel("player")
    for ax in (hist_ax, box_ax):
        ax.grid(alpha=0.3)
    save_figure(figure, path, caption)


def _win_share(
    path: Path, summary: pd.DataFrame, colors: dict[str, Any], caption: str | None = None
) -> None:
    figure = new_figure(8, 4.8)
    ax = figure.add_subplot()
    if len(summary):
        share = 100 * summary["win_rate"].to_numpy(dtype=float)
        errors = np.vstack(
            [
                share - 100 * summary["win_rate_lo"].to_numpy(dtype=float),
                100 * summary["win_rate_hi"].to_numpy(dtype=float) - share,
            ]
        )
        players = summary["player"].astype(str).tolist()
        x = np.arange(len(players))
        ax.bar(
            x,
            share,
            yerr=errors,
            capsize=4,
            color=[colors[p] for p in players],
            alpha=0.8,
            error_kw={"linewidth": 1.2},
        )
        for xi, value in zip(x, share, strict=True):
            ax.annotate(
                f"{value:.1f}%",
                (xi, value),
                textcoords="offset points",
                xytext=(6, 3),
                fontsize="small",
            )
        ax.axhline(
            100 / len(players),
            color="grey",
            linestyle="--",
            linewidth=1,
            label=f"equal share ({100 / len(players):.1f}%)",
        )
        ax.set_xticks(x, players, rotation=20 if len(players) > 5 else 0)
        ax.legend(**_BESIDE, fontsize="small")
    ax.set_title(f"Win share per player ({CONFIDENCE:.0%} intervals; ties split)")
    ax.set_xlabel("player")
    ax.set_ylabel("matches won (%)")
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", alpha=0.3)
    save_figure(figure, path, caption)


def head_to_head_colors() -> Any:
    """The heatmap's colours: red (behind) through white (50 %) to blue (ahead); a cell
    with no share (a player against itself) grey, never the white of 50 %."""
    from matplotlib import colormaps

    return colormaps["RdBu"].with_extremes(bad="0.72")


def _head_to_head(
    path: Path, table: pd.DataFrame, players: list[str], caption: str | None = None
) -> None:
    """Heatmap: % of shared matches the row player finished ahead of the column player."""
    n = len(players)
    index = {p: i for i, p in enumerate(players)}
    grid = np.full((n, n), np.nan)
    for r in table.itertuples(index=False):
        grid[index[str(r.player)], index[str(r.opponent)]] = 100 * r.share
    size = min(3 + 0.6 * n, 14)
    figure = new_figure(size + 1.5, size)
    ax = figure.add_subplot()
    image = ax.imshow(grid, cmap=head_to_head_colors(), vmin=0, vmax=100)
    figure.colorbar(image, ax=ax, label="row ahead of column (%)")
    ax.set_xticks(range(n), players, rotation=45, ha="right", fontsize="small")
    ax.set_yticks(range(n), players, fontsize="small")
    if n <= 12:
        for i in range(n):
            for j in range(n):
                if np.isfinite(grid[i, j]):
                    ax.text(
                        j,
                        i,
                        f"{grid[i, j]:.0f}",
                        ha="center",
                        va="center",
                        fontsize="small",
                        color="white" if abs(grid[i, j] - 50) > 25 else "black",
                    )
    ax.set_title("Head to head (a tie counts 1/2)")
    save_figure(figure, path, caption)


def _ratings(
    path: Path, summary: pd.DataFrame, colors: dict[str, Any], caption: str | None = None
) -> None:
    """Each player's Bradley–Terry rating with its 95 % interval (mexsim/analysis/ratings.py)."""
    rated = summary.sort_values("rating", ascending=True)
    players = rated["player"].astype(str).tolist()
    figure = new_figure(8, 1.2 + 0.45 * len(players))
    ax = figure.add_subplot()
    y = np.arange(len(players))
    error = np.vstack([rated["rating"] - rated["rating_lo"], rated["rating_hi"] - rated["rating"]])
    ax.errorbar(rated["rating"], y, xerr=error, fmt="none", ecolor="grey", capsize=4)
    ax.scatter(rated["rating"], y, c=[colors[p] for p in players], zorder=3)
    ax.set_yticks(y, players)
    ax.set_xlabel("rating, Elo scale: +100 = ahead in 64 % of shared matches (bars: 95 % interval)")
    ax.set_title("Ratings: Bradley-Terry from every pair's results")
    ax.grid(axis="x", alpha=0.3)
    save_figure(figure, path, caption)


def write_plots(
    directory: str | Path, matches: pd.DataFrame, rounds: pd.DataFrame | None
) -> list[Path]:
    """Write the PLOT_FILES of in-memory results tables (``load_results``) into
    ``directory``; see :func:`plot_digest`."""
    from mexsim.analysis.comparison import analyze_digest
    from mexsim.analysis.results_stream import digest_tables

    digest = digest_tables(matches, rounds)
    return plot_digest(directory, digest, analyze_digest(digest, {}))


def plot_digest(
    directory: str | Path,
    digest: ResultsDigest,
    analysis: Analysis,
    caption: str | None = None,
) -> list[Path]:
    """Write the PLOT_FILES into ``directory``, from a results directory's digest
    (mexsim/analysis/results_stream.py) and its analysis, in bounded memory.

    - ``penalty_by_round.png``: mean penalty of each round, rounds in order of play
      labelled by their engine double (12 → 0), one line per player with 95 % t bands.
    - ``totals.png``: distribution of match totals per player (overlaid histograms and
      box plots).
    - ``win_share.png``: each player's share of the matches won with its interval.
    - ``head_to_head.png``: heatmap of the head-to-head shares (mexsim/analysis/head_to_head.py).
    - ``ratings.png``: each player's rating with its 95 % interval
      (mexsim/analysis/ratings.py).
    - ``variants.png``, with rule variants: their round lengths, first-mover edge,
      blocked rounds and skill share side by side (mexsim/analysis/designer.py).

    The directory is created if needed. Returns the paths written, in that order.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    summary = analysis.summary
    players = summary["player"].astype(str).tolist()
    colors = _colors(players)
    paths = [directory / name for name in PLOT_FILES]
    _penalty_by_round(paths[0], digest, players, colors, caption)
    _totals(paths[1], digest, players, colors, caption)
    _win_share(paths[2], summary, colors, caption)
    _head_to_head(paths[3], analysis.head_to_head, players, caption)
    _ratings(paths[4], summary, colors, caption)
    designer = digest.run.designer
    if analysis.variants is not None and len(analysis.variants) > 1 and designer is not None:
        paths.append(directory / VARIANTS_PLOT)
        _variants(paths[-1], analysis.variants, designer.round_turns, caption)
    if analysis.sweeps is not None and len(analysis.sweeps):
        paths.append(directory / SWEEPS_PLOT)
        _sweeps(paths[-1], analysis.sweeps, caption)
    return paths


def _sweeps(path: Path, table: pd.DataFrame, caption: str | None = None) -> None:
    """Each sweep's values against its best value: the difference of totals (the value's
    minus the best's, points a match, positive: worse) with its interval, one panel a
    sweep, the values in config order."""
    sweeps = list(dict.fromkeys(table["sweep"].astype(str)))
    figure = new_figure(8, 1.2 + 0.45 * len(table) + 0.6 * len(sweeps))
    axes = figure.subplots(len(sweeps), 1, squeeze=False)[:, 0]
    for ax, sweep in zip(axes, sweeps, strict=True):
        rows = table[table["sweep"].astype(str) == sweep]
        labels = rows["value"].astype(str).tolist()
        y = np.arange(len(rows))[::-1]
        diff = rows["diff_vs_sweep_best"].to_numpy(float)
        lo = rows["diff_lo"].to_numpy(float)
        hi = rows["diff_hi"].to_numpy(float)
        best = rows["best"].to_numpy(bool)
        with quiet_degenerate():
            err = np.vstack([np.maximum(diff - lo, 0), np.maximum(hi - diff, 0)])
        ax.errorbar(diff, y, xerr=err, fmt="o", color="0.2", capsize=3)
        ax.plot(diff[best], y[best], "*", color="tab:green", markersize=12, label="the best value")
        ax.axvline(0, color="0.6", linewidth=1)
        ax.set_yticks(y, labels)
        method = str(rows["method"].iloc[0]) if "method" in rows else "paired"
        ax.set_title(f"{sweep}: each value against the best ({method}, {CONFIDENCE:.0%} interval)")
        ax.set_xlabel("its mean total minus the best value's (points a match; > 0: worse)")
        ax.grid(alpha=0.3, axis="x")
        ax.legend(**_BESIDE, fontsize="small")
    save_figure(figure, path, caption)


def _variants(
    path: Path, table: pd.DataFrame, round_turns: np.ndarray, caption: str | None = None
) -> None:
    """The rule variants side by side: how long their rounds last (the distribution of
    a round's turns), the first mover's edge, the share of blocked rounds and the skill
    share, with intervals."""
    names = table["variant"].astype(str).tolist()
    colors = _colors(names)  # one colour per variant, as per player elsewhere
    figure = new_figure(16, 4.6)
    lengths, edge, blocked, skill = figure.subplots(1, 4, width_ratios=[1.4, 1, 1, 1])
    turns = np.arange(round_turns.shape[1])
    for i, name in enumerate(names):
        counts = round_turns[i]
        if counts.sum() == 0:
            continue
        lengths.step(turns, counts / counts.sum(), where="mid", color=colors[name], label=name)
    lengths.set_title("Round length")
    lengths.set_xlabel("turns in a round (all seats)")
    lengths.set_ylabel("share of rounds")
    lengths.grid(alpha=0.3)
    if lengths.get_legend_handles_labels()[0]:
        # under the panel, never over its data
        lengths.legend(
            title="variant",
            fontsize="small",
            loc="upper center",
            bbox_to_anchor=(0.5, -0.16),
            ncol=min(len(names), 3),
        )
    y = np.arange(len(names))[::-1]
    for ax, column, title, scale, label in (
        (edge, "first_mover_edge", "First mover's edge", 1.0, "points a round vs the others"),
        (blocked, "blocked_share", "Blocked rounds", 100.0, "% of rounds ended blocked (R15)"),
        (skill, "skill_share", "Skill share", 100.0, "% of a total beyond the deal"),
    ):
        value = table[column].to_numpy(float) * scale
        lo = table[f"{column}_lo"].to_numpy(float) * scale
        hi = table[f"{column}_hi"].to_numpy(float) * scale
        with quiet_degenerate():
            err = np.vstack([np.maximum(value - lo, 0), np.maximum(hi - value, 0)])
        ax.errorbar(value, y, xerr=err, fmt="o", color="0.2", capsize=3)
        ax.set_yticks(y, names if ax is edge else [])
        ax.axvline(0, color="0.6", linewidth=1)
        ax.set_title(f"{title} ({CONFIDENCE:.0%} interval)")
        ax.set_xlabel(label)
        ax.grid(alpha=0.3, axis="x")
    save_figure(figure, path, caption)
