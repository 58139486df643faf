"""A mexsim command as a process: one line per problem and a documented exit status,
stop signals answered, standard output whose refusal is an output error, and a quick
end. mexsim/cli.py parses and delegates; ``run_command`` runs what it delegates to.

Every failure maps to its status in one place (``run_command``), as pypa/build's
``_handle_build_error`` does; the signal handling is what makes Ctrl-C, SIGTERM and
SIGHUP one line and 128 + the signal wherever they land (mexsim/jit/interrupts.py).
"""

from __future__ import annotations

import atexit
import functools
import gc
import sys
import warnings
from collections.abc import Callable
from typing import Any

from mexsim.errors import (
    ConfigError,
    OutputConflict,
    OutputError,
    StrategyError,
    StrategyFileWarning,
    Terminated,
)
from mexsim.jit import interrupts
from mexsim.process.exit_status import (
    INTERNAL_ERROR,
    INTERRUPTED,
    NOT_PUBLISHED,
    OS_ERROR,
    RUN_ERROR,
    SHOW_TRACEBACK,
    SIGNALLED,
    USAGE_ERROR,
)

WHOLE_PROCESS = [False]  # this command is the process (run from the command line)
END_AT_ONCE = [False]  # a run's results are in place and shown: nothing left to do


def begin(whole_process: bool) -> None:
    """A command begins: ``whole_process`` when it is the process (the command line's),
    not a caller's (a test's)."""
    WHOLE_PROCESS[0] = whole_process
    END_AT_ONCE[0] = False


def run_command(main: Callable[[], Any], usage_error: Any, abort: type[BaseException]) -> None:
    """Run a command's ``main()`` and end the process with its status: each failure one
    line on stderr and its documented status (``usage_error``, ``abort``: the command
    line library's usage error and abort)."""
    warnings.showwarning = show_warning
    if not isinstance(sys.stdout, _GuardedStdout):
        sys.stdout = _GuardedStdout(sys.stdout)
    _answer_termination()
    _end_quickly()  # registered first: run last, after the others' clean-up
    try:
        status = main()
        _raise_swallowed_signal()
    except Terminated as exc:
        import signal

        fail(f"interrupted by {signal.Signals(exc.signum).name}", status=SIGNALLED + exc.signum)
    except ConfigError as exc:
        fail(str(exc))
    except StrategyError as exc:  # a strategy misbehaved while playing
        fail(str(exc), status=RUN_ERROR)
    except OutputError as exc:
        fail(str(exc), status=OS_ERROR)
    except OutputConflict as exc:
        fail(str(exc), status=NOT_PUBLISHED)
    except RecursionError:
        fail("input nested too deeply to read (allowed: a few hundred levels)")
    except usage_error as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `mexsim`: show the help
            help_text = exc.format_message()  # empty when rich has printed it already
            if help_text.strip():
                print(help_text, file=sys.stderr)
            sys.exit(USAGE_ERROR)
        fail(exc.format_message())
    except abort:
        fail("aborted", status=1)
    except Exception as exc:  # a fault of mexsim's own: one line too
        from mexsim.running.machine_limits import SHORTAGE_ADVICE, resource_shortage

        shortage = resource_shortage(exc)
        if shortage is not None:  # the machine's or its limits', not mexsim's
            fail(f"{shortage}; {SHORTAGE_ADVICE}", status=OS_ERROR)
        if interrupts.received() is not None:  # or a stop signal swallowed and its
            _raise_swallowed_signal()  # outcome called a fault (hypothesis: "flaky")
        _internal_error(exc)
    except KeyboardInterrupt:  # a Ctrl-C no handler saw raised (one swallowed)
        status = INTERRUPTED
    if status == INTERRUPTED:  # typer's silent answer to a Ctrl-C outside the runner
        fail("interrupted", status=INTERRUPTED)
    exit_with(status if isinstance(status, int) else 0)


