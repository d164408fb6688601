#!/usr/bin/env bash
# A soak run: requests at a steady rate for a long time through the retry
# executor against the embedded fault server, a share of them failing
# transiently (503). It checks that every request is accounted for (submitted ==
# finished, counted per outcome) and that none is stuck, and reports how memory
# grows after the warm-up. Builds soak_driver in build-bench/ (the bench preset).
#
# Usage: scripts/soak.sh [--minutes M] [--rate R] [--failure-rate P] [--out FILE]
#   defaults: 10 minutes, 50 requests per second, 30% failures, bench/soak-results.json
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=10
rate=50
failure_rate=0.3
out=bench/soak-results.json
while (($#)); do
    case "$1" in
    --minutes)
        minutes=${2:?--minutes needs a number}
        shift 2
        ;;
    --rate)
        rate=${2:?--rate needs a number}
        shift 2
        ;;
    --failure-rate)
        failure_rate=${2:?--failure-rate needs a number}
        shift 2
        ;;
    --out)
        out=${2:?--out needs a file}
        shift 2
        ;;
    -h | --help)
        sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "soak.sh: unknown argument $1" >&2
        exit 2
        ;;
    esac
done
if ! [[ "$minutes" =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "soak.sh: --minutes must be a positive number (got \"$minutes\")" >&2
    exit 2
fi
seconds=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
((seconds > 0)) || {
    echo "soak.sh: --minutes must be above 0" >&2
    exit 2
}

./scripts/deps.sh jq

build_dir=build-bench
cmake --preset bench >/dev/null
cmake --build --preset bench --target soak_driver

echo "== soak: $seconds s at $rate requests/s, $failure_rate of attempts failing (503)"
mkdir -p "$(dirname "$out")"
status=0
"$build_dir/bin/soak_driver" --seconds "$seconds" --rate "$rate" --failure-rate "$failure_rate" --out "$out" || status=$?

jq -r '
    "submitted          \(.submitted)",
    "finished           \(.finished)  \(.outcomes | to_entries | map("\(.key) \(.value)") | join(", "))",
    "attempts           \(.attempts)  \(.attempts_by_status | to_entries | map("\(.key): \(.value)") | join(", "))",
    "stuck              \(.stuck) at the end, at most \(.stuck_during_run) during the run; finished twice or unknown: \(.finished_twice_or_unknown)",
    "request time       p50 \(.request_ms_p50 | floor) ms, p99 \(.request_ms_p99 | floor) ms, max \(.request_ms_max | floor) ms",
    "memory             RSS \(.rss_first_kib) -> \(.rss_last_kib) KiB; after the \(.warmup_seconds | floor) s warm-up: RSS \(.rss_growth_kib_per_min * 10 | round / 10) KiB/min, heap \(.heap_growth_kib_per_min * 10 | round / 10) KiB/min",
    "every request accounted for: \(.accounted)"
' "$out"
exit $status
