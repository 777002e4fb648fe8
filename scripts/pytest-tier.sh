#!/bin/sh
# pytest with its arguments, where "no test selected" (exit 5: a tier with nothing in it, or a -k
# that selects only tests of the other tier) is not a failure; every other exit is pytest's.
cd "$(dirname "$0")/.."
rc=0
.venv/bin/pytest "$@" || rc=$?
if [ "$rc" -eq 5 ]; then
  echo "(no test selected in this tier: not a failure)"
  rc=0
fi
exit "$rc"
