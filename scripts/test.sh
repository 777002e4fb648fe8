#!/bin/sh
# Set up, then lint (ruff), type-check (mypy) and run the tests (pytest).
# Extra arguments go to pytest, e.g.  sh scripts/test.sh -k royal9
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh test
status=0
echo "== ruff"; .venv/bin/ruff check harness tests benchmarks conftest.py || status=1
echo "== mypy"; .venv/bin/mypy || status=1
echo "== pytest"; .venv/bin/pytest -q "$@" || status=1
exit $status
