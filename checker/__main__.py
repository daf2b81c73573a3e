"""`python -m checker` runs the ruleproof command line."""

from checker.cli import main

raise SystemExit(main())
