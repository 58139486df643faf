"""`make bench` (run part): `mexsim run` end to end, and the CLI's start-up.

Plays N matches (default 1,000,000) of configs/default.toml on all cores in a fresh
process and reports wall time, matches per second, the process's peak memory and the
output size; then the warm start (a 1-match run with a warm cache) and the modules
`mexsim --help` imports. Targets (issue 4): 1,000,000 matches <= 2 minutes and <= 2 GB;
warm start <= 2 s; `--help` imports neither numba, pandas nor pyarrow.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_cli(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mexsim", *args], cwd=ROOT, check=True, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=1_000_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mexsim-bench-"))
    try:
        run_cli(
            [
                "run",
                "configs/default.toml",
                "--matches",
                "10",
                "--out",
                str(work / "warmup"),
                "--quiet",
            ]
        )  # compile / load the cache
        wall = run_cli(
            [
                "run",
                "configs/default.toml",
                "--matches",
                str(args.matches),
                "--out",
                str(work / "big"),
                "--quiet",
            ]
        )
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        size_mb = folder_size(work / "big") / 1e6
        print(f"run: {args.matches:,} matches of configs/default.toml, all cores")
        print(
            f"  wall {wall:.1f} s, {args.matches / wall:,.0f} matches/s, "
            f"peak memory {peak_mb:,.0f} MB, output {size_mb:,.1f} MB"
        )
        warm = run_cli(
            ["run", "configs/default.toml", "--matches", "1", "--out", str(work / "one"), "--quiet"]
        )
        print(f"  warm start (1-match run): {warm:.2f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    probe = (
        "import sys; from typer.testing import CliRunner; from mexsim.cli import app; "
        "CliRunner().invoke(app, ['--help']); "
        "print(sorted(m for m in ('numba', 'pandas', 'pyarrow') if m in sys.modules))"
    )
    heavy = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    print(f"  `mexsim --help` imports of numba/pandas/pyarrow: {heavy}")


if __name__ == "__main__":
    main()
