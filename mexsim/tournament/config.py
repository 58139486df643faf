"""A run configuration (docs/interface.md, "Config (TOML)") validated into frozen dataclasses.

Every problem raises :class:`~mexsim.errors.ConfigError` with one line naming the file,
the section or key, and the allowed values.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import stat
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mexsim.errors import ConfigError
from mexsim.game.rules import (
    MAX_PLAYERS,
    MAX_STRATEGIES,
    MIN_PLAYERS,
    RULE_KEYS,
    Rules,
)
from mexsim.strategy.registry import (
    StrategyInfo,
    available_strategies,
    broken_strategies,
    refuse_missing_folders,
    strategy_names,
)
from mexsim.tournament.variants import BASELINE, Variant, rule_variants
from mexsim.validate import (
    need_bool,
    need_int,
    need_str,
    out_problem,
    path_problem,
    show,
    suggest,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from mexsim.tournament.schedule import Schedule

DEFAULT_MATCHES = 1000
# match indices travel as int64 through the engine (and a run of more would never end)
MAX_MATCHES = 2**62
DEFAULT_SEED = 0
MAX_SEED = 2**64 - 1
# `seed = "random"`: drawn from the operating system as the run starts, for a
# tournament whose strategies' authors must not know it (docs/rules.md, Randomness)
RANDOM_SEED = "random"
MAX_NAME = 64  # characters in a player's name: it heads table columns and plot legends
MAX_POOL = 100  # players in one run (pools and sweeps); a table seats at most MAX_PLAYERS
SECTIONS = ("run", "rules", "seating", "tournament", "analysis", "players", "variants", "tune")
RUN_KEYS = ("matches", "seed", "out", "strategies", "cluster", "decisions")
SEATING_KEYS = ("rotate",)
TOURNAMENT_KEYS = ("duplicate", "table_size")
ANALYSIS_KEYS = ("luck",)
PLAYER_KEYS = ("name", "strategy", "params", "params_file")
# a parameter's value: a number, or the name of a strategy where a built-in's parameter
# names one (search's rollout; StrategyInfo.naming)
Param = float | str
_SECTION_KEYS = {
    "run": RUN_KEYS,
    "rules": RULE_KEYS,
    "seating": SEATING_KEYS,
    "tournament": TOURNAMENT_KEYS,
    "analysis": ANALYSIS_KEYS,
}


@dataclass(frozen=True)
class PlayerSpec:
    """One ``[[players]]`` table: a unique name, a strategy and its full parameter set."""

    name: str
    strategy: str
    params: dict[str, Param]
    sweep: str = ""  # a parameter sweep's name for all its players ("" if not swept)
    swept: tuple[str, ...] = ()  # the parameters the sweep varies


@dataclass(frozen=True)
class Config:
    """A validated config file; ``players[i]`` is player i (who sits where in each
    match: seat_players). ``rules.players`` is the table size; more players than that
    make a pool."""

    path: str
    matches: int
    seed: int
    out: str
    rules: Rules
    rotate: bool
    players: tuple[PlayerSpec, ...]
    strategy_dirs: tuple[str, ...] = ()  # extra strategies folders (absolute paths)
    duplicate: bool = False  # [tournament] duplicate: each deal once per seat rotation
    requested_matches: int | None = None  # before rounding up to whole deals, if it did
    cluster: str | None = None  # [run] cluster: a Dask scheduler address or local:N
    luck: bool = False  # [analysis] luck: luck-adjusted totals (docs/luck.md)
    seed_drawn: bool = False  # seed = "random": ``seed`` was drawn as the config loaded
    # rule variants (mexsim/tournament/variants.py), the baseline first; none: ``rules``
    variants: tuple[Variant, ...] = ()
    # [run] decisions: the players whose decisions decisions.parquet records (none: off)
    decisions: tuple[str, ...] = ()

    @property
    def variant_names(self) -> tuple[str, ...]:
        """The variants' names; the one of a run without variants: ``base``."""
        return tuple(v.name for v in self.variants) or (BASELINE,)

    def played_at(self, first: int) -> tuple[int, int]:
        """(variant, match) of a run's block that starts at ``first``: a variant run
        numbers its blocks' matches variant by variant, variant v's match m at
        v × matches + m (``run_blocks``)."""
        return divmod(first, self.matches) if self.variants else (0, first)

    def variant_rules(self, variant: int) -> Rules:
        """The rules variant ``variant`` plays (``rules`` without variants)."""
        return self.variants[variant].rules if self.variants else self.rules

    @property
    def table_size(self) -> int:
        return self.rules.players

    @property
    def pool(self) -> bool:
        return len(self.players) > self.rules.players

    @property
    def deals(self) -> int:
        """Distinct deals played: matches / table size with duplicate deals."""
        return self.matches // self.table_size if self.duplicate else self.matches


