"""The exit statuses of every mexsim command (docs/interface.md, "Exit status")."""

RUN_ERROR = 1  # a strategy misbehaved while playing
USAGE_ERROR = 2  # bad configuration, options or output path; refused before play
OS_ERROR = 4  # the system refused a file operation (disk full, read-only, permission),
#                or a part file damaged on disk
NOT_PUBLISHED = 5  # results complete but not put in place (the path changed meanwhile)
SIGNALLED = 128  # + the signal: 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP
INTERRUPTED = SIGNALLED + 2
INTERNAL_ERROR = 70  # a fault of mexsim's own, not of the input (sysexits' EX_SOFTWARE)
SHOW_TRACEBACK = "MEXSIM_TRACEBACK"  # set (to anything) to see an internal error's traceback
