"""The kernel's integer codes (mexsim/game/enums.py): each group numbers its members
0..n-1 once each, and the result fields are the rounds.parquet columns of that name."""

from __future__ import annotations

import pytest

from mexsim.game import enums
from mexsim.store.result_tables import ROUNDS_SCHEMA

GROUPS = [
    enums.Event,
    enums.EventField,
    enums.Reason,
    enums.Field,
    enums.Scope,
    enums.Outcome,
    enums.Dispatch,
    enums.Status,
]


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: type(g).__name__)
def test_a_group_numbers_its_members_densely(group):
    """Codes index arrays (res[..., Field.x], status[Status.x]) or are compared: a gap
    or a repeat would leave a column unwritten or make two codes one."""
    assert sorted(group) == list(range(len(group)))


def test_row_widths_follow_the_groups():
    assert enums.N_FIELDS == len(enums.Field) == 9
    assert enums.N_STATUS == len(enums.Status) == 8
    assert enums.N_EVENT_FIELDS == len(enums.EventField) == 5


def test_result_fields_are_rounds_parquet_columns_in_order():
    columns = ROUNDS_SCHEMA.names
    at = columns.index(enums.Field._fields[0])
    assert columns[at : at + enums.N_FIELDS] == list(enums.Field._fields)
