"""The comparison's number, p-value and table formatting (mexsim/analysis/formatting.py),
and the sweeps' verdicts that use it."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mexsim.analysis.formatting import MISSING, fixed_width, number, p_value
from mexsim.analysis.sweeps import format_sweeps


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.5, "0.500"),
        (0.001, "0.001"),
        (0.000999, "1.0e-03"),
        (3.2e-12, "3.2e-12"),
        (0.0, "<1e-300"),
        (math.nan, MISSING),
        (None, MISSING),
        (math.inf, MISSING),
    ],
)
def test_p_value(p, text):
    assert p_value(p) == text


def test_p_value_missing_can_be_blank():
    """The summary table leaves the best player's p cell empty rather than n/a."""
    assert p_value(math.nan, missing="") == ""
    assert p_value(0.25, missing="") == "0.250"


@pytest.mark.parametrize(
    ("value", "digits", "sign", "text"),
    [
        (1.25, 1, False, "1.2"),
        (-0.5, 2, True, "-0.50"),
        (3.0, 2, True, "+3.00"),
        (math.nan, 2, True, MISSING),
        (None, 1, False, MISSING),
        (-math.inf, 1, False, MISSING),
    ],
)
def test_number(value, digits, sign, text):
    assert number(value, digits, sign) == text


def test_fixed_width_aligns_the_named_columns_left_and_the_rest_right():
    lines = fixed_width(["", "name", "n"], [["1", "ab", "7"], ["12", "a", "100"]], left=[1])
    assert lines == [
        "    name    n",
        "--  ----  ---",
        " 1  ab      7",
        "12  a     100",
    ]


def test_sweep_verdicts_print_missing_statistics_as_n_a():
    """A difference that could not be computed (one deal, no spread) used to print as
    "+nan [+nan, +nan]" beside p=n/a; now n/a throughout, as in the summary."""
    table = pd.DataFrame(
        {
            "sweep": ["w", "w"],
            "value": ["0.0", "1.0"],
            "best": [True, False],
            "adjusted_total": [100.0, 101.0],
            "diff_vs_sweep_best": [0.0, math.nan],
            "diff_lo": [0.0, math.nan],
            "diff_hi": [0.0, math.nan],
            "diff_p_value": [math.nan, math.nan],
        }
    )
    text = format_sweeps(table)
    assert "nan" not in text
    assert "  1.0: n/a [n/a, n/a] points worse, p=n/a -> not significant" in text
    assert "sweep w: best 0.0 (mean total 100.00)" in text


def test_sweep_verdicts_keep_their_figures():
    table = pd.DataFrame(
        {
            "sweep": ["w", "w"],
            "value": ["0.0", "1.0"],
            "best": [True, False],
            "adjusted_total": [100.0, 102.5],
            "diff_vs_sweep_best": [0.0, 2.5],
            "diff_lo": [0.0, 1.25],
            "diff_hi": [0.0, 3.75],
            "diff_p_value": [math.nan, 0.0001],
        }
    )
    assert (
        "  1.0: +2.50 [+1.25, +3.75] points worse, p=1.0e-04 -> significant at 95%"
        in format_sweeps(table)
    )
