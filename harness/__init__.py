"""tablecert: a certification test harness for casino table-game devices.

The package is layered so that verdicts rest on a pure core:

* ``harness.cards``, ``harness.games``, ``harness.progressive`` and ``harness.math`` know the
  regulations and do no I/O;
* ``harness.regulations`` holds the clause catalogue and the named interpretations;
* ``harness.devices`` and ``harness.emulators`` are the thin edges that touch ports;
* ``harness.suites``, ``harness.plugin`` and ``harness.record`` turn YAML suites into pytest items
  and evidence.
"""

__version__ = "0.1.0"
