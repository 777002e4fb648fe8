"""Root conftest: registers the tablecert pytest plugin for runs from a checkout.

The installed package registers the same plugin through the ``pytest11`` entry point under the
name ``harness.plugin``; pytest skips a plugin already registered under that name, so both paths
load it exactly once.
"""

pytest_plugins = ["harness.plugin"]
