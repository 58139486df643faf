"""The one exception type users see: a configuration or usage error, shown as one line."""


class ConfigError(Exception):
    """Bad input: the message names the file or option, the key, and the allowed values."""
