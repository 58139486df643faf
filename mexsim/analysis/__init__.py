"""Analysis of a run's tables: per-deal units, statistics, the comparison tables,
ratings, sweeps and plots. Imports nothing of the engine (pandas, scipy only)."""
