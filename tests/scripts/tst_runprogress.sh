#!/usr/bin/env bash
# scripts/run.sh and scripts/progress.sh: on a fresh machine the build takes minutes, and
# run.sh says what it is doing and shows the build's progress instead of staying silent.
# run.sh runs in a copy of the scripts where deps.sh and build.sh are stand-ins (a build
# that prints ninja's lines, or one that fails) and the program only prints its arguments.
# Usage: tst_runprogress.sh SOURCE_DIR
set -uo pipefail

src=${1:?usage: tst_runprogress.sh SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

failures=0
passed=0
check() { # NAME CONDITION-EXIT-STATUS
    if [[ $2 -eq 0 ]]; then
        echo "PASS: $1"
        passed=$((passed + 1))
    else
        echo "FAIL: $1"
        failures=$((failures + 1))
    fi
}
contains() { grep -qF -- "$2" <<<"$1"; }

# progress.sh alone: a line at each tenth of the way when not on a terminal, nothing else.
ninja_lines() {
    for ((i = 1; i <= $1; i++)); do
        echo "[$i/$1] Building CXX object core/part$i.cpp.o"
        echo "warning: something the compiler said about part $i"
    done
}
out=$(ninja_lines 200 | "$src/scripts/progress.sh" compiling)
check "progress: one line per tenth, eleven at most" $(( $(wc -l <<<"$out") <= 11 ? 0 : 1 ))
contains "$out" "  compiling: 200 of 200 steps (100 %)"; check "progress: ends at 100 %" $?
! contains "$out" "warning:"; check "progress: the build's own lines are not shown" $?
out=$(printf 'no progress here\n' | "$src/scripts/progress.sh")
check "progress: nothing to show, nothing shown" $([[ -z $out ]] && echo 0 || echo 1)

# run.sh in a copy whose heavy parts are stand-ins.
tree=$tmp/tree
mkdir -p "$tree/scripts" "$tree/build/bin"
cp "$src/scripts/run.sh" "$src/scripts/progress.sh" "$tree/scripts/"
printf '#!/usr/bin/env bash\nexit 0\n' >"$tree/scripts/deps.sh"
cat >"$tree/scripts/build.sh" <<'STUB'
#!/usr/bin/env bash
if [[ -n ${STUB_FAIL:-} ]]; then
    echo "[1/3] Building CXX object a.cpp.o"
    echo "a.cpp:1:1: error: expected something"
    exit 1
fi
for i in 1 2 3 4; do echo "[$i/4] Building CXX object part$i.cpp.o"; done
STUB
printf '#!/usr/bin/env bash\necho "started with: $*"\n' >"$tree/build/bin/retrylab"
chmod +x "$tree/scripts/"*.sh "$tree/build/bin/retrylab"

out=$(DISPLAY=:0 "$tree/scripts/run.sh" --version 2>&1)
status=$?
check "run: succeeds" $status
contains "$out" "RetryLab: installing the Debian packages that are missing"; check "run: says it installs" $?
contains "$out" "RetryLab: building the application in build/"; check "run: says it builds" $?
contains "$out" "  building: 4 of 4 steps (100 %)"; check "run: shows the build's progress" $?
! contains "$out" "Building CXX object"; check "run: keeps the compiler lines in the log" $?
grep -qF "[4/4] Building CXX object part4.cpp.o" "$tree/build/run-build.log"; check "run: the log has them" $?
contains "$out" "started with: --version"; check "run: starts the program with its arguments" $?

out=$(STUB_FAIL=1 DISPLAY=:0 "$tree/scripts/run.sh" 2>&1)
status=$?
check "run: a failed build fails" $([[ $status -ne 0 ]] && echo 0 || echo 1)
contains "$out" "RetryLab: the build failed"; check "run: says the build failed" $?
contains "$out" "a.cpp:1:1: error: expected something"; check "run: shows the end of the log" $?
! contains "$out" "started with"; check "run: does not start a program it could not build" $?

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