def load_config(
    path: str | Path,
    strategy_dirs: Sequence[str | Path] = (),
    before_strategies: Callable[[tuple[str, ...], list[dict[str, Any]]], None] | None = None,
) -> Config:
    """Read and validate a TOML config file.

    Strategies come from the built-ins, the working directory's ``strategies/``, the
    folders named by ``[run] strategies`` (relative to the config file) and
    ``strategy_dirs`` (``--strategies DIR``). Everything that can be checked without
    them is checked first: loading them compiles them, minutes on a cold cache, and a
    mistyped key should not wait for that. ``before_strategies(folders, players)``
    is called just before they are loaded, with the [[players]] tables as read (the CLI
    compiles them there, in parallel)."""
    data = read_toml(Path(path))
    where = str(path)
    for key in data:
        if key not in SECTIONS:
            home = next((f"[{sec}]" for sec, keys in _SECTION_KEYS.items() if key in keys), None)
            hint = f"; '{key}' belongs in {home}" if home else suggest(key, SECTIONS)
            raise ConfigError(
                f"{where}: unknown section '{key}' (allowed: [run], [rules], [seating], "
                f"[tournament], [analysis], [[players]], [[variants]], [tune]){hint}"
            )
    run = _table(where, data, "run", "[run]")
    rules_table = _table(where, data, "rules", "[rules]")
    seating = _table(where, data, "seating", "[seating]")
    tournament = _table(where, data, "tournament", "[tournament]")
    analysis = _table(where, data, "analysis", "[analysis]")

    run_where = f"{where} [run]"
    _check_keys(run_where, run, RUN_KEYS)
    matches = need_int(run_where, "matches", run.get("matches", DEFAULT_MATCHES), 1, MAX_MATCHES)
    seed, seed_drawn = _seed(run_where, run.get("seed", DEFAULT_SEED))
    out = _need_out(run_where, "out", run.get("out", f"results/{Path(path).stem}"))
    cluster = run.get("cluster")
    if cluster is not None:
        need_str(run_where, "cluster", cluster)

    seating_where = f"{where} [seating]"
    _check_keys(seating_where, seating, SEATING_KEYS)
    rotate = need_bool(seating_where, "rotate", seating.get("rotate", True))

    dirs = _strategy_dirs(run_where, Path(path).parent, run.get("strategies", []))
    flag_dirs = tuple(Path(d).expanduser().resolve() for d in strategy_dirs)
    refuse_missing_folders(flag_dirs)  # --strategies: before a cold cache compiles
    dirs += tuple(str(d) for d in flag_dirs)

    tournament_where = f"{where} [tournament]"
    _check_keys(tournament_where, tournament, TOURNAMENT_KEYS)
    duplicate = need_bool(tournament_where, "duplicate", tournament.get("duplicate", False))

    analysis_where = f"{where} [analysis]"
    _check_keys(analysis_where, analysis, ANALYSIS_KEYS)
    luck = need_bool(analysis_where, "luck", analysis.get("luck", False))

    rules_where = f"{where} [rules]"
    _check_keys(rules_where, rules_table, RULE_KEYS)
    tables = _player_tables(where, data.get("players"))

    if before_strategies is not None:
        before_strategies(dirs, tables)
    players = _players(where, tables, dirs)
    table_size = _table_size(tournament_where, tournament.get("table_size"), len(players))
    if not rotate and (duplicate or table_size < len(players)):
        what = (
            "duplicate = true"
            if duplicate
            else f"a pool ({len(players)} players, tables of {table_size})"
        )
        raise ConfigError(
            f"{seating_where}: 'rotate' = false cannot be combined with {what}, which "
            f"rotates every table through all seats (allowed: rotate = true)"
        )

    rules, variants = rule_variants(where, rules_table, data.get("variants"), table_size)
    if variants and luck:
        raise ConfigError(
            f"{analysis_where}: 'luck' = true cannot be combined with rule variants (the "
            "luck model is fitted to one set of rules; allowed: luck = false, or one "
            "variant's rules in [rules])"
        )
    whole = _whole_deals(matches, table_size, duplicate)
    decisions = _decisions(run_where, run.get("decisions", False), [p.name for p in players])
    return Config(
        path=where,
        matches=whole,
        seed=seed,
        out=out,
        rules=rules,
        rotate=rotate,
        players=players,
        strategy_dirs=dirs,
        duplicate=duplicate,
        requested_matches=matches if whole != matches else None,
        cluster=cluster,
        luck=luck,
        seed_drawn=seed_drawn,
        variants=variants,
        decisions=decisions,
    )


