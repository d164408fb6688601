#!/usr/bin/env bash
# Headless runs under valgrind memcheck; fails on a definite leak or a memory error.
#   1. `retrylab serve`, driven by curl through every endpoint, fault and malformed
#      request, then stopped with SIGTERM as a user would stop it.
#   2. soak_driver for a short while: the retry executor with the embedded fault
#      server in a thread, 30% of attempts failing, so that retries, timers,
#      several managers and the server's connection handling all run.
# Builds in build/ (the default preset, RelWithDebInfo: optimised, with debug
# information for the stacks).
#
# Usage: scripts/memcheck.sh [--seconds S]   (soak length under valgrind, default 20)
set -euo pipefail
cd "$(dirname "$0")/.."

soak_seconds=20
while (($#)); do
    case "$1" in
    --seconds)
        soak_seconds=${2:?--seconds needs a number}
        shift 2
        ;;
    -h | --help)
        sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "memcheck.sh: unknown argument $1" >&2
        exit 2
        ;;
    esac
done

./scripts/deps.sh valgrind

build_dir=build
cmake --preset default >/dev/null
cmake --build --preset default --target retrylab soak_driver

# PCRE2's JIT (behind QRegularExpression) generates code that valgrind cannot
# follow and reports as uninitialised jumps; Qt's own switch turns the JIT off.
export QT_ENABLE_REGEXP_JIT=0

logs=$build_dir/memcheck
mkdir -p "$logs"
valgrind_options=(--tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite --track-origins=yes --num-callers=30
    --error-exitcode=99)

# Prints "definite indirect possible errors" from a valgrind log.
leak_numbers() {
    local definite indirect possible errors
    definite=$(sed -nE 's/.*definitely lost: ([0-9,]+) bytes.*/\1/p' "$1" | tr -d , | tail -1)
    indirect=$(sed -nE 's/.*indirectly lost: ([0-9,]+) bytes.*/\1/p' "$1" | tr -d , | tail -1)
    possible=$(sed -nE 's/.*possibly lost: ([0-9,]+) bytes.*/\1/p' "$1" | tr -d , | tail -1)
    errors=$(sed -nE 's/.*ERROR SUMMARY: ([0-9,]+) errors.*/\1/p' "$1" | tr -d , | tail -1)
    echo "${definite:-0} ${indirect:-0} ${possible:-0} ${errors:-?}"
}

status=0
report=()

echo "== 1. retrylab serve under memcheck, driven by curl"
serve_out=$logs/serve.out
valgrind "${valgrind_options[@]}" --log-file="$logs/serve.valgrind" "$build_dir/bin/retrylab" serve --quiet >"$serve_out" 2>&1 &
serve_pid=$!
url=""
for _ in $(seq 600); do
    url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$serve_out" | head -1 || true)
    [[ -n "$url" ]] && break
    sleep 0.1
done
if [[ -z "$url" ]]; then
    echo "memcheck.sh: retrylab serve did not start under valgrind" >&2
    kill "$serve_pid" 2>/dev/null || true
    exit 1
