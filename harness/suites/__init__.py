"""YAML certification suites: the format (:mod:`.steps`, :mod:`.schema`), named shoe stacks
(:mod:`.stacks`), and the step runner that drives devices and records measurements."""
