"""What users see of a problem: a configuration or usage error or a strategy's fault, each
shown as one line, and the warning for a strategy file that is skipped."""


class ConfigError(Exception):
    """Bad input: the message names the file or option, the key, and the allowed values."""


class StrategyError(Exception):
    """A strategy chose an impossible move or raised; names the strategy, match and round."""


class StrategyFileWarning(UserWarning):
    """A strategy file that cannot be loaded and is skipped; an error only for a run
    that names its strategy."""