fi
port=${url##*:}
requests=0
get() {
    curl -s -o /dev/null --max-time 30 "$@" || true
    requests=$((requests + 1))
}
# Raw bytes, for what curl will not send.
raw() {
    {
        exec 3<>"/dev/tcp/127.0.0.1/$port"
        printf '%b' "$1" >&3
        timeout 10 cat <&3 >/dev/null || true
        exec 3>&-
    } 2>/dev/null || true
    requests=$((requests + 1))
}
get "$url/"
for status_code in 200 429 503; do
    get "$url/status/$status_code?retry_after=1&ratelimit_reset=5"
done
get "$url/status/503?retry_after_date=Sun,%2006%20Nov%201994%2008:49:37%20GMT"
get "$url/status/999"
get "$url/delay/20"
get "$url/delay/30?dist=uniform&min=10"
get "$url/delay/30?dist=lognormal&sigma=0.5"
get "$url/delay/-5"
for _ in 1 2 3; do get "$url/fail/2?key=memcheck&retry_after=1"; done
for _ in 1 2 3 4; do get "$url/fail/3?key=chance&p=0.5"; done
for _ in 1 2 3; do get "$url/ratelimit?rps=1&burst=1&key=k"; done
for fault in reset "reset?when=after-headers" empty garbage "broken?total=100&sent=10" "drip?bytes=3&ms=5"; do
    get "$url/fault/$fault"
done
curl -s -o /dev/null --max-time 1 "$url/fault/stall" || true
get "$url/occ/counter"
etag=$(curl -s -D - -o /dev/null "$url/occ/counter" | tr -d '\r' | sed -nE 's/^ETag: (.*)/\1/Ip')
get -X PUT -H "If-Match: $etag" -H 'Content-Type: application/json' -d '{"value": 1}' "$url/occ/counter"
get -X PUT -H 'If-Match: "stale"' -d '{"value": 2}' "$url/occ/counter"
get -X PUT -d '{"x": 1}' "$url/eventual/thing?hidden_ms=10"
get "$url/eventual/thing"
test_id=$(curl -s -X POST -H 'Content-Type: application/json' -d '{"instructions": ["return-503", "reset", "return-429-after-1s*2", "pass"]}' \
    "$url/_control/tests" | sed -nE 's/.*"id": *"([^"]+)".*/\1/p')
for attempt in 1 2 3 4 5; do
    get -H "X-Retry-Test-Id: $test_id" -H "X-Retry-Request-Id: m-1" -H "X-Retry-Attempt: $attempt" "$url/status/200"
done
get -H "X-Retry-Test-Id: $test_id" -H "X-Retry-Request-Id: m-1" -H "X-Retry-Attempt: 5" "$url/status/200"
get "$url/_control/tests/$test_id"
get -X POST -H 'Content-Type: application/json' -d '{"instructions": ["no-such-step"]}' "$url/_control/tests"
get "$url/_control/log?since=0&limit=50"
get -X POST -d 'x' -H 'Transfer-Encoding: chunked' "$url/status/200"
raw 'GET /status/200 HTTP/1.1\r\nHost: x\r\n\r\nGET /status/201 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
raw 'NOT HTTP AT ALL\r\n\r\n'
raw 'GET / HTTP/3.0\r\nHost: x\r\n\r\n'
raw 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n'
raw "GET / HTTP/1.1\r\nHost: x\r\nX-Big: $(head -c 70000 /dev/zero | tr '\0' a)\r\n\r\n"
raw 'GET /status/200 HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc'
get -X POST -H 'Content-Type: application/json' "$url/_control/reset"
kill -TERM "$serve_pid"
serve_status=0
wait "$serve_pid" || serve_status=$?
read -r definite indirect possible errors < <(leak_numbers "$logs/serve.valgrind")
report+=("retrylab serve ($requests client requests): definitely lost $definite B, indirectly lost $indirect B, possibly lost $possible B, errors $errors, exit $serve_status")
if [[ "$definite" != 0 || "$errors" != 0 || "$serve_status" != 0 ]]; then
    status=1
fi

echo "== 2. soak_driver under memcheck for $soak_seconds s (executor + embedded server, retries)"
soak_status=0
valgrind "${valgrind_options[@]}" --log-file="$logs/soak.valgrind" "$build_dir/bin/soak_driver" \
    --seconds "$soak_seconds" --rate 10 --failure-rate 0.3 --warmup-seconds 5 --out "$logs/soak.json" || soak_status=$?
read -r definite indirect possible errors < <(leak_numbers "$logs/soak.valgrind")
summary=$(sed -nE 's/.*"submitted": ([0-9]+).*/submitted \1/p' "$logs/soak.json" | head -1)
report+=("soak_driver ($summary, $soak_seconds s): definitely lost $definite B, indirectly lost $indirect B, possibly lost $possible B, errors $errors, exit $soak_status")
if [[ "$definite" != 0 || "$errors" != 0 || "$soak_status" != 0 ]]; then
    status=1
fi

echo
printf '%s\n' "${report[@]}"
echo "valgrind logs: $logs/serve.valgrind, $logs/soak.valgrind"
exit $status