def _decisions(where: str, value: Any, names: list[str]) -> tuple[str, ...]:
    """[run] decisions: true (every player), false, or a list of player names."""
    if isinstance(value, bool):
        return tuple(names) if value else ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f"{where}: 'decisions' must be true, false or a list of player names "
            f'(e.g. decisions = ["{names[0]}"]), got {value!r}'
        )
    for name in value:
        if name not in names:
            raise ConfigError(
                f"{where}: 'decisions' names '{name}', not a player of this config "
                f"(players: {', '.join(names)}){suggest(name, names)}"
            )
    return tuple(n for n in names if n in value)


def _seed(where: str, value: Any) -> tuple[int, bool]:
    """The run's seed, and whether it was drawn (``seed = "random"``)."""
    if value == RANDOM_SEED:
        import secrets

        return secrets.randbits(64), True
    if isinstance(value, str):
        raise ConfigError(
            f"{where}: 'seed' = {show(value)} is not allowed (an integer 0..{MAX_SEED}, or "
            f'"{RANDOM_SEED}": drawn from the operating system and recorded in run.json)'
        )
    return need_int(where, "seed", value, 0, MAX_SEED), False


def check_overrides(
    matches: int | None = None, seed: int | None = None, out: str | None = None
) -> None:
    """The command line's flags, checked before the config is read (reading it may
    compile strategies: a mistyped flag should not wait for that)."""
    if matches is not None:
        need_int("command line", "--matches", matches, 1, MAX_MATCHES)
    if seed is not None:
        need_int("command line", "--seed", seed, 0, MAX_SEED)
    if out is not None:
        _need_out("command line", "--out", out)


def with_overrides(
    config: Config,
    matches: int | None = None,
    seed: int | None = None,
    out: str | None = None,
    luck: bool | None = None,
    decisions: bool | None = None,
) -> Config:
    """Apply command-line flags (``--matches``, ``--seed``, ``--out``, ``--luck``,
    ``--decisions``: every player's) over the config."""
    check_overrides(matches, seed, out)
    changes: dict[str, Any] = {}
    if luck is not None:
        changes["luck"] = luck
    if decisions:
        changes["decisions"] = tuple(p.name for p in config.players)
    if matches is not None:
        changes["matches"] = _whole_deals(matches, config.table_size, config.duplicate)
        changes["requested_matches"] = matches if changes["matches"] != matches else None
    if seed is not None:
        changes["seed"] = seed
        changes["seed_drawn"] = False
    if out is not None:
        changes["out"] = out
    return replace(config, **changes)


def seat_players(config: Config, match: int) -> tuple[int, ...]:
    """Which player index sits in each seat of match ``match`` (mexsim/tournament/schedule.py).

    With ``rotate`` and no pool, match k seats player i at seat (i + k) mod P, so seat s
    holds player (s - k) mod P; every player sits in every seat once in any P
    consecutive matches. Without it, seat s holds player s.
    """
    return config_schedule(config).seats_of(match)


def config_schedule(config: Config) -> Schedule:
    """The seating and deals of every match of ``config``."""
    return _schedule(
        len(config.players), config.table_size, config.seed, config.rotate, config.duplicate
    )


@functools.lru_cache(maxsize=8)
def _schedule(players: int, table_size: int, seed: int, rotate: bool, duplicate: bool) -> Schedule:
    from mexsim.tournament.schedule import Schedule  # numpy: not for --help

    return Schedule.build(players, table_size, seed, rotate, duplicate)


