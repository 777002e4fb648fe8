#!/bin/sh
# The README's test command: set up, then lint (ruff), type-check (mypy), run the fast tier of the
# tests (pytest: every test not marked `slow`) and check clause coverage.  The slow tier (tests
# marked `slow`: the bench twins' verdicts, the kill and mutation samples, ...), the main job, the
# variant matrix and the kill matrix run in CI (.ci/run, which runs this first); the tiers are
# described in benchmarks/README.md.
# Extra arguments go to pytest, e.g.  sh scripts/test.sh -k royal9   (or -m slow: the slow tier)
set -eu
cd "$(dirname "$0")/.."
# Python may cache compiled modules here (.gitignore keeps them out of git): with
# PYTHONDONTWRITEBYTECODE set, every pytest, emulator and `tablecert run` process this starts
# compiles and assertion-rewrites some 250 modules again (about a third of a short run's CPU)
unset PYTHONDONTWRITEBYTECODE
sh scripts/setup.sh test
# The report tests render in headless Chromium (Debian's package). Install it when we can (root
# with apt-get, as in CI); elsewhere the tests skip unless CI is set.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing chromium for the report test"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "chromium could not be installed; the report test will say so"
fi
status=0
echo "== ruff"; .venv/bin/ruff check harness tests benchmarks conftest.py || status=1
# mypy (one process, most of a minute on a fresh clone) checks beside the tests, which leave a core
# idle while they wait on devices; its output is printed after theirs.  Three workers on two cores: with
# two the tier kept the cores 83% busy (it waits on emulators too): 271 s with two, 202 s with three
mypy_out=$(mktemp)
.venv/bin/mypy >"$mypy_out" 2>&1 &
mypy_pid=$!
echo "== pytest (fast tier: tests not marked slow)"
sh scripts/pytest-tier.sh -q -n 3 -m "not slow" "$@" || status=1
echo "== mypy"
wait "$mypy_pid" || status=1
cat "$mypy_out"; rm -f "$mypy_out"
echo "== clause coverage"; .venv/bin/tablecert coverage --uncovered || status=1
exit $status
