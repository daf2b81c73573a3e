"""Errata workflow: citation drift (`drift`), accepted-findings baselines (`baseline`) and
the semantic diff of two versions of a ruleset (`diff`)."""