def fail(message: str, status: int = USAGE_ERROR) -> None:
    text = " ".join(message.split())
    # a stop the user asked for (Ctrl-C, a signal) is said plainly, not as an error
    asked = status > SIGNALLED
    print(f"mexsim: {text}" if asked else f"mexsim: error: {text}", file=sys.stderr)
    if status == INTERRUPTED:
        _forget_the_interrupt()
    exit_with(status)


def exit_with(status: int) -> None:
    """Exit with ``status``; at once, without waiting for them, when a strategy file's
    import left threads running (Python would wait for them for ever). The signals the
    command noted are its own: code run after it in the process (a notebook, a test)
    is not stopped by them (mexsim/jit/interrupts.py)."""
    interrupts.forget()
    if END_AT_ONCE[0] and WHOLE_PROCESS[0] and status == 0:
        # the results are in place and shown: the process ends now, not through the
        # interpreter's finalisation, which puts SIGINT back to its default a moment
        # before the end (a Ctrl-C then ended the command by the signal, -2, row 22)
        import contextlib

        from mexsim.running.exit_now import exit_now

        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        exit_now(status)
    registry = sys.modules.get("mexsim.strategy.registry")
    if registry is not None and registry.LEFT_THREADS:
        import os

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


def _forget_the_interrupt() -> None:
    """A Ctrl-C the command has answered is no longer CPython's to answer: when its
    KeyboardInterrupt left code run by ``exec`` or ``eval`` of a string (namedtuple,
    dataclasses and numba load so; a strategy file may too), CPython marked it as
    unhandled, and ``python -m mexsim`` then ended by SIGINT after the command's line
    instead of with its status. Each string ``exec`` clears that mark as it begins,
    and this one raises nothing to set it again."""
    exec("")


def _internal_error(exc: Exception) -> None:
    """What no input should cause (a bug, or the machine out of memory): one line that
    names it and what to do, the traceback only when asked for."""
    import os

    from mexsim.version import __version__

    if os.environ.get(SHOW_TRACEBACK):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    fail(
        f"internal error of mexsim {__version__}: {what} (not a fault of the input: "
        f"please report it with the command; {SHOW_TRACEBACK}=1 shows where it happened)",
        status=INTERNAL_ERROR,
    )


_pythonshow_warning = warnings.showwarning


def show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """A skipped strategy file as one line on stderr, and numba's refusal to cache a
    strategy in words (other warnings as Python shows them)."""
    if issubclass(category, StrategyFileWarning):
        text = " ".join(str(message).split())
        print(f"mexsim: warning: {text}", file=sys.stderr)
    elif category.__name__ == "NumbaWarning" and "Cannot cache compiled function" in str(message):
        function = str(message).split('"')[1] if '"' in str(message) else "a function"
        print(
            f"mexsim: warning: {filename}:{lineno}: {function} cannot be kept in numba's "
            "cache (it uses a lambda, an inner function or another dynamic global), so it "
            "is compiled again at every run: sort an array of keys with np.argsort (its "
            "default kind), or write the loop out",
            file=sys.stderr,
        )
    else:
        _pythonshow_warning(message, category, filename, lineno, file, line)


@functools.cache
def _end_quickly() -> None:
    """At the process's exit, after every other exit handler: nothing left for the
    collector to walk. A process that has loaded the kernels otherwise spends its last
    moments in the interpreter's final collections over every object numba, llvmlite
    and pandas made, after the command's work is done and its files are in place
    (1.1-2.1 s in the local cluster's workers, which do the same:
    mexsim/running/dask/worker_exit.py; 0.1-0.8 s for `mexsim run` itself); the memory
    goes back to the system with the process either way."""
    atexit.register(gc.freeze)


