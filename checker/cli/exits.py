"""The exit codes of every command (README: 0 ok, 1 a finding, 2 bad input, 3 only UNKNOWN,
255 a bug in ruleproof)."""

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 255
