#!/bin/sh
# The main job: set up, then run every certification suite against the built-in emulators.
# Extra arguments go to `tablecert run`, e.g.  sh scripts/run.sh --profile device_profiles/emulated-midi-1.yaml
set -eu
cd "$(dirname "$0")/.."
# Python may cache compiled modules here (.gitignore keeps them out of git): with
# PYTHONDONTWRITEBYTECODE set, every pytest, emulator and `tablecert run` process this starts
# compiles and assertion-rewrites some 250 modules again (about a third of a short run's CPU)
unset PYTHONDONTWRITEBYTECODE
sh scripts/setup.sh
# four profiles at once: a profile's run waits on its devices about three quarters of its time (the
# emulated-midi-5 run: 14.5 s of CPU in 31.8 s), so four keep two cores busy; `--jobs 1` after it overrides
exec .venv/bin/tablecert run --jobs 4 "$@"
