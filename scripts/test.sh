#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
# Its own build directory, unoptimised and without debug information (Q_ASSERT on):
# the suites mostly wait on loopback I/O, and this compiles in a fraction of the time
# of the optimised build that scripts/run.sh makes in build/.
build_dir=${RETRYLAB_BUILD_DIR:-build-tests}
RETRYLAB_BUILD_DIR=$build_dir CMAKE_BUILD_TYPE=Debug ./scripts/build.sh \
    -DRETRYLAB_WERROR=ON -DRETRYLAB_BUILD_TESTS=ON -DCMAKE_CXX_FLAGS_DEBUG=-O0
cd "$build_dir"
ctest --output-on-failure --timeout 600
