#!/bin/sh
# The main job: set up, then run every certification suite against the built-in emulators.
# Extra arguments go to `tablecert run`, e.g.  sh scripts/run.sh --profile device_profiles/emulated-midi-1.yaml
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
exec .venv/bin/tablecert run "$@"
