#!/usr/bin/env bash
# Installs what is missing, builds RetryLab and starts it. Arguments go to retrylab.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
./scripts/build.sh >/dev/null

if [[ $# -eq 0 && -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
    echo "No display found (DISPLAY is not set): running 'retrylab demo' in the terminal instead of the window."
    exec ./build/bin/retrylab demo
fi
exec ./build/bin/retrylab "$@"
