"""Everything a run's tables are computed from, folded block by block: each rule
variant's players' statistics (mexsim/analysis/accumulate.py) and the designer's facts
of every variant, paired between variants (mexsim/analysis/designer.py).

Without variants there is one: the run's rules. The players' tables (summary, pairs,
head to head, sweeps, ``--until``) are those of the first variant, the baseline;
variants.csv compares the variants (docs/designers.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mexsim.analysis.accumulate import RunAccumulator, RunStatistics
from mexsim.analysis.designer import BASE, DesignerAccumulator, MatchFacts


class RunFold:
    """The run's accumulators: ``runs[v]`` per variant, and the designer's facts."""

    def __init__(self, players: int, luck: bool = False, variants: Sequence[str] = (BASE,)) -> None:
        self.names = list(variants) or [BASE]
        self.runs = [RunAccumulator(players, luck) for _ in self.names]
        self.designer = DesignerAccumulator(len(self.names))

    @property
    def baseline(self) -> RunAccumulator:
        return self.runs[0]

    def add(
        self,
        variant: int,
        totals: np.ndarray,
        deals: np.ndarray,
        adjusted: np.ndarray | None,
        facts: MatchFacts | None,
    ) -> None:
        """A block of variant ``variant``: its players' totals (``RunAccumulator.add``)
        and, when given, its matches' facts."""
        self.runs[variant].add(totals, deals, adjusted)
        if facts is not None:
            self.add_facts(variant, facts)

    def add_facts(self, variant: int, facts: MatchFacts) -> None:
        self.designer.add(variant, facts)

    def close(self) -> RunStatistics:
        """The baseline's statistics, the designer's beside them (``.designer``)."""
        runs = [run.close() for run in self.runs]
        baseline = runs[0]
        baseline.designer = self.designer.close(self.names, runs)
        return baseline
