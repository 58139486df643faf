"""A config's ``[tune]`` table, checked: which player is tuned, each parameter's range,
the trials' size and the study's budget.

Checked in two steps, as the rest of a config is: the table's shape before any strategy
compiles (``read_tune``, a mistyped key should not wait for a compile), then against
the tuned player's strategy once it is loaded (``fit_to_player``: the parameters it has,
and the bounds it declares).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mexsim.errors import ConfigError
from mexsim.validate import (
    need_bool,
    need_choice,
    need_int,
    need_str,
    path_problem,
    show,
    suggest,
)

TUNE_KEYS = (
    "player",
    "trials",
    "matches",
    "total_matches",
    "minutes",
    "sampler",
    "prune",
    "validate",
    "out",
    "params",
)
RANGE_KEYS = ("low", "high", "log", "step", "choices")
SAMPLERS = ("tpe", "cmaes", "random")
DEFAULT_TRIALS = 40  # when no budget is given
DEFAULT_MATCHES = 2000
MOST_MATCHES = 10_000_000
MOST_TRIALS = 100_000
MOST_STEPS = 1_000_000_000  # a range's steps: Optuna counts them in decimals


@dataclass(frozen=True)
class ParamRange:
    """One tuned parameter: a float range (linear, or ``log``), an integer range
    (``step`` apart), or a list of ``choices``."""

    name: str
    kind: str  # "float", "int" or "choice"
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    step: float | None = None
    choices: tuple[float, ...] = ()
    allowed: tuple[float, float] = (-math.inf, math.inf)  # the strategy's own bounds

    def describe(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(f"{c:g}" for c in self.choices)
        scale = ", log" if self.log else ""
        step = f", step {self.step:g}" if self.step else ""
        return f"{self.kind} {self.low:g}..{self.high:g}{scale}{step}"

    def at_edge(self, value: float) -> str | None:
        """ "low" or "high" when ``value`` lies at (within 5 % of the range from) an end
        of a numeric range; choices have no edge."""
        if self.kind == "choice" or self.high <= self.low:
            return None
        if self.log:
            lo, hi, v = math.log(self.low), math.log(self.high), math.log(max(value, self.low))
        else:
            lo, hi, v = self.low, self.high, value
        margin = 0.05 * (hi - lo)
        if v <= lo + margin:
            return "low"
        if v >= hi - margin:
            return "high"
        return None


@dataclass(frozen=True)
class TuneSettings:
    player: str
    params: tuple[ParamRange, ...]
    trials: int | None
    matches: int
    total_matches: int | None
    minutes: float | None
    sampler: str
    prune: bool
    validate: int
    out: str | None

    def identity(self) -> dict[str, Any]:
        """What makes two studies the same study: a changed range, player, trial size or
        sampler starts a different one (the budget may grow: the same study goes on)."""
        return {
            "player": self.player,
            "params": [
                [p.name, p.kind, p.low, p.high, p.log, p.step, list(p.choices)] for p in self.params
            ],
            "matches": self.matches,
            "sampler": self.sampler,
            "prune": self.prune,
        }


def read_tune(where: str, table: Any, default_validate: int | None = None) -> TuneSettings:
    """The ``[tune]`` table's shape and values (``where``: the config file)."""
    at = f"{where} [tune]"
    if table is None:
        raise ConfigError(
            f"{where}: no [tune] table: add one naming the player to tune and its "
            'parameters\' ranges, e.g. [tune] player = "counter" and [tune.params] '
            "starve = [0.0, 200.0] (docs/tuning.md)"
        )
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: 'tune' must be a table ([tune]), got {show(table)}")
    for key in table:
        if key not in TUNE_KEYS:
            raise ConfigError(
                f"{at}: unknown key '{key}' (allowed: {', '.join(TUNE_KEYS)})"
                + suggest(key, TUNE_KEYS)
            )
    if "player" not in table:
        raise ConfigError(f"{at}: 'player' is missing: the name of the [[players]] entry to tune")
    player = need_str(at, "player", table["player"])
    matches = need_int(at, "matches", table.get("matches", DEFAULT_MATCHES), 10, MOST_MATCHES)
    trials = table.get("trials")
    total = table.get("total_matches")
    minutes = table.get("minutes")
    if trials is not None:
        trials = need_int(at, "trials", trials, 1, MOST_TRIALS)
    if total is not None:
        total = need_int(at, "total_matches", total, 1, None)
    if minutes is not None:
        if isinstance(minutes, bool) or not isinstance(minutes, int | float):
            raise ConfigError(f"{at}: 'minutes' must be a number, got {show(minutes)}")
        if not (math.isfinite(minutes) and minutes > 0):
            raise ConfigError(f"{at}: 'minutes' = {show(minutes)} must be a positive number")
        minutes = float(minutes)
    if trials is None and total is None and minutes is None:
        trials = DEFAULT_TRIALS
    sampler = need_choice(at, "sampler", table.get("sampler", "tpe"), SAMPLERS)
    prune = need_bool(at, "prune", table.get("prune", True))
    validate = need_int(
        at, "validate", table.get("validate", default_validate or 5 * matches), 0, MOST_MATCHES
    )
    out = table.get("out")
    if out is not None:
        out = need_str(at, "out", out)
        problem = path_problem(out)
        if problem is not None:
            raise ConfigError(f"{at}: 'out' {problem}")
    params = _ranges(at, table.get("params"))
    if sampler == "cmaes" and any(p.kind == "choice" for p in params):
        raise ConfigError(
            f'{at}: sampler = "cmaes" searches numeric ranges only, and '
            f"{next(p.name for p in params if p.kind == 'choice')!r} is a list of choices "
            '(allowed: sampler = "tpe" or "random", or a range for it)'
        )
    return TuneSettings(
        player, params, trials, matches, total, minutes, sampler, prune, validate, out
    )


