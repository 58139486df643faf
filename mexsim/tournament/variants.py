"""Rule variants: one run that plays the same matches under several sets of rules
(docs/designers.md).

A variant is the config's ``[rules]`` with some keys changed. Two ways to ask for them:

- a list for any ``[rules]`` key (``first_turn = ["single", "train"]``): every
  combination of the listed values is a variant, named by them
  (``first_turn=single``), as parameter sweeps are;
- ``[[variants]]`` tables, each a ``name`` and the rule keys it changes over ``[rules]``.

The first variant — or the one named ``base`` — is the baseline, which every other is
compared with. Every variant plays the same matches: the same deals, seats and random
streams (they derive from the seed and the match alone), so the differences are paired
by match. Each variant is validated as strictly as ``[rules]`` is, its errors naming it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mexsim.errors import ConfigError
from mexsim.game.rules import RULE_KEYS, Rules, resolve_rules
from mexsim.validate import show

MAX_VARIANTS = 32  # each plays every match: 32 variants are 32 runs' play
BASELINE = "base"
VARIANT_KEYS = ("name", *RULE_KEYS)


@dataclass(frozen=True)
class Variant:
    """A rule variant: its name, its resolved rules, and the keys it sets over
    ``[rules]`` (as the config gave them)."""

    name: str
    rules: Rules
    changes: dict[str, Any]

    def describe(self) -> str:
        """Its rules in words, for tables: ``first_turn=single, hand_size=12``."""
        return describe_changes(self.changes)


def describe_changes(changes: Mapping[str, Any]) -> str:
    """A variant's changes over [rules] in words (``as [rules]`` for none)."""
    if not changes:
        return "as [rules]"
    return ", ".join(f"{key}={_value(v)}" for key, v in changes.items())


def rule_variants(
    where: str, rules_table: Mapping[str, Any], tables: Any, players: int
) -> tuple[Rules, tuple[Variant, ...]]:
    """The base rules and the variants (none: an empty tuple) of a config's ``[rules]``
    table and ``[[variants]]`` tables; ``where`` is the config file."""
    rules_where = f"{where} [rules]"
    listed = {key: value for key, value in rules_table.items() if isinstance(value, list)}
    if tables is not None and listed:
        raise ConfigError(
            f"{rules_where}: '{next(iter(listed))}' lists values and the config has "
            "[[variants]] tables too: give the variants one way (lists in [rules], or "
            "[[variants]])"
        )
    if tables is None and not listed:
        return resolve_rules(dict(rules_table), players, where=rules_where), ()
    if listed:
        variants = _from_lists(rules_where, rules_table, listed, players)
    else:
        base = resolve_rules(dict(rules_table), players, where=rules_where)
        variants = _from_tables(where, rules_table, tables, players, base)
    named = [v.name for v in variants]
    if BASELINE in named:  # the baseline leads
        variants.insert(0, variants.pop(named.index(BASELINE)))
    return variants[0].rules, tuple(variants)


def _from_lists(
    where: str, table: Mapping[str, Any], listed: dict[str, list[Any]], players: int
) -> list[Variant]:
    for key, values in listed.items():
        if not values:
            raise ConfigError(f"{where}: '{key}' = [] lists no values (a variant needs one)")
        if len({repr(v) for v in values}) < len(values):
            raise ConfigError(f"{where}: '{key}' = {show(values)} lists a value twice")
    count = 1
    for values in listed.values():
        count *= len(values)
    _check_count(where, count)
    fixed = {k: v for k, v in table.items() if k not in listed}
    variants = []
    for chosen in itertools.product(*listed.values()):
        changes = dict(zip(listed, chosen, strict=True))
        name = ",".join(f"{key}={_value(v)}" for key, v in changes.items())
        rules = resolve_rules(fixed | changes, players, where=f"{where} (variant '{name}')")
        variants.append(Variant(name, rules, changes))
    return variants


def _from_tables(
    where: str, base: Mapping[str, Any], tables: Any, players: int, base_rules: Rules
) -> list[Variant]:
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(
            f"{where}: 'variants' must be an array of tables, one [[variants]] table per "
            "variant (a 'name' and the [rules] keys it changes)"
        )
    if not tables:
        raise ConfigError(f"{where}: 'variants' is empty (one [[variants]] table per variant)")
    _check_count(f"{where} [[variants]]", len(tables))
    variants: list[Variant] = []
    for index, table in enumerate(tables):
        here = f"{where} [[variants]] #{index + 1}"
        for key in table:
            if key not in VARIANT_KEYS:
                raise ConfigError(
                    f"{here}: unknown key '{key}' (allowed: name and the [rules] keys: "
                    f"{', '.join(RULE_KEYS)})"
                )
        name = table.get("name")
        if not isinstance(name, str) or not name.strip() or not name.isprintable():
            raise ConfigError(
                f"{here}: 'name' = {show(name)}: every variant needs a name (printable text)"
            )
        if len(name) > 64 or name.startswith(("=", "+", "-", "@")):
            raise ConfigError(
                f"{here}: 'name' = {show(name[:80])} (allowed: at most 64 characters, not "
                "beginning with =, +, - or @, which a spreadsheet takes for a formula)"
            )
        if any(v.name == name for v in variants):
            raise ConfigError(f"{here}: duplicate 'name' = {name!r} (names must be unique)")
        changes = {k: v for k, v in table.items() if k != "name"}
        for key, value in changes.items():
            if isinstance(value, list):
                raise ConfigError(
                    f"{here}: '{key}' = {show(value)} is a list; a [[variants]] table sets "
                    "one value per key (write one table per variant)"
                )
        rules = resolve_rules(dict(base) | changes, players, where=f"{here} ('{name}')")
        variants.append(Variant(name, rules, changes))
    return variants


def _check_count(where: str, count: int) -> None:
    if count < 2:
        raise ConfigError(
            f"{where}: one variant, nothing to compare it with (allowed: 2..{MAX_VARIANTS}; "
            'to compare with [rules] as they are, add a [[variants]] table with name = "base" '
            "and no other key; a list in [rules] needs two values or more)"
        )
    if count > MAX_VARIANTS:
        raise ConfigError(
            f"{where}: {count:,} rule variants (allowed: 2..{MAX_VARIANTS}; each one plays "
            "every match)"
        )


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
