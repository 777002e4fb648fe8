"""Linked progressives: several tables on the common meters of one link controller (461a.12(c), (d)).

* :mod:`harness.link.rig`: a link profile's devices: the link controller and every table's shoe,
  sensors and controller (emulated: one process each, the tables reaching the controller over
  127.0.0.1), each table also as a single table's :class:`~harness.profiles.model.Profile`;
* :mod:`harness.link.steps`: the suite steps that certify a link (``suites/link/``);
* :mod:`harness.link.play`: rounds on several tables at once and the exact audit of every meter;
* :mod:`harness.selfcheck.link_variants`: compliant link profiles drawn from a seed (``tablecert variants``).

The profile format is :mod:`harness.profiles.linked`; the chances on a common meter are
:mod:`harness.math.link_exact`; the emulated link controller is
:mod:`harness.emulators.link_controller`.  docs/linked-progressives.md explains the whole.
"""
