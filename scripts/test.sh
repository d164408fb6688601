#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors and runs every test:
# the tests preset (build-tests/, unoptimised: the suites mostly wait on loopback
# I/O, and this compiles in a fraction of the time of the optimised build that
# scripts/run.sh makes in build/), two suites at a time (the tests preset; the longest
# carry a COST so that they start first). Arguments go to ctest (-R tst_foo, -L ..., -j1).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
./scripts/build.sh tests
ctest --preset tests "$@"
