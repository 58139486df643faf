"""The standing attack suite (issue 32, item 7): every case the attacker broke, and each
family of the cases that held, named here with the tests that hold it now. The tests
live beside the code they guard, and `make test` runs them all; this index keeps them
from going missing: a renamed or deleted test, or a row left without one, fails here,
so a future change cannot quietly reopen a case."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# row of issue 32's table -> what broke, and the tests that hold it (file::function)
BROKE: dict[str, tuple[str, list[str]]] = {
    "1": (
        "a strategy learned every hidden tile from its random stream",
        [
            "tests/game/test_hidden_tiles.py::test_the_attack_reads_every_hand_from_splitmix_keys",
            "tests/game/test_hidden_tiles.py::test_no_strategy_reads_a_hidden_hand_from_its_stream",
            "tests/tournament/test_random_seed.py::test_a_drawn_seed_is_said_recorded_and_replays_the_run",
        ],
    ),
    "2": (
        "--resume took a part overwritten in place",
        [
            "tests/tournament/test_parts.py::test_a_part_changed_in_place_is_refused_naming_it",
            "tests/tournament/test_shared_location.py::test_resume_refuses_a_kept_part_of_another_run",
        ],
    ),
    "3": (
        "--resume took parts copied from another seed's run",
        ["tests/tournament/test_parts.py::test_a_part_of_another_run_is_refused_naming_it"],
    ),
    "4": (
        "a URL run's --resume never checked its parts' run id",
        [
            "tests/tournament/test_shared_location.py::test_resume_refuses_a_kept_part_of_another_run"
        ],
    ),
    "5": (
        "a part moved to another block was exit 70",
        [
            "tests/tournament/test_parts.py::test_a_part_moved_to_another_block_is_refused_naming_it",
            "tests/tournament/test_shared_location.py::test_resume_refuses_a_kept_part_of_another_run",
        ],
    ),
    "6": (
        "an edited helper module was played by the old compiled code, under the same run id",
        [
            "tests/strategy/test_helper_sources.py::test_an_edited_helper_module_is_played_and_changes_the_run_id",
            "tests/jit/test_numba_options.py::test_a_cache_keyed_on_more_than_its_file_is_stale_when_that_changes",
        ],
    ),
    "7": (
        "report and run --force on one folder mixed old and new",
        [
            "tests/tournament/test_report_lock.py::test_a_report_is_refused_while_a_run_writes_the_folder",
            "tests/tournament/test_report_lock.py::test_a_forced_run_is_refused_while_a_report_reads_the_folder",
            "tests/tournament/test_report_lock.py::test_reports_share_the_lock_and_the_last_one_removes_it",
        ],
    ),
    "8": (
        "any strategy file doing os._exit(0) ended run, strategies and check silently",
        [
            "tests/strategy/test_exiting_files.py::test_a_run_not_using_the_file_never_imports_it",
            "tests/strategy/test_exiting_files.py::test_a_run_using_it_names_the_file_in_one_line",
            "tests/strategy/test_exiting_files.py::test_the_listing_and_check_say_what_the_file_did",
        ],
    ),
    "9": (
        "a helper recursing without end was a segmentation fault",
        [
            "tests/strategy/test_escapes.py::test_a_recursive_helper_is_refused_in_one_line",
            "tests/strategy/test_escapes.py::test_recursion_in_cached_helpers_is_refused_every_time",
        ],
    ),
    "10": (
        "check of a bounded recursive helper was an LLVM abort",
        [
            "tests/strategy/test_escapes.py::test_a_recursive_helper_is_refused_in_one_line",
            "tests/strategy/test_escapes.py::test_recursion_in_cached_helpers_is_refused_every_time",
        ],
    ),
    "11": (
        "a sweep of 20**8 combinations was expanded before the limit was checked",
        [
            "tests/tournament/test_config.py::test_a_sweep_too_large_is_refused_before_it_is_expanded"
        ],
    ),
    "12": (
        "a strategy starting a thread at import: the run never exited",
        [
            "tests/strategy/test_import_threads.py::test_a_file_that_leaves_a_thread_is_refused_and_waited_for_by_nothing"
        ],
    ),
    "13": (
        "two Ctrl-C on a local cluster: traceback, exit 1, scratch left",
        [
            "tests/tournament/test_second_stop.py::test_a_second_stop_signal_while_stopping_is_ignored",
            "tests/tournament/test_second_stop.py::test_the_scratch_folder_goes_whatever_ends_the_closing",
        ],
    ),
    "14": (
        "Ctrl-C during check's compile was swallowed and the check passed",
        [
            "tests/test_swallowed_signals.py::test_a_swallowed_stop_signal_ends_the_check_in_one_line",
            "tests/test_swallowed_signals.py::test_a_fault_after_a_swallowed_ctrl_c_is_the_interruption",
        ],
    ),
    "15": (
        "ulimit -v: an abort, OpenBLAS giving up or exit 70, and a work folder left",
        [
            "tests/tournament/test_resource_shortage.py::test_a_low_address_space_limit_is_refused_before_anything_starts",
            "tests/tournament/test_resource_shortage.py::test_memory_refused_during_play_is_one_line_and_leaves_nothing",
        ],
    ),
    "16": (
        "objmode or ctypes state made the worker counts' files differ",
        ["tests/strategy/test_escapes.py::test_leaving_compiled_code_is_refused"],
    ),
    "17": (
        "replay --match >= 2**63 was exit 70",
        ["tests/test_cli.py::test_a_match_index_beyond_int64_is_a_usage_error"],
    ),
    "18": (
        "replay > /dev/full was exit 70",
        ["tests/test_cli.py::test_a_full_standard_output_is_an_output_error"],
    ),
    "19": (
        "strategies --new with a 300-character name was exit 70",
        ["tests/strategy/test_starter.py::test_new_refuses_a_built_in_s_name_and_an_endless_one"],
    ),
    "20": (
        "strategies --new greedy broke every command in the folder",
        ["tests/strategy/test_starter.py::test_new_refuses_a_built_in_s_name_and_an_endless_one"],
    ),
    "21": (
        "a flipped byte in the results changed report's totals unnoticed",
        ["tests/analysis/test_page_checksums.py::test_a_flipped_byte_is_found_or_changes_nothing"],
    ),
    "22": (
        "Ctrl-C just after the table was printed: 130 and no line",
        [
            "tests/test_ctrl_c_exit_status.py::test_ctrl_c_once_the_results_are_shown_leaves_them_complete"
        ],
    ),
    "23": (
        "SIGTERM during check: 143 and no line",
        ["tests/test_ctrl_c_exit_status.py::test_sigterm_while_check_compiles_is_one_line"],
    ),
    "held: --force": (
        "--force deleted files the user put in a results folder",
        [
            "tests/tournament/test_safety.py::test_force_keeps_what_the_user_put_in_the_results_folder"
        ],
    ),
    "held: formulas": (
        "player names like =HYPERLINK(...) went verbatim into the CSVs",
        ["tests/tournament/test_config.py::test_a_name_a_spreadsheet_would_run_is_refused"],
    ),
    "held: --out under a file": (
        "--out afile/sub said 'not writable (File exists)'",
        ["tests/tournament/test_run.py::test_bad_input"],
    ),
    "held: run.json": (
        "a missing or truncated run.json was 'files of different runs'",
        ["tests/tournament/test_safety.py::test_report_names_a_missing_or_damaged_run_json"],
    ),
    "held: --resume afresh": (
        "--resume after the work folder was gone",
        ["tests/tournament/test_safety.py::test_resume_with_nothing_to_resume_starts_afresh"],
    ),
    "held: local:N": (
        "--cluster local:N was not bounded by the machine",
        [
            "tests/tournament/test_until_and_cluster.py::test_local_workers_are_bounded_by_the_machine"
        ],
    ),
    # the hostile strategy author's table (a later attack, rows by their own numbers)
    "hostile author 2": (
        "the forward model's helpers read and wrote anywhere: world_penalty(any array, k), "
        "give_tile(view, 100000, 3), tile_text(view, 100000)",
        [
            "tests/strategy/test_helper_bounds.py::test_an_index_outside_the_array_raises_index_error"
        ],
    ),
    "hostile author 13": (
        "mexsim run /dev/zero read 16 GB; a FIFO config, or a FIFO rounds.parquet under "
        "report, hung",
        ["tests/tournament/test_non_regular_inputs.py::test_a_non_regular_input_is_one_line"],
    ),
    "hostile author 20": (
        "mexsim replay (and run) with standard output closed: exit 120 and a traceback",
        ["tests/test_closed_stdout.py::test_a_closed_standard_output_is_one_line_and_status_4"],
    ),
    "hostile author 22": (
        "run | head -1 ended with exit 4 (Broken pipe) where replay | head -1 ended with 0",
        ["tests/test_closed_stdout.py::test_a_reader_that_goes_away_ends_every_command_quietly"],
    ),
    "hostile author 7": (
        "set_stream(view, 100000, ...) and set_note(view, 100000, 0, 5) were a segfault",
        [
            "tests/strategy/test_helper_bounds.py::test_an_index_outside_the_array_raises_index_error"
        ],
    ),
}

# the families of cases that held when the product was attacked, and what holds them
HELD: dict[str, list[str]] = {
    "every signal at every moment leaves the old or the new results, or resumable blocks": [
        "tests/tournament/test_safety.py::test_a_killed_run_resumes_to_identical_files",
        "tests/tournament/test_safety.py::test_sigkill_while_replacing_never_loses_both",
        "tests/tournament/test_safety.py::test_interrupt_while_writing_the_summary_keeps_the_old_results",
        "tests/tournament/test_safety.py::test_stop_signal_ends_a_stuck_strategy_within_two_seconds",
        "tests/test_ctrl_c_exit_status.py::test_ctrl_c_inside_a_string_exec_ends_with_status_130",
    ],
    "a full disk or a file too large is one line and keeps the old results": [
        "tests/tournament/test_safety.py::test_a_full_disk_is_one_line_and_keeps_the_old_results",
    ],
    "the same bytes for any worker count, cluster or threads, resumed or not": [
        "tests/tournament/test_safety.py::test_files_are_byte_identical_for_any_worker_count",
        "tests/tournament/test_shared_location.py::test_parts_are_the_same_bytes_for_any_worker_count",
        "tests/tournament/test_until_and_cluster.py::test_local_cluster_writes_the_bytes_of_a_threaded_run",
    ],
    "what is at --out is never touched unless mexsim wrote it": [
        "tests/tournament/test_safety.py::test_a_folder_that_appears_during_the_run_is_not_touched",
        "tests/tournament/test_safety.py::test_force_refuses_a_folder_mexsim_did_not_write",
        "tests/tournament/test_safety.py::test_a_symlinked_out_is_refused_before_play",
        "tests/tournament/test_safety.py::test_a_second_run_to_the_same_out_is_refused",
    ],
    "bad input is one line, before play, leaving nothing": [
        "tests/tournament/test_safety.py::test_bad_input_is_one_line",
    ],
    "report reads only one run's files": [
        "tests/tournament/test_safety.py::test_report_refuses_files_of_two_runs",
    ],
}


@cache
def _functions(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def _all_named() -> list[str]:
    return sorted(
        {t for _, tests in BROKE.values() for t in tests} | {t for ts in HELD.values() for t in ts}
    )


@pytest.mark.parametrize("test", _all_named())
def test_every_test_the_suite_names_exists(test: str) -> None:
    path, name = test.split("::")
    assert (ROOT / path).is_file(), f"{path}: gone; it held the cases listed here"
    assert name in _functions(path), f"{test}: gone or renamed; it held the cases listed here"


def test_every_row_that_broke_has_a_test() -> None:
    rows = [key for key in BROKE if key.isdigit()]
    assert rows == [str(n) for n in range(1, 24)]
    assert all(tests for _, tests in BROKE.values())