class _GuardedStdout:
    """Standard output whose refusal (a full disk, `mexsim replay … > /dev/full`) is the
    output error it is (exit status 4, one line), not an internal one. After a refusal
    what is left of it goes to /dev/null, so that the interpreter's flush at exit adds
    no message of its own."""

    def __init__(self, inner: Any) -> None:
        import os

        # started with standard output closed (`mexsim replay … >&-`): Python gives None.
        # The first write says so (exit status 4, one line); the rest goes nowhere
        self._closed = inner is None
        self._inner = open(os.devnull, "w", encoding="utf-8") if inner is None else inner  # noqa: SIM115

    def _refused(self, exc: OSError) -> OutputError | None:
        """What is left goes to /dev/null; the error to raise, or None when the reader
        went away (`mexsim run … | head -1`): a reader's choice, not a failure, so every
        command then finishes its work quietly, as it would have shown the rest."""
        import errno
        import os

        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._inner.fileno())
            os.close(null)
        except (OSError, ValueError, AttributeError):  # not a file (a test's capture)
            pass
        if exc.errno == errno.EPIPE:
            return None
        return OutputError(f"standard output: cannot write ({exc.strerror or exc})")

    def write(self, text: str) -> int:
        if self._closed:
            self._closed = False
            raise OutputError(
                "standard output: closed, so nothing can be shown (send it somewhere: "
                "> FILE, or > /dev/null)"
            )
        try:
            return self._inner.write(text)
        except OSError as exc:
            error = self._refused(exc)
            if error is not None:
                raise error from None
            return len(text)

    def flush(self) -> None:
        try:
            self._inner.flush()
        except OSError as exc:
            error = self._refused(exc)
            if error is not None:
                raise error from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _terminate(signum: int, frame: Any) -> None:
    interrupts.note(signum)
    raise Terminated(signum)


def _answer_termination() -> None:
    """SIGTERM and SIGHUP end a command with one line and 128 + the signal, as Ctrl-C
    does, where they ended it silently (`mexsim check` being compiled); a signal the
    caller ignored stays ignored. Each is noted as it is raised
    (mexsim/jit/interrupts.py: numba's compiler can swallow the exception)."""
    import signal

    interrupts.begin()
    heed_stop_signals_again()
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, _terminate)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, interrupts.interrupt)
    sys.unraisablehook = _quiet_about_stops


def _quiet_about_stops(unraisable: Any) -> None:
    """A stop signal's exception dropped where Python cannot raise it (a ctypes
    callback of numba's compiler) is not printed as a traceback: the command answers
    the signal itself, in one line (mexsim/jit/interrupts.py)."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt | Terminated):
        sys.__unraisablehook__(unraisable)


def _raise_swallowed_signal() -> None:
    """The signal the command got, raised again if its exception was swallowed."""
    import signal

    signum = interrupts.received()
    if signum == signal.SIGINT:
        fail("interrupted", status=INTERRUPTED)
    if signum is not None:
        fail(f"interrupted by {signal.Signals(signum).name}", status=SIGNALLED + signum)


_IGNORED_BY_US: dict[int, Any] = {}  # signal -> its handler before the results were shown
WHOLE_PROCESS = [False]  # this command is the process (run from the command line)
END_AT_ONCE = [False]  # a run's results are in place and shown: nothing left to do


def _nothing_left_to_stop(signum: int, frame: Any) -> None:
    """A stop signal once the results are in place and shown: taken, and ignored. Not
    SIG_IGN, which the processes a command starts afterwards (a test's next command)
    would inherit: a handler of Python's is reset in them."""


def ignore_stop_signals() -> None:
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            _IGNORED_BY_US[signum] = signal.signal(signum, _nothing_left_to_stop)
    END_AT_ONCE[0] = True


def heed_stop_signals_again() -> None:
    """A command run after another in one process (tests, a notebook) starts with the
    handlers the first found, not with the signals ignored as that one ended."""
    import signal

    for signum, handler in _IGNORED_BY_US.items():
        if signal.getsignal(signum) is _nothing_left_to_stop:
            signal.signal(signum, handler)
    _IGNORED_BY_US.clear()
