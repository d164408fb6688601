#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
RETRYLAB_BUILD_DIR=${RETRYLAB_BUILD_DIR:-build} ./scripts/build.sh -DRETRYLAB_WERROR=ON -DRETRYLAB_BUILD_TESTS=ON
cd "${RETRYLAB_BUILD_DIR:-build}"
ctest --output-on-failure --timeout 600
