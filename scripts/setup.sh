#!/bin/sh
# Create .venv in the checkout (if missing) and install tablecert into it.
# Usage: sh scripts/setup.sh [EXTRA]   e.g. sh scripts/setup.sh test
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
if [ -n "${1:-}" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$1]"
else
  .venv/bin/python -m pip install -q --disable-pip-version-check -e .
fi
