#!/usr/bin/env bash
# Counts, under callgrind, the instructions and the indirect branches (calls and jumps
# through a pointer: virtual calls, signal-slot dispatch, calls through the PLT) that one
# request costs RetryLab's fault server and its three proxies on their hot path, GET
# /status/200 with keep-alive. Where the kernel mitigates Spectre v2 with retpolines
# (/sys/devices/system/cpu/vulnerabilities/spectre_v2), each indirect branch costs a
# return-stack trick instead of a predicted jump, so their count weighs there.
#
# Each process runs under `valgrind --tool=callgrind --branch-sim=yes`; after a
# warm-up its counters are zeroed (callgrind_control --zero), wrk sends requests for
# a few seconds at 8 connections, the counters are dumped, and the totals are divided by
# the requests wrk saw answered. The upstream of the proxies is nginx, not counted.
#
# Usage: scripts/bench-callgrind.sh [--no-build] [--seconds N] [--out FILE]
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
seconds=4
out=/dev/stdout
while (($#)); do
    case "$1" in
    --no-build)
        build=0
        shift
        ;;
    --seconds)
        seconds=${2:?--seconds needs a number}
        shift 2
        ;;
    --out)
        out=${2:?--out needs a file}
        shift 2
        ;;
    -h | --help)
        sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "bench-callgrind.sh: unknown argument $1" >&2
        exit 2
        ;;
    esac
done

build_dir=build-bench
if ((build)); then
    ./scripts/deps.sh valgrind wrk jq
    cmake --preset bench >/dev/null
    cmake --build --preset bench --target retrylab-cli
fi
cli="$build_dir/bin/retrylab-cli"

work=$(mktemp -d)
pids=()
cleanup() {
    ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=scripts/bench-common.sh
source scripts/bench-common.sh # the working directory is the checkout

upstream_port=$(free_port)
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    server { listen 127.0.0.1:$upstream_port; location / { default_type application/json; return 200 '{"status":200}\n'; } }
}
CONF
nginx -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" &
pids+=($!)
upstream="http://127.0.0.1:$upstream_port"
for _ in $(seq 100); do
    curl -fsS "$upstream/status/200" >/dev/null 2>&1 && break
    sleep 0.1
done
printf 'wrk.path = "%s/status/200"\nwrk.headers["Host"] = "127.0.0.1:%s"\n' "$upstream" "$upstream_port" >"$work/absolute.lua"

# $1 a name, $2 the request form (origin or absolute), then the command's arguments, where
# @PORT@ stands for the port it listens on. Prints a JSON object of the counts per request.
measure() {
    local name=$1 form=$2 port url pid script=() requests args=()
    shift 2
    port=$(free_port)
    for arg in "$@"; do
        args+=("${arg//@PORT@/$port}")
    done
    valgrind --tool=callgrind --branch-sim=yes --callgrind-out-file="$work/$name.%p.out" \
        "$cli" "${args[@]}" --quiet >"$work/$name.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    url="http://127.0.0.1:$port"
    [[ "$form" == absolute ]] && script=(-s "$work/absolute.lua")
    for _ in $(seq 300); do
        if [[ "$form" == absolute ]]; then
            curl -fsS -x "$url" "$upstream/status/200" >/dev/null 2>&1 && break
        else
            curl -fsS "$url/status/200" >/dev/null 2>&1 && break
        fi
        sleep 0.2
    done
    wrk -t1 -c8 -d2s "${script[@]}" "$url/status/200" >/dev/null # warm-up: heaps grown, code paged in
    callgrind_control --zero "$pid" >/dev/null 2>&1
    requests=$(wrk -t1 -c8 -d"${seconds}s" "${script[@]}" "$url/status/200" | awk '/requests in/ { print $1 }')
    callgrind_control --dump="$name" "$pid" >/dev/null 2>&1
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    local dump
    dump=$(ls -t "$work/$name.$pid.out."* 2>/dev/null | head -1)
    [[ -n "$dump" ]] || {
        echo "bench-callgrind.sh: no callgrind dump for $name" >&2
        cat "$work/$name.log" >&2
        exit 1
    }
    # The summary line holds the totals in the order of the events line (Ir Bc Bcm Bi Bim),
    # as callgrind_annotate's PROGRAM TOTALS.
    awk -v requests="$requests" -v name="$name" '
        /^events:/ { for (i = 2; i <= NF; i++) event[i - 1] = $i }
        /^summary:/ { for (i = 2; i <= NF; i++) total[event[i - 1]] = $i }
        END {
            printf "{\"name\": \"%s\", \"requests\": %d, \"instructions_per_request\": %.0f, \"indirect_branches_per_request\": %.1f, \"conditional_branches_per_request\": %.0f}\n",
                name, requests, total["Ir"] / requests, total["Bi"] / requests, total["Bc"] / requests
        }' "$dump"
}

{
    measure serve origin serve --port @PORT@
    measure reverse origin proxy --listen 127.0.0.1:@PORT@ --upstream "$upstream"
    measure forward absolute proxy --listen 127.0.0.1:@PORT@ --forward
    measure tcp origin proxy --listen 127.0.0.1:@PORT@ --tcp --upstream "127.0.0.1:$upstream_port"
} >"$work/rows.json"

jq -s --arg spectre "$(cat /sys/devices/system/cpu/vulnerabilities/spectre_v2 2>/dev/null || echo unknown)" \
    --arg valgrind "$(valgrind --version)" --argjson seconds "$seconds" '{
        method: ("valgrind --tool=callgrind --branch-sim=yes; counters zeroed after a warm-up, then wrk -t1 -c8 -d" + ($seconds|tostring) + "s GET /status/200 (keep-alive); totals of the whole process (every thread) over the requests wrk saw answered"),
        valgrind: $valgrind, spectre_v2: $spectre,
        per_request: (map({ (.name): (del(.name)) }) | add)
    }' "$work/rows.json" >"$out"
