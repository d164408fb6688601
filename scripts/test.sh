#!/usr/bin/env bash
# Installs what is missing, builds every suite with warnings as errors under
# AddressSanitizer + UndefinedBehaviorSanitizer (the asan preset, build-asan/) and runs
# them all, three at a time. Any report fails the run: UBSan halts on the first error,
# ASan aborts, LeakSanitizer reports leaks at exit (the options are in the asan test
# preset); nothing is suppressed. The preset is a unity build, which compiles the
# libraries in a third of the time (HACKING.md, "Development").
# Arguments go to ctest (-R tst_foo, -L ..., -j1); without any, the Debian packages are
# made and checked afterwards (scripts/package.sh). For a quicker loop while editing,
# the tests preset builds the same suites with precompiled headers and no sanitizers:
#   cmake --workflow --preset tests
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
./scripts/build.sh asan
# deps.sh installed every third-party tool the suites drive (curl, nginx, node,
# Python packages, Locust, ...): one that is missing now fails its test, naming
# the package, instead of skipping it (tests/tools/requiredtool.h).
export RETRYLAB_REQUIRE_TOOLS=1
ctest --preset asan "$@"

# The whole run (no ctest arguments, as CI runs it) also makes the Debian packages when
# dpkg-deb is there (deps.sh installs it): scripts/package.sh builds the two programs
# optimised in build-package/ (a unity build, no suites), lints the packages and runs
# retrylab-cli from them unpacked.
if [[ $# -eq 0 ]] && command -v dpkg-deb >/dev/null; then
    ./scripts/package.sh --no-deps
fi
