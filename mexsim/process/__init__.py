"""A command as a process: exit statuses, stop signals, one line per failure."""