def _whole_deals(matches: int, table_size: int, duplicate: bool) -> int:
    """With duplicate deals every deal is played once per seat rotation: round the
    match count up to whole deals (the run says so when it does)."""
    return -(-matches // table_size) * table_size if duplicate else matches


def _table_size(where: str, value: Any, players: int) -> int:
    most = min(players, MAX_PLAYERS)
    if value is None:
        if players > MAX_PLAYERS:
            raise ConfigError(
                f"{where}: {players} players (parameter sweeps expanded) but a table seats "
                f"at most {MAX_PLAYERS} (R2): set 'table_size' (allowed: "
                f"{MIN_PLAYERS}..{MAX_PLAYERS}) to play them as a pool"
            )
        return players
    size = need_int(where, "table_size", value, MIN_PLAYERS, most)
    from mexsim.tournament.schedule import MAX_TABLES, table_count  # numpy: not for --help

    if table_count(players, size) > MAX_TABLES:
        raise ConfigError(
            f"{where}: a pool of {players} players at tables of {size} has "
            f"{table_count(players, size):,} distinct tables, too many for a balanced "
            f"schedule (allowed: at most {MAX_TABLES:,}; use fewer players or a table "
            f"size nearer 2 or {players})"
        )
    return size


# --- reading --------------------------------------------------------------------------


MAX_CONFIG_BYTES = 16 << 20  # a config (or params file) is text of a few kB


def read_toml(path: Path) -> dict[str, Any]:
    try:
        # a FIFO or a device (/dev/zero) is never read: it would block, or never end (a
        # folder is said by the reading below)
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise ConfigError(f"{path}: not a regular file (a config is a TOML text file)")
        with path.open("rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc.strerror})") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{path}: larger than {MAX_CONFIG_BYTES >> 20} MiB: not a config (a TOML text file)"
        )
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")  # editors may add a BOM
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a UTF-8 text file (TOML must be UTF-8)") from None
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ConfigError(
            f"{path}: arrays or tables nested too deeply to read (allowed: a few hundred levels)"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        if "at end of document" in message:
            message = message.replace(
                "at end of document", f"at end of document, line {text.count(chr(10)) + 1}"
            )
        raise ConfigError(f"{path}: TOML syntax error: {_one_line(message)}") from None


# --- players --------------------------------------------------------------------------


def _strategy_dirs(where: str, base: Path, value: Any) -> tuple[str, ...]:
    folders = [value] if isinstance(value, str) else value
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise ConfigError(
            f"{where}: 'strategies' must be a folder or a list of folders, got {show(value)}"
        )
    for folder in folders:
        problem = path_problem(folder)
        if problem:
            raise ConfigError(f"{where}: 'strategies' = {show(folder[:80])} {problem}")
    try:
        resolved = tuple(str((base / Path(f).expanduser()).resolve()) for f in folders)
        missing = next((f for f in resolved if not Path(f).is_dir()), None)
    except (OSError, RuntimeError) as exc:
        raise ConfigError(f"{where}: 'strategies' folder cannot be used ({exc})") from None
    if missing:
        what = "is a file, not a folder" if Path(missing).exists() else "does not exist"
        raise ConfigError(f"{where}: 'strategies' folder {missing} {what}")
    return resolved


def _player_tables(where: str, tables: Any) -> list[dict[str, Any]]:
    """The [[players]] tables, each checked for what needs no strategy: its keys."""
    if tables is None:
        tables = []
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(
            f"{where}: 'players' must be an array of tables, one [[players]] table per "
            f"player (allowed: {MIN_PLAYERS}..{MAX_POOL} of them)"
        )
    for index, table in enumerate(tables):
        _check_keys(f"{where} [[players]] #{index + 1}", table, PLAYER_KEYS)
    return tables


def _with_params_file(where: str, folder: Path, value: Any, given: Any) -> Any:
    """``params`` with the values of the TOML file ``params_file`` names (its [params]
    table; relative to the config's folder) added: the values are the player's, and so
    the run's identity, not the file's name. A parameter given in both is refused."""
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: 'params_file' must be a file's path, got {value!r}")
    path = (folder / Path(value).expanduser()).resolve()
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise ConfigError(f"{where}: 'params_file' {path} {what}")
    data = read_toml(path)
    table = data.get("params")
    if not isinstance(table, dict) or set(data) != {"params"}:
        raise ConfigError(
            f"{path}: a params file holds one [params] table of name = value "
            f"(found: {', '.join(sorted(data)) or 'nothing'})"
        )
    if not isinstance(given, dict):
        return given  # _params says what is wrong with it
    both = sorted(set(given) & set(table))
    if both:
        raise ConfigError(f"{where}: '{both[0]}' is given both in 'params' and in {path}: keep one")
    return {**table, **given}


def _players(
    where: str, tables: list[dict[str, Any]], dirs: tuple[str, ...]
) -> tuple[PlayerSpec, ...]:
    # only the strategies the tables name are imported; the others are named, unread
    strategies = available_strategies(
        dirs, {t["strategy"] for t in tables if isinstance(t.get("strategy"), str)}
    )
    every = strategy_names(dirs)
    explicit: dict[str, int] = {}
    parsed: list[tuple[str | None, str, dict[str, Param | list[Param]]]] = []
    for index, table in enumerate(tables):
        player_where = f"{where} [[players]] #{index + 1}"
        if "strategy" not in table:
            raise ConfigError(f"{player_where}: missing key 'strategy' (allowed: {_names(every)})")
        strategy = table["strategy"]
        if isinstance(strategy, str) and strategy not in strategies:
            broken = broken_strategies(dirs, [strategy]).get(strategy)
            if broken is not None:  # its file is set aside: now that it is needed, say why
                raise ConfigError(
                    f"{player_where}: strategy {strategy!r} cannot be loaded: {broken}"
                )
        if not isinstance(strategy, str) or strategy not in strategies:
            raise ConfigError(
                f"{player_where}: 'strategy' = {strategy!r} is not a known strategy "
                f"(allowed: {_names(every)}){suggest(strategy, every)}"
            )
        name = table.get("name")
        if name is not None:
            name = _need_name(player_where, name)
            if name in explicit:
                raise ConfigError(
                    f"{player_where}: duplicate 'name' = {name!r} (already used by "
                    f"[[players]] #{explicit[name] + 1}; names must be unique)"
                )
            explicit[name] = index
        given = table.get("params", {})
        if "params_file" in table:
            given = _with_params_file(player_where, Path(where).parent, table["params_file"], given)
        params = _params(player_where, strategies[strategy], given, dirs)
        parsed.append((name, strategy, params))

    # the players the sweeps will give, counted before any is made: 20 values for each
    # of 8 parameters are 20**8 combinations (1.4 GB after 40 s)
    count = sum(
        math.prod(len(v) for v in params.values() if isinstance(v, list)) for _, _, params in parsed
    )
    if count > MAX_POOL:
        raise ConfigError(
            f"{where}: 'players' has {len(tables)} [[players]] tables giving {count:,} "
            f"players (allowed: {MIN_PLAYERS}..{MAX_POOL} players, parameter sweeps "
            f"expanded; a table seats {MIN_PLAYERS}..{MAX_PLAYERS}, R2)"
        )
    taken = set(explicit)
    players = []
    for name, strategy, params in parsed:
        swept = tuple(key for key, value in params.items() if isinstance(value, list))
        # a strategy the player's parameters name is in its default name, as a sweep's
        # values are: search[rollout=mine] (a name that is a number is not a strategy)
        naming = [
            f"{key}={value}"
            for key, value in params.items()
            if name is None
            and isinstance(value, str)
            and value not in strategies[strategy].named_values
        ]
        if name is None:
            label = f"[{','.join(naming)}]" if naming and not swept else ""
            name = _unique(f"{strategy}{label}", taken)
            taken.add(name)
        if not swept:
            players.append(
                PlayerSpec(
                    name=name, strategy=strategy, params=_numbered(strategies[strategy], params)
                )
            )
            continue
        # A parameter sweep: one player per combination of the listed values, named by
        # them, e.g. longest_train[pip_weight=0.5].
        for values in itertools.product(*(cast(list[Param], params[key]) for key in swept)):
            label = ",".join(
                naming
                + [
                    f"{key}={v if isinstance(v, str) else show(v)}"
                    for key, v in zip(swept, values, strict=True)
                ]
            )
            variant = _unique(f"{name}[{label}]", taken)
            taken.add(variant)
            chosen = _numbered(strategies[strategy], params | dict(zip(swept, values, strict=True)))
            players.append(
                PlayerSpec(name=variant, strategy=strategy, params=chosen, sweep=name, swept=swept)
            )
    if not MIN_PLAYERS <= len(players) <= MAX_POOL:
        raise ConfigError(
            f"{where}: 'players' has {len(tables)} [[players]] tables giving {len(players)} "
            f"players (allowed: {MIN_PLAYERS}..{MAX_POOL} players, parameter sweeps "
            f"expanded; a table seats {MIN_PLAYERS}..{MAX_PLAYERS}, R2)"
        )
    # a strategy naming another (search rolling out with "mine") is a decide of its own
    distinct = {(p.strategy, *sorted(named_strategies([p]))) for p in players}
    if len(distinct) > MAX_STRATEGIES:
        raise ConfigError(
            f"{where}: 'players' use {len(distinct)} different strategies (allowed: at most "
            f"{MAX_STRATEGIES} in one run)"
        )
    return tuple(players)


def _unique(base: str, taken: set[str]) -> str:
    """``base``, else the first free ``base-2``, ``base-3``, …"""
    if base not in taken:
        return base
    suffix = 2
    while f"{base}-{suffix}" in taken:
        suffix += 1
    return f"{base}-{suffix}"


def _params(
    where: str, info: StrategyInfo, given: Any, dirs: tuple[str, ...]
) -> dict[str, Param | list[Param]]:
    """The full parameter set; a list of numbers is a sweep over those values. Every
    value is finite and within the bounds the strategy declares: a strategy cannot be
    asked to play with weights it was never meant to (an infinite one can hang it).
    The one parameter a built-in lets name a strategy (search's rollout) also takes a
    strategy's name: a name that is one of its numbers becomes that number, another
    stays a name (StrategyInfo.naming)."""
    strategy, defaults = info.name, info.params
    if not isinstance(given, dict):
        raise ConfigError(
            f"{where}: 'params' must be a table of numbers, got {show(given)} "
            f"(allowed keys: {_param_names(strategy, defaults)})"
        )
    params: dict[str, Param | list[Param]] = {key: float(value) for key, value in defaults.items()}
    for key, value in given.items():
        if key not in defaults:
            raise ConfigError(
                f"{where}: unknown parameter 'params.{key}' for strategy {strategy!r} "
                f"(allowed: {_param_names(strategy, defaults)}){suggest(key, defaults)}"
            )
        values = value if isinstance(value, list) else [value]
        if key == info.named_param:
            values = [_named(where, info, key, v, dirs) for v in values]
        naming = key == info.named_param
        kinds = int | float | str if naming else int | float
        if not values or any(isinstance(v, bool) or not isinstance(v, kinds) for v in values):
            what = "a number, a strategy's name" if naming else "a number"
            raise ConfigError(
                f"{where}: 'params.{key}' must be {what} or a non-empty list of "
                f"{'them' if naming else 'numbers'} (a sweep), got {show(value)} "
                f"(default: {defaults[key]:g})"
            )
        if naming:  # its numbers are strategies too: one of them, nothing between
            for v in values:
                if not isinstance(v, str) and v not in info.named_values.values():
                    raise ConfigError(
                        f"{where}: 'params.{key}' = {show(v)} is none of its numbers "
                        f"(allowed: {_named_numbers(info)} or another strategy's name)"
                    )
        lowest, highest = info.bounds.get(key, (-math.inf, math.inf))
        for v in values:
            if isinstance(v, str):  # a strategy's name, checked by _named
                continue
            if not math.isfinite(v) or not lowest <= v <= highest:
                allowed = f"{lowest:g}..{highest:g}" if key in info.bounds else "a finite number"
                what = "out of range" if math.isfinite(v) else "not a finite number"
                raise ConfigError(
                    f"{where}: 'params.{key}' = {show(v)} is {what} for strategy "
                    f"{strategy!r} (allowed: {allowed}; default: {defaults[key]:g})"
                )
        distinct = {info.named_values.get(v, v) if isinstance(v, str) else float(v) for v in values}
        if len(distinct) < len(values):
            raise ConfigError(
                f"{where}: 'params.{key}' = {show(value)} lists a value twice (a sweep "
                "needs distinct values)"
            )
        # a sweep's values as given: its players are named by them (pip_weight=0)
        params[key] = list(values) if isinstance(value, list) else _number(values[0])
    return params


def _named(where: str, info: StrategyInfo, key: str, value: Any, dirs: tuple[str, ...]) -> Any:
    """A value of the parameter that may name a strategy, checked: a number, a name
    among the parameter's numbers, another strategy's name that loads; a name of no
    strategy, or of this one, is refused."""
    if not isinstance(value, str) or value in info.named_values:
        return value  # a name that is a number becomes it once the player is named
    every = strategy_names(dirs)
    if value == info.name or value not in every:
        why = (
            f"is {info.name!r} itself"
            if value == info.name
            else f"is not a known strategy{suggest(value, every)}"
        )
        raise ConfigError(
            f"{where}: 'params.{key}' = {value!r} {why} (allowed: "
            f"{_named_numbers(info)} or the name of another strategy: "
            f"{_names([n for n in every if n != info.name])})"
        )
    if value not in available_strategies(dirs, {value}):
        broken = broken_strategies(dirs, [value]).get(value, "it did not load")
        raise ConfigError(f"{where}: 'params.{key}' = {value!r} cannot be loaded: {broken}")
    return value


def _numbered(info: StrategyInfo, params: Mapping[str, Any]) -> dict[str, Param]:
    """A player's parameters, a name that is one of its parameter's numbers (search's
    rollout = "greedy") that number: the same player, the same run, however spelled."""
    return {
        key: _number(info.named_values.get(value, value) if key == info.named_param else value)
        for key, value in params.items()
    }


def _number(value: Any) -> Param:
    return value if isinstance(value, str) else float(value)


def _named_numbers(info: StrategyInfo) -> str:
    """The numbers of the parameter that names strategies: "0 (greedy), 1 (…), …"."""
    pairs = sorted((number, name) for name, number in info.named_values.items())
    return ", ".join(f"{number:g} ({name})" for number, name in pairs)


def named_strategies(players: Iterable[PlayerSpec]) -> set[str]:
    """The strategies the players' parameters name (search's rollout = "mine")."""
    return {v for p in players for v in p.params.values() if isinstance(v, str)}


def played_strategies(players: Iterable[PlayerSpec]) -> set[str]:
    """Every strategy the players play: their own and those their parameters name."""
    listed = list(players)
    return {p.strategy for p in listed} | named_strategies(listed)


def _param_names(strategy: str, defaults: Mapping[str, float]) -> str:
    if not defaults:
        return f"none, strategy {strategy!r} has no parameters"
    return ", ".join(f"{key} (default {value!r})" for key, value in defaults.items())


# --- small checks ---------------------------------------------------------------------


def _table(where: str, data: dict[str, Any], key: str, spelled: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where}: '{key}' must be a table (a {spelled} section), got {show(value)}"
        )
    return value


