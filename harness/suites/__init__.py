"""YAML certification suites, in three rooms: :mod:`.load` reads and checks suite files (the format,
named shoe stacks, whether a case applies), :mod:`.run` drives the devices through a case and records
it, and :mod:`.steps` holds the step registry and every step a suite may use."""