def _ranges(at: str, table: Any) -> tuple[ParamRange, ...]:
    if not isinstance(table, dict) or not table:
        raise ConfigError(
            f"{at}: 'params' must be a table of at least one parameter's range "
            f"([tune.params] starve = [0.0, 200.0]), got {show(table)}"
        )
    return tuple(_range(f"{at} params.{name}", name, spec) for name, spec in table.items())


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _range(at: str, name: str, spec: Any) -> ParamRange:
    form = (
        "[low, high] (floats: a float range; integers: an integer range), or a table "
        "{ low = .., high = .., log = true, step = .. }, or { choices = [..] }"
    )
    if isinstance(spec, list) and len(spec) == 2:
        spec = {"low": spec[0], "high": spec[1]}
    if not isinstance(spec, dict):
        raise ConfigError(f"{at}: must be {form}, got {show(spec)}")
    for key in spec:
        if key not in RANGE_KEYS:
            raise ConfigError(
                f"{at}: unknown key '{key}' (allowed: {', '.join(RANGE_KEYS)})"
                + suggest(key, RANGE_KEYS)
            )
    if "choices" in spec:
        if set(spec) != {"choices"}:
            raise ConfigError(f"{at}: 'choices' goes alone (no low, high, log or step beside it)")
        choices = spec["choices"]
        if (
            not isinstance(choices, list)
            or len(choices) < 2
            or not all(_number(c) for c in choices)
            or len({float(c) for c in choices}) < len(choices)
        ):
            raise ConfigError(
                f"{at}: 'choices' must list two or more distinct numbers, got {show(choices)}"
            )
        return ParamRange(name, "choice", choices=tuple(float(c) for c in choices))
    if "low" not in spec or "high" not in spec:
        raise ConfigError(f"{at}: must be {form}, got {show(spec)}")
    low, high = spec["low"], spec["high"]
    if not (_number(low) and _number(high)):
        raise ConfigError(
            f"{at}: low and high must be finite numbers, got {show(low)}, {show(high)}"
        )
    if not low < high:
        raise ConfigError(f"{at}: low ({low:g}) must be below high ({high:g})")
    log = need_bool(at, "log", spec.get("log", False))
    kind = "int" if isinstance(low, int) and isinstance(high, int) else "float"
    step = spec.get("step")
    if step is not None:
        if not _number(step) or step <= 0 or step > high - low:
            raise ConfigError(
                f"{at}: 'step' = {show(step)} must be a positive number no larger than "
                f"high - low ({high - low:g})"
            )
        if kind == "int" and not isinstance(step, int):
            raise ConfigError(
                f"{at}: 'step' of an integer range must be an integer, got {show(step)}"
            )
        if log:
            raise ConfigError(f"{at}: 'step' and 'log' cannot go together (Optuna's rule)")
        steps = (high - low) / step
        if steps > MOST_STEPS:
            raise ConfigError(
                f"{at}: 'step' = {step:g} makes {steps:.3g} steps of the range (allowed: at "
                f"most {MOST_STEPS:,}; leave 'step' out for a continuous range)"
            )
        if abs(steps - round(steps)) > 1e-9 * max(1.0, steps):
            raise ConfigError(
                f"{at}: 'step' = {step:g} does not divide high - low ({high - low:g}): the "
                f"range would end at {low + math.floor(steps) * step:g}; make high "
                f"{low + math.floor(steps) * step:g} or {low + math.ceil(steps) * step:g}"
            )
        step = float(step)
    if log and low <= 0:
        raise ConfigError(f"{at}: a log range needs low > 0, got {low:g}")
    return ParamRange(name, kind, float(low), float(high), log, step)


def fit_to_player(
    where: str,
    settings: TuneSettings,
    players: Mapping[str, str],
    defaults: Mapping[str, float],
    bounds: Mapping[str, tuple[float, float]],
    named_param: str | None,
) -> TuneSettings:
    """The settings against the loaded config: ``player`` is one of ``players`` (name ->
    strategy) and every range lies within its strategy's declared bounds."""
    at = f"{where} [tune]"
    if settings.player not in players:
        raise ConfigError(
            f"{at}: 'player' = {settings.player!r} names no player (allowed: "
            f"{', '.join(repr(p) for p in players)})" + suggest(settings.player, players)
        )
    strategy = players[settings.player]
    for p in settings.params:
        if p.name not in defaults or p.name == named_param:
            numeric = [k for k in defaults if k != named_param]
            allowed = ", ".join(numeric) if numeric else "none: it has no parameters"
            raise ConfigError(
                f"{at} params.{p.name}: strategy {strategy!r} has no numeric parameter "
                f"'{p.name}' (allowed: {allowed})" + suggest(p.name, numeric)
            )
        lowest, highest = bounds.get(p.name, (-math.inf, math.inf))
        values = p.choices if p.kind == "choice" else (p.low, p.high)
        for v in values:
            if not lowest <= v <= highest:
                raise ConfigError(
                    f"{at} params.{p.name}: {v:g} is outside what strategy {strategy!r} "
                    f"allows ({lowest:g}..{highest:g}; default {defaults[p.name]:g})"
                )
    fitted = tuple(replace(p, allowed=bounds.get(p.name, p.allowed)) for p in settings.params)
    return replace(settings, params=fitted)
