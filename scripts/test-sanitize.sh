#!/usr/bin/env bash
# Builds RetryLab with AddressSanitizer + UndefinedBehaviorSanitizer (the asan
# preset, build-asan/) and runs every test under them. Any report fails the run:
# UBSan halts on the first error, ASan aborts, LeakSanitizer reports leaks at exit
# (the options are in the asan test preset). Nothing is suppressed: the suites run
# clean with Qt 6.4 as Debian ships it.
# Arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
./scripts/build.sh asan
ctest --preset asan "$@"
