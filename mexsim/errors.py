"""What users see of a problem: a configuration or usage error or a strategy's fault, each
shown as one line, and the warning for a strategy file that is skipped."""


class ConfigError(Exception):
    """Bad input: the message names the file or option, the key, and the allowed values."""


class StrategyError(Exception):
    """A strategy chose an impossible move or raised; names the strategy, match and round."""


class OutputError(Exception):
    """The operating system refused a file operation (disk full, read-only, permission,
    name too long); the message names the path, the cause and what was kept."""


class ResourceShortage(OutputError):
    """The system refused memory or a thread (an address-space limit, ``ulimit -v``, or a
    machine out of memory): the same status as a refused file operation; the message
    says what was refused, what was kept and what to do."""


class OutputConflict(Exception):
    """The results are complete but were not put in place (the path changed during the
    run); the message says where they are."""


class Interrupted(Exception):
    """A signal (Ctrl-C, SIGTERM, SIGHUP) stopped a run; ``signum`` is the signal."""

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message)
        self.signum = signum


class Terminated(BaseException):
    """SIGTERM or SIGHUP outside a run's play (which answers them itself), raised in the
    main thread by the command's handler (mexsim/cli.py). A BaseException, as
    KeyboardInterrupt is: code that catches Exception (a check's decide, a compile, a
    strategy file's import) does not hold it back."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class StrategyFileWarning(UserWarning):
    """A strategy file that cannot be loaded and is skipped; an error only for a run
    that names its strategy."""
