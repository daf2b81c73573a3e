"""The spec stages: YAML → tree with source map (`source`), schema (`schema`), rulebook
text (`text`), expressions (`expr`), validation and lowering to the IR (`lower`)."""
