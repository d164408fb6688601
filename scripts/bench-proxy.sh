#!/usr/bin/env bash
# Measures the fault proxy against nginx on loopback, all loaded by wrk:
#   direct      wrk -> nginx (one worker, return 200)
#   retrylab    wrk -> retrylab proxy --quiet (no fault rule, its observer on) -> nginx
#   reference   wrk -> nginx as a reverse proxy (proxy_pass, keep-alive upstream) -> nginx
# Requests per second at 64 connections (A/B/C, then reversed, so that drift weighs
# on all), and the median latency at one connection. Writes JSON (--out) and prints it.
#
# Usage: scripts/bench-proxy.sh [--quick] [--no-build] [--out FILE]
#   --quick     shorter and fewer load runs (a smoke run)
#   --no-build  use build-bench/bin/retrylab as it is (scripts/bench.sh builds it first)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
build=1
out=/dev/stdout
while (($#)); do
    case "$1" in
    --quick)
        quick=1
        shift
        ;;
    --no-build)
        build=0
        shift
        ;;
    --out)
        out=${2:?--out needs a file}
        shift 2
        ;;
    -h | --help)
        sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "bench-proxy.sh: unknown argument $1" >&2
        exit 2
        ;;
    esac
done

build_dir=build-bench
if ((build)); then
    ./scripts/deps.sh nginx-light wrk jq
    cmake --preset bench >/dev/null
    cmake --build --preset bench --target retrylab
fi

work=$(mktemp -d)
pids=()
cleanup() {
    ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    # Below the kernel's ephemeral range, so that no client connection holds it as
    # its local port (after a long run thousands do); free of any socket at all.
    local low port
    low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    ((low > 21000)) || low=60000
    while :; do
        port=$((20000 + RANDOM % (low - 20000)))
        if ! ss -Htan "sport = :$port" | grep -q .; then
            echo "$port"
            return
        fi
    done
}

# $1 folder, $2 the server block's body
start_nginx() {
    mkdir -p "$work/$1"
    cat >"$work/$1/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/$1/nginx.pid;
error_log $work/$1/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $work/$1/body;
    proxy_temp_path $work/$1/proxy;
$2
}
EOF
    nginx -p "$work/$1" -e "$work/$1/error.log" -c "$work/$1/nginx.conf" &
    pids+=($!)
}

wait_for() {
    for _ in $(seq 100); do
        curl -fsS "$1/status/200" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "bench-proxy.sh: $1 does not answer" >&2
    exit 1
}

direct_port=$(free_port)
start_nginx direct "    server { listen 127.0.0.1:$direct_port; location / { default_type application/json; return 200 '{\"status\":200}\n'; } }"
direct="http://127.0.0.1:$direct_port"
wait_for "$direct"

reference_port=$(free_port)
start_nginx reference "    upstream up { server 127.0.0.1:$direct_port; keepalive 64; }
    server { listen 127.0.0.1:$reference_port; location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection \"\"; } }"
reference="http://127.0.0.1:$reference_port"
wait_for "$reference"

"$build_dir/bin/retrylab" proxy --quiet --upstream "$direct" >"$work/proxy.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    grep -q 'proxy on http://' "$work/proxy.out" && break
    sleep 0.1
done
proxy=$(grep -oE 'proxy on http://127\.0\.0\.1:[0-9]+' "$work/proxy.out" | head -1 | cut -d' ' -f3)
[[ -n "$proxy" ]] || {
    echo "bench-proxy.sh: retrylab proxy did not print its URL" >&2
    cat "$work/proxy.out" >&2
    exit 1
}
wait_for "$proxy"

seconds=5
repetitions=4
((quick)) && seconds=2 && repetitions=2
connections=64
rps() {
    wrk -t1 -c"$connections" -d"${seconds}s" "$1/status/200" | awk '/^Requests\/sec:/ { print $2 }'
}
# wrk's median (50%) in milliseconds at one connection: the time a request takes, not queueing.
p50_ms() {
    wrk -t1 -c1 -d"${seconds}s" --latency "$1/status/200" |
        awk '$1 == "50%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } print v }'
}
proxy_rps=()
direct_rps=()
reference_rps=()
proxy_p50=()
direct_p50=()
for ((i = 0; i < repetitions; i++)); do
    if ((i % 2 == 0)); then
        proxy_rps+=("$(rps "$proxy")")
        direct_rps+=("$(rps "$direct")")
        reference_rps+=("$(rps "$reference")")
        proxy_p50+=("$(p50_ms "$proxy")")
        direct_p50+=("$(p50_ms "$direct")")
    else
        reference_rps+=("$(rps "$reference")")
        direct_rps+=("$(rps "$direct")")
        proxy_rps+=("$(rps "$proxy")")
        direct_p50+=("$(p50_ms "$direct")")
        proxy_p50+=("$(p50_ms "$proxy")")
    fi
    echo "   run $((i + 1)): retrylab proxy ${proxy_rps[-1]} req/s (p50 ${proxy_p50[-1]} ms), nginx directly ${direct_rps[-1]} req/s (p50 ${direct_p50[-1]} ms), nginx as a proxy ${reference_rps[-1]} req/s" >&2
done

list() {
    local IFS=,
    echo "[$*]"
}
jq -n --argjson proxy "$(list "${proxy_rps[@]}")" --argjson direct "$(list "${direct_rps[@]}")" \
    --argjson reference "$(list "${reference_rps[@]}")" \
    --argjson proxyP50 "$(list "${proxy_p50[@]}")" --argjson directP50 "$(list "${direct_p50[@]}")" \
    --argjson seconds "$seconds" --argjson connections "$connections" --argjson cores "$(nproc)" \
    --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" '{
        date: $date, commit: $commit, cores: $cores,
        load_generator: ("wrk -t1 -c" + ($connections|tostring) + " -d" + ($seconds|tostring) + "s for requests/s; wrk -t1 -c1 --latency for the median"),
        setup: "retrylab proxy --quiet (one thread, no fault rule, its observer on) in front of nginx (worker_processes 1, return 200), against the same nginx directly; nginx as a reverse proxy (one worker, keep-alive upstream) for reference",
        proxy_rps_runs: $proxy, direct_rps_runs: $direct, nginx_proxy_rps_runs: $reference,
        proxy_rps: ($proxy | add / length), direct_rps: ($direct | add / length),
        nginx_proxy_rps: ($reference | add / length),
        ratio: (($proxy | add) / ($direct | add)),
        nginx_proxy_ratio: (($reference | add) / ($direct | add)),
        proxy_p50_ms_runs: $proxyP50, direct_p50_ms_runs: $directP50,
        added_p50_ms: (($proxyP50 | add / length) - ($directP50 | add / length)),
        target: "ratio >= 0.5 at 64 connections; added median latency < 1 ms"
    }' >"$out"
