#!/usr/bin/env bash
# Builds RetryLab with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/
# and runs every test under them. Any report fails the run: UBSan halts on the
# first error, ASan aborts, LeakSanitizer reports leaks at exit. Nothing is
# suppressed: the suites run clean with Qt 6.4 as Debian ships it.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh

build_dir=${RETRYLAB_ASAN_BUILD_DIR:-build-asan}
# -O0 -g1: with the sanitizers gcc takes two to three times longer at -O1 -g, and CI
# time matters more than the speed of suites that mostly wait on loopback I/O;
# line tables are all the sanitizer stacks need.
RETRYLAB_BUILD_DIR=$build_dir CMAKE_BUILD_TYPE=Debug ./scripts/build.sh \
    -DRETRYLAB_SANITIZE=ON -DRETRYLAB_WERROR=ON -DRETRYLAB_BUILD_TESTS=ON -DRETRYLAB_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

cd "$build_dir"
ctest --output-on-failure --timeout 900
