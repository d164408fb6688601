#!/usr/bin/env bash
# Configures and builds RetryLab in build/ (or $RETRYLAB_BUILD_DIR). Extra
# arguments go to CMake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${RETRYLAB_BUILD_DIR:-build}
generator=()
if [[ ! -f "$build_dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then
    generator=(-G Ninja)
fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" "$@"
cmake --build "$build_dir" -j"${RETRYLAB_JOBS:-2}"
