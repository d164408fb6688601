#!/usr/bin/env bash
# Configures and builds one of the presets of CMakePresets.json, "default" (the
# application in build/) unless named. Further arguments go to CMake's configure
# step. Usage: scripts/build.sh [PRESET] [-DOPTION=VALUE...]
# Two jobs unless CMAKE_BUILD_PARALLEL_LEVEL says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=default
if [[ $# -gt 0 && "$1" != -* ]]; then
    preset=$1
    shift
fi
cmake --preset "$preset" "$@"
cmake --build --preset "$preset"
