"""ruleproof: a model checker for the rules of tabletop games."""

__version__ = "0.1.0"
