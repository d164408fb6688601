#!/usr/bin/env bash
# Installs what is missing, builds RetryLab and starts it. Arguments go to retrylab.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "RetryLab: installing the Debian packages that are missing (scripts/deps.sh)..."
./scripts/deps.sh
# The build is minutes of compiler lines on a fresh machine: its output goes to a log,
# and its progress to the terminal.
mkdir -p build
log=build/run-build.log
echo "RetryLab: building the application in build/ (several minutes the first time; the log is $log)..."
if ! ./scripts/build.sh 2>&1 | tee "$log" | ./scripts/progress.sh building; then
    echo "RetryLab: the build failed; the end of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
fi
echo "RetryLab: built; starting it."

if [[ $# -eq 0 && -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
    echo "No display found (DISPLAY is not set): running 'retrylab demo' in the terminal instead of the window."
    exec ./build/bin/retrylab demo
fi
exec ./build/bin/retrylab "$@"
