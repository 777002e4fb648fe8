"""Exact game math: integer counts over every ordering of the shoe, and house edges as fractions.

Pure (no I/O); the ``tablecert math`` command and the certification suites read these numbers and
compare them with the published figures (Wizard of Odds' baccarat appendix and EZ Baccarat pages).
"""
