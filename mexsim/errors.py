"""The one exception type users see: a configuration or usage error, shown as one line."""


class ConfigError(Exception):
    """Bad input: the message names the file or option, the key, and the allowed values."""


class StrategyError(Exception):
    """A strategy chose an impossible move or raised; names the strategy, match and round."""
