#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (the fuzz preset, build-fuzz/)
# and runs each for a while, 20 seconds by default. Every target registered in
# fuzz/CMakeLists.txt is run; a crash, hang, sanitizer report or leak stops with an
# error and leaves the input in build-fuzz/artifacts/<target>/.
#
# Usage: scripts/fuzz.sh [--time SECONDS] [--merge] [TARGET...]
#   --time S   run each target for S seconds (default 20)
#   --merge    afterwards, minimize what was found into fuzz/corpus/<name>/ (-merge=1)
#   TARGET     fuzz_policyjson, fuzz_retryafter, ... (default: all)
#
# The seed corpus in fuzz/corpus/<name>/ (name = target without "fuzz_") is read,
# never written, unless --merge is given; new inputs collect in build-fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=20
merge=0
targets=()
while (($#)); do
    case "$1" in
    --time)
        seconds=${2:?--time needs a number of seconds}
        shift 2
        ;;
    --merge)
        merge=1
        shift
        ;;
    -h | --help)
        sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    -*)
        echo "fuzz.sh: unknown option $1" >&2
        exit 2
        ;;
    *)
        targets+=("$1")
        shift
        ;;
    esac
done
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds < 1)); then
    echo "fuzz.sh: --time must be a whole number of seconds (got \"$seconds\")" >&2
    exit 2
fi

# clang and its runtime (libFuzzer, the sanitizers) come with these two packages.
./scripts/deps.sh clang-14 libclang-rt-14-dev

build_dir=build-fuzz
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

# Every fuzzer is a CTest test with the label fuzz (fuzz/CMakeLists.txt); this
# script runs the binaries itself for its own duration, merge and summary.
mapfile -t known < <(ctest --preset fuzz --show-only 2>/dev/null | sed -nE 's/^ *Test +#[0-9]+: +(fuzz_[A-Za-z0-9_]+)$/\1/p')
if ((${#targets[@]} == 0)); then
    targets=("${known[@]}")
fi

export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

summary=()
status=0
for target in "${targets[@]}"; do
    binary="$build_dir/fuzz/$target"
    if [[ ! -x "$binary" ]]; then
        echo "fuzz.sh: no fuzz target \"$target\" (known: ${known[*]})" >&2
        exit 2
    fi
    name=${target#fuzz_}
    seeds="fuzz/corpus/$name"
    work="$build_dir/corpus/$name"
    artifacts="$build_dir/artifacts/$target"
    mkdir -p "$seeds" "$work" "$artifacts"
    options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192
        -print_final_stats=1 -artifact_prefix="$artifacts/")
    if [[ -f "fuzz/dict/$name.dict" ]]; then
        options+=(-dict="fuzz/dict/$name.dict")
    fi
    log="$build_dir/$target.log"
    echo "== $target: $seconds s (log: $log)"
    result=ok
    if ! "$binary" "${options[@]}" "$work" "$seeds" >"$log" 2>&1; then
        result="FAILED, see $log and $artifacts/"
        status=1
        grep -E "ERROR|invariant failed|runtime error|Test unit written" "$log" | head -5 || true
    fi
    # "#123 DONE cov: 530 ft: 1960 corp: 120/4Kb lim: 4096 exec/s: 41 rss: 60Mb"
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    runs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
    execs=$(sed -nE 's/.*exec\/s: ([0-9]+).*/\1/p' <<<"$last")
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$last")
    summary+=("$(printf '%-26s %10s %9s %6s %7s %6s  %s' "$target" "$runs" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result")")

    if ((merge)) && [[ "$result" == ok ]]; then
        merged=$(mktemp -d)
        "$binary" -merge=1 -max_len=8192 -timeout=10 -rss_limit_mb=2048 "$merged" "$seeds" "$work" >>"$log" 2>&1
        rm -f "$seeds"/*
        cp "$merged"/* "$seeds"/
        rm -rf "$merged"
        echo "   corpus minimized: $(find "$seeds" -type f | wc -l) files, $(du -sk "$seeds" | cut -f1) KiB in $seeds"
    fi
done

echo
printf '%-26s %10s %9s %6s %7s %6s  %s\n' target runs exec/s cov ft corpus result
printf '%s\n' "${summary[@]}"
exit $status
