"""The engine of git revisions against the working tree's, paired in one process.

On a shared machine a best-of-N rate moves by ±10 % from one try to the next, more
than most changes to the engine gain. This script copies ``mexsim/`` as it was at
REV (``git archive``) into a temporary folder under another package name, checks that
both versions give equal round results on each table, then plays short runs of each
(and, for 4 × greedy, of benchmarks/prototype_engine.py) in a shuffled order, PAIRS
times, in process CPU time, and prints the medians and the median ratio within a
rotation with its quartiles (docs/speed-history.md, "second pass").

    python benchmarks/bench_paired.py --rev main --pairs 80
    python benchmarks/bench_paired.py --rev HEAD~3 --tables greedy,greedy:2
    python benchmarks/bench_paired.py --rev main,HEAD~2,HEAD~1 --tables greedy

Several revisions (oldest first) take part in the same rotations, each compiled once,
and each step is reported against the one before it (the last against the working
tree), then the first against the working tree: a chain of changes measured in one run.

A table is greedy, default, longest or doubles (4 x early_doubles); ``:2`` plays it
with the engine alone (Dispatch.engine_only). The copy is kept in
build/bench-rev-<commit>/ (ignored by git; delete it when done), so that its compiled
code, cached beside the working tree's, is reused by the next run; the first run
compiles it (minutes).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import random
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from io import BytesIO
from pathlib import Path

import numpy as np

# this checkout's mexsim: run as a script, Python would import the one the virtual
# environment was installed from (an editable install of another checkout), and the
# "working tree" side would silently be that checkout's engine
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prototype_engine import play as play_prototype  # a sibling script
from prototype_engine import tables as prototype_tables

import mexsim.game.play as new_play
from mexsim.game.rules import resolve_rules
from mexsim.strategy.policy import resolve_policies

SEED = 2026
TABLES = {
    "greedy": ["greedy"] * 4,
    "default": ["longest_train", "early_doubles", "greedy", "random"],
    "longest": ["longest_train"] * 4,
    "doubles": ["early_doubles"] * 4,
}
MATCHES = {"greedy": 600, "default": 400, "longest": 250, "doubles": 500}  # ~50 ms a run
OLD = "mexsim_rev"


def import_revision(rev: str, k: int = 0):
    """mexsim/ at ``rev`` as package OLD (OLD + str(k) for k > 0): its play and rules
    modules, and its own resolve_policies (each side seats its own policies)."""
    root = Path(__file__).resolve().parent.parent
    commit = subprocess.run(
        ["git", "rev-parse", rev], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()
    name = OLD + (str(k) if k else "")
    folder = root / "build" / (f"bench-rev-{commit[:12]}" + (f"-{k}" if k else ""))
    if not (folder / name).is_dir():
        data = subprocess.run(
            ["git", "archive", commit, "mexsim"], cwd=root, check=True, capture_output=True
        ).stdout
        work = folder.with_name(folder.name + ".partial")
        shutil.rmtree(work, ignore_errors=True)  # what an interrupted run left
        with tarfile.open(fileobj=BytesIO(data)) as tar:
            tar.extractall(work, filter="data")
        pattern = re.compile(r"\bmexsim(?=[.\s])")  # imports, not the word in messages
        for path in (work / "mexsim").rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            path.write_text(pattern.sub(name, text), encoding="utf-8")
        (work / "mexsim").rename(work / name)
        work.rename(folder)  # whole or not at all: an interrupted copy is redone
    sys.path.insert(0, str(folder))
    return (
        importlib.import_module(f"{name}.game.play"),
        importlib.import_module(f"{name}.game.rules"),
        importlib.import_module(f"{name}.strategy.policy").resolve_policies,
    )


def cpu_us(fn, n: int) -> float:
    start = time.process_time()
    fn()
    return (time.process_time() - start) / n * 1e6


def compare(spec: str, olds: list[tuple[str, object, object, object]], pairs: int) -> str:
    """Time table ``spec`` for each (label, play, rules) of ``olds`` and the working
    tree, in shuffled rotations; one line a step."""
    name, _, mode = spec.partition(":")
    dispatch = int(mode or 0)
    names, n = TABLES[name], MATCHES[name]
    seats = resolve_policies(names)
    rules_new = resolve_rules({"preset": "seed-001"}, 4)
    expected = new_play.play_matches_results(rules_new, seats, SEED, 0, 200, dispatch=dispatch)
    runs = {}
    for label, old_play, old_rules, old_resolve in olds:
        rules_old = old_rules.resolve_rules({"preset": "seed-001"}, 4)
        old_seats = old_resolve(names)
        old_res = old_play.play_matches_results(
            rules_old, old_seats, SEED, 0, 200, dispatch=dispatch
        )
        # the fields both versions record (a version may add result fields at the end)
        common = min(old_res.shape[-1], expected.shape[-1])
        if not np.array_equal(old_res[..., :common], expected[..., :common]):
            return f"{spec}: {label} and the working tree play differently; not timed"
        runs[label] = (
            lambda p, r, s: lambda: p.play_matches_results(r, s, SEED, 0, n, dispatch=dispatch)
        )(old_play, rules_old, old_seats)
    runs["new"] = lambda: new_play.play_matches_results(
        rules_new, seats, SEED, 0, n, dispatch=dispatch
    )
    if name == "greedy" and dispatch == 0:
        args = prototype_tables()
        runs["prototype"] = lambda: play_prototype(SEED, 0, n, *args)
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(pairs):
        order = list(runs)
        random.shuffle(order)
        for k in order:
            times[k].append(cpu_us(runs[k], n))

    def ratio(a: str, b: str) -> str:
        r = [x / y for x, y in zip(times[a], times[b], strict=True)]
        q1, _, q3 = statistics.quantiles(r, n=4)
        return f"{statistics.median(r):.3f} ({q1:.3f}-{q3:.3f})"

    med = {k: statistics.median(v) for k, v in times.items()}
    labels = [label for label, *_ in olds] + ["new"]
    lines = []
    steps = list(itertools.pairwise(labels))
    if len(steps) > 1:
        steps.append((labels[0], "new"))  # the whole chain
    for before, after in steps:
        line = (
            f"{spec:<10} µs a match, median: {before} {med[before]:.1f}, {after} "
            f"{med[after]:.1f}; {before}/{after} {ratio(before, after)}"
        )
        if "prototype" in med:
            line += (
                f"; prototype {med['prototype']:.1f}: core/prototype {before} "
                f"{ratio('prototype', before)}, {after} {ratio('prototype', after)}"
            )
        lines.append(line)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rev",
        default="main",
        help="the git revision(s) to compare against, oldest first, by commas",
    )
    parser.add_argument("--tables", default="greedy,greedy:2,default,longest")
    parser.add_argument("--pairs", type=int, default=80)
    args = parser.parse_args()
    random.seed(1)
    play_prototype(SEED, 0, 2, *prototype_tables())  # compile / load the cache
    revs = args.rev.split(",")
    olds = [(rev, *import_revision(rev, k)) for k, rev in enumerate(revs)]
    for spec in args.tables.split(","):
        print(compare(spec, olds, args.pairs), flush=True)


if __name__ == "__main__":
    main()
