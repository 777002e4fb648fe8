"""Run history: every finished record indexed in a database, and what changed between two runs.

The record on disk stays the source of truth: the index holds what a lab looks runs up by (run id,
folder, profile, device identities, verdict, counts, digest) and is rebuilt from the records with
``tablecert history --rebuild``.  By default it is an embedded SQLite file beside the reports
(``reports/history.sqlite``); a lab with several benches points every bench at one PostgreSQL server
by URL (``--db postgresql+psycopg://...`` or ``TABLECERT_HISTORY``), through the same code
(SQLAlchemy Core).

* :mod:`harness.history.index`: the tables, indexing a record folder, queries;
* :mod:`harness.history.diff`: the cases whose verdict or measurements changed between two records
  (pure: two records in, lines out).
"""