def _check_keys(where: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(
                f"{where}: unknown key '{key}' (allowed: {', '.join(allowed)})"
                f"{suggest(key, allowed)}"
            )


def _names(choices: Iterable[str]) -> str:
    return ", ".join(sorted(choices))


FORMULA_STARTS = ("=", "+", "-", "@")


def _need_name(where: str, value: Any) -> str:
    name = need_str(where, "name", value)
    if len(name) > MAX_NAME or not name.isprintable():
        shown = show(name if len(name) <= MAX_NAME else name[:MAX_NAME] + "...")
        raise ConfigError(
            f"{where}: 'name' = {shown} (allowed: printable text of at most {MAX_NAME} "
            "characters, no control or direction-changing characters)"
        )
    if name.startswith(FORMULA_STARTS):
        # a spreadsheet opening summary.csv would run it as a formula (=HYPERLINK(…))
        raise ConfigError(
            f"{where}: 'name' = {show(name)} begins with {name[0]!r}, which a spreadsheet "
            "opening the results' CSV files takes for a formula: begin it otherwise"
        )
    return name


def _need_out(where: str, key: str, value: Any) -> str:
    need_str(where, key, value)
    problem = out_problem(value)
    if problem:
        raise ConfigError(f"{where}: '{key}' = {show(value[:80])} {problem}")
    return value


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
