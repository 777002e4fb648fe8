"""Randomness a lab can sign: the statistical battery, its power planning and its inputs.

* :mod:`~harness.randomness.stats`: the tests (chi-square with pooled cells, Kolmogorov-Smirnov,
  runs, serial correlation, card positions, position correlation, adjacent pairs, rising
  sequences, repeated shuffles),
  each stating its null hypothesis.
* :mod:`~harness.randomness.power`: sample sizes for at least the planned power against each
  declared defect, and the power a given sample has.
* :mod:`~harness.randomness.models`: shuffler models (uniform, riffle passes, biased cut, stuck
  card, short-period generator), vectorised with numpy; the emulator and the planning share them.
* :mod:`~harness.randomness.observations`: the plain data a battery reads (shuffles as pre/post
  orders, card sequences read from a shoe, mystery awards), whoever collected it: the emulator,
  the soak, or an operator on a bench.
* :mod:`~harness.randomness.settings`: confidence, power and declared defect sizes from the
  profile or the jurisdiction.
* :mod:`~harness.randomness.battery`: runs a battery on one sample with a multiple-testing
  correction and gives PASS, FAIL or INCONCLUSIVE (with the number of observations still needed).
* :mod:`~harness.randomness.confirm`: the two-stage (confirmation) procedure every battery's verdict
  goes through: a rejection is a FAIL only when an independent second sample rejects too.
* :mod:`~harness.randomness.plan`: ``tablecert plan-randomness``.
* :mod:`~harness.randomness.evidence`: a verdict as record measurements (one ``statistical-test``
  measurement per test, which the report draws: :mod:`harness.record.statistics`), and the
  mystery battery over a soak's awards.
* :mod:`~harness.randomness.svg`: the histogram of observed against expected as record data.
"""
