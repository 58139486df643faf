"""What a study leaves in its folder beside study.db: ``tune.csv`` (every trial),
``best.toml`` (the config with the best parameters, ready for ``mexsim run``),
``tune.json`` (the verdict, which ``mexsim report`` prints again) and two plots.
Each file is replaced whole: an interruption leaves the old one or the new one.
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mexsim.tournament.config import Config
from mexsim.tune.names import CSV, HISTORY_PLOT, PARAMS_PLOT, VERDICT
from mexsim.tune.racing import paired_difference
from mexsim.tune.study import Trial, best_trial


def replace_file(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:  # named by the file the user knows, not its temporary
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    finally:
        temporary.unlink(missing_ok=True)


def trials_table(trials: list[Trial], names: list[str]) -> pd.DataFrame:
    """One row per finished trial: its parameters, the matches it played, its mean
    margin, and its paired difference from the best trial on the matches both played."""
    best = best_trial(trials)
    rows = []
    for t in trials:
        if best is None or t is best:
            diff = (0.0, 0.0, 0.0) if t is best else (math.nan,) * 3
        else:
            diff = paired_difference(t.margins, best.margins)
        rows.append(
            {
                "trial": t.index,
                **{name: t.params.get(name, math.nan) for name in names},
                "matches": t.matches,
                "margin": t.value,
                "diff_vs_best": diff[0],
                "diff_lo": diff[1],
                "diff_hi": diff[2],
                "pruned": t.pruned,
                "best": t is best,
            }
        )
    columns = ["trial", *names, "matches", "margin", "diff_vs_best", "diff_lo", "diff_hi"]
    return pd.DataFrame(rows, columns=[*columns, "pruned", "best"])


def write_trials(folder: Path, trials: list[Trial], names: list[str]) -> Path:
    path = folder / CSV
    replace_file(path, trials_table(trials, names).to_csv(index=False, float_format="%.6g"))
    return path


def write_verdict(folder: Path, lines: list[str], facts: dict[str, Any]) -> Path:
    """tune.json: the verdict's lines and numbers (an interval that cannot be had: null)."""
    path = folder / VERDICT
    text = json.dumps(_finite({"verdict": lines, **facts}), indent=2, allow_nan=False)
    replace_file(path, text + "\n")
    return path


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def read_verdict(folder: Path) -> dict[str, Any]:
    return json.loads((folder / VERDICT).read_text(encoding="utf-8"))


def best_config(config: Config, player_index: int, params: dict[str, float], out: str) -> str:
    """The config file with the tuned player's parameters set to ``params``, its
    [tune] table left out, the study's seed (a drawn one too), every strategies folder
    it used as an absolute path (``--strategies`` ones too: the file lives elsewhere)
    and its results going to ``out``."""
    source = Path(config.path)
    data = tomllib.loads(source.read_text(encoding="utf-8").removeprefix("\ufeff"))
    data.pop("tune", None)
    run = data.setdefault("run", {})
    run["out"] = out
    run["seed"] = config.seed
    if config.strategy_dirs:
        run["strategies"] = list(config.strategy_dirs)
    else:
        run.pop("strategies", None)
    table = _player_table(data.get("players", []), player_index)
    table["params"] = {**table.get("params", {}), **{k: _plain(v) for k, v in params.items()}}
    head = (
        f"# {source.name} with the parameters `mexsim tune` found best for player "
        f"{player_index} (see tune.csv and tune.json beside this file)\n"
    )
    return head + toml_text(data)


def _plain(value: float) -> float | int:
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


def _player_table(tables: list[dict[str, Any]], index: int) -> dict[str, Any]:
    """The [[players]] table of player ``index``: a table whose params sweep k values
    stands for k consecutive players."""
    at = 0
    for table in tables:
        sizes = [len(v) for v in table.get("params", {}).values() if isinstance(v, list)]
        count = int(np.prod(sizes)) if sizes else 1
        if at <= index < at + count:
            return table
        at += count
    raise IndexError(index)


_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(name: str) -> str:
    return name if _BARE.match(name) else json.dumps(name)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value))


def toml_text(data: dict[str, Any]) -> str:
    """TOML for a parsed config: top-level tables as [name], arrays of tables as
    [[name]], anything deeper inline."""
    lines: list[str] = []
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict | list) or _plain_list(v)}
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
    for name, value in data.items():
        if name in scalars:
            continue
        if isinstance(value, dict):
            lines += ["", f"[{_key(name)}]"]
            lines += [f"{_key(k)} = {_value(v)}" for k, v in value.items()]
        else:
            for item in value:
                lines += ["", f"[[{_key(name)}]]"]
                lines += [f"{_key(k)} = {_value(v)}" for k, v in item.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def _plain_list(value: Any) -> bool:
    return isinstance(value, list) and not all(isinstance(v, dict) for v in value)


def plot_study(folder: Path, trials: list[Trial], names: list[str], caption: str) -> list[Path]:
    """tune_history.png (each trial's result, pruned ones hollow, the best so far) and
    tune_params.png (each parameter against the result)."""
    from mexsim.analysis.plots import new_figure, save_figure

    values = np.array([t.value for t in trials])
    pruned = np.array([t.pruned for t in trials])
    number = np.arange(len(trials))
    figure = new_figure(8, 4)
    ax = figure.add_subplot()
    ax.scatter(number[~pruned], values[~pruned], color="C0", label="complete")
    ax.scatter(
        number[pruned], values[pruned], facecolors="none", edgecolors="C1", label="stopped early"
    )
    best_so_far = np.minimum.accumulate(np.where(pruned, np.inf, values))
    shown = np.isfinite(best_so_far)
    ax.step(number[shown], best_so_far[shown], where="post", color="C2", label="best so far")
    ax.set_xlabel("trial")
    ax.set_ylabel("points a match against the table (lower is better)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    history = folder / HISTORY_PLOT
    save_figure(figure, history, caption)

    figure = new_figure(4 * len(names), 3.6)
    axes = figure.subplots(1, len(names), squeeze=False)[0]
    for ax, name in zip(axes, names, strict=True):
        x = np.array([t.params[name] for t in trials], dtype=float)
        ax.scatter(x[~pruned], values[~pruned], color="C0")
        ax.scatter(x[pruned], values[pruned], facecolors="none", edgecolors="C1")
        ax.set_xlabel(name)
    axes[0].set_ylabel("points a match (lower is better)")
    params = folder / PARAMS_PLOT
    save_figure(figure, params, caption)
    return [history, params]
