#!/usr/bin/env bash
# Measures RetryLab's three proxies against nginx on loopback, all loaded by wrk:
#   direct         wrk -> nginx (one worker, return 200): the upstream of every proxy below
#   reverse        wrk -> retrylab proxy --upstream (no fault rule, its observer on) -> nginx
#   nginx_reverse  wrk -> nginx as a reverse proxy (one worker, keep-alive upstream) -> nginx
#   forward        wrk -> retrylab proxy --forward -> nginx; wrk sends absolute-form
#                  requests (GET http://127.0.0.1:PORT/status/200), as HTTP_PROXY clients do
#   nginx_forward  wrk -> nginx as a reverse proxy -> nginx, the same absolute-form requests
#   tcp            wrk -> retrylab proxy --tcp --upstream HOST:PORT (no toxic) -> nginx
#   nginx_stream   wrk -> nginx's stream proxy (one worker) -> nginx
# Requests per second at 64 connections, each target once per round (the order reversed
# every other round, so that drift weighs on all), and the median latency at one
# connection. Like is compared with like: the reverse proxy with nginx's reverse proxy,
# the forward and TCP proxies with nginx's stream proxy (and the forward one also with
# nginx's HTTP proxy given the same absolute-form requests). Writes JSON (--out).
#
# Usage: scripts/bench-proxy.sh [--quick] [--no-build] [--out FILE]
#   --quick     shorter and fewer load runs (a smoke run)
#   --no-build  use build-bench/bin/retrylab-cli as it is (scripts/bench.sh builds it first)
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
        sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
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
    ./scripts/deps.sh libnginx-mod-stream wrk jq
    cmake --preset bench >/dev/null
    cmake --build --preset bench --target retrylab-cli
fi

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

# Debian's nginx loads its stream module from libnginx-mod-stream.
stream_module=""
for so in /usr/lib/nginx/modules/ngx_stream_module.so /usr/share/nginx/modules/ngx_stream_module.so; do
    if [[ -f "$so" ]]; then
        stream_module="load_module $so;"
        break
    fi
done

# $1 folder, $2 the http block's body, $3 the stream block's body (optional)
start_nginx() {
    mkdir -p "$work/$1"
    {
        [[ -n "${3:-}" ]] && echo "$stream_module"
        cat <<CONF
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
CONF
        [[ -n "${3:-}" ]] && echo "stream { $3 }"
    } >"$work/$1/nginx.conf"
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

stream_port=$(free_port)
start_nginx stream "" "server { listen 127.0.0.1:$stream_port; proxy_pass 127.0.0.1:$direct_port; }"
stream="http://127.0.0.1:$stream_port"
wait_for "$stream"

cli="$build_dir/bin/retrylab-cli"
# $1 a name, then the arguments of retrylab proxy; prints the URL it listens on.
start_retrylab() {
    local name=$1 port
    shift
    "$cli" proxy --quiet "$@" >"$work/$name.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        grep -qE ' on (http://)?127\.0\.0\.1:[0-9]+' "$work/$name.out" && break
        sleep 0.1
    done
    port=$(grep -oE ' on (http://)?127\.0\.0\.1:[0-9]+' "$work/$name.out" | head -1 | grep -oE '[0-9]+$' || true)
    if [[ -z "$port" ]]; then
        echo "bench-proxy.sh: retrylab proxy $* did not print its address" >&2
        cat "$work/$name.out" >&2
        exit 1
    fi
    echo "http://127.0.0.1:$port"
}
# Not in $(...): the proxies must stay children of this shell, for the cleanup to end them.
start_retrylab reverse --upstream "$direct" >"$work/reverse.url"
start_retrylab forward --forward >"$work/forward.url"
start_retrylab tcp --tcp --listen "127.0.0.1:$(free_port)" --upstream "127.0.0.1:$direct_port" >"$work/tcp.url"
reverse=$(cat "$work/reverse.url")
forward=$(cat "$work/forward.url")
tcp=$(cat "$work/tcp.url")
wait_for "$reverse"
wait_for "$tcp"
curl -fsS -x "$forward" "$direct/status/200" >/dev/null

# Absolute-form requests for the forward proxies (GET http://host:port/path), as a client
# with HTTP_PROXY sends them; the Host field names the same host.
printf 'wrk.path = "%s/status/200"\nwrk.headers["Host"] = "127.0.0.1:%s"\n' "$direct" "$direct_port" >"$work/absolute.lua"

seconds=5
repetitions=4
((quick)) && seconds=2 && repetitions=2
connections=64
# $1 the URL, $2 the request form (origin or absolute), then wrk's options
wrk_run() {
    local url=$1 form=$2
    shift 2
    if [[ "$form" == absolute ]]; then
        wrk -t1 -s "$work/absolute.lua" "$@" "$url/status/200"
    else
        wrk -t1 "$@" "$url/status/200"
    fi
}
rps() {
    wrk_run "$1" "$2" -c"$connections" -d"${seconds}s" | awk '/^Requests\/sec:/ { print $2 }'
}
# wrk's median (50%) in milliseconds at one connection: the time a request takes, not queueing.
p50_ms() {
    wrk_run "$1" "$2" -c1 -d"${seconds}s" --latency |
        awk '$1 == "50%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } print v }'
}

# name, URL, request form
targets=(
    "direct $direct origin"
    "reverse $reverse origin"
    "nginx_reverse $reference origin"
    "forward $forward absolute"
    "nginx_forward $reference absolute"
    "tcp $tcp origin"
    "nginx_stream $stream origin"
)
declare -A rps_runs p50_runs
# Warm-up, not counted: a process's first second of load pages its code in and grows its heap.
for target in "${targets[@]}"; do
    read -r name url form <<<"$target"
    wrk_run "$url" "$form" -c"$connections" -d1s >/dev/null
done
for ((i = 0; i < repetitions; i++)); do
    # In order, then reversed, so that drift weighs on all.
    order=("${targets[@]}")
    if ((i % 2 == 1)); then
        order=()
        for ((k = ${#targets[@]} - 1; k >= 0; k--)); do
            order+=("${targets[k]}")
        done
    fi
    line=""
    for target in "${order[@]}"; do
        read -r name url form <<<"$target"
        r=$(rps "$url" "$form")
        p=$(p50_ms "$url" "$form")
        rps_runs[$name]+="${rps_runs[$name]:+,}$r"
        p50_runs[$name]+="${p50_runs[$name]:+,}$p"
        line+=" $name $r req/s, p50 $p ms;"
    done
    echo "   run $((i + 1)):$line" >&2
done

# $1 the name of an associative array of comma-separated runs: a JSON object of arrays.
runs_json() {
    local -n runs=$1
    local json="{" name
    for name in "${!runs[@]}"; do
        json+="\"$name\": [${runs[$name]}],"
    done
    echo "${json%,}}"
}
cpu_field() {
    grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'
}
jq -n --argjson rps "$(runs_json rps_runs)" --argjson p50 "$(runs_json p50_runs)" \
    --argjson seconds "$seconds" --argjson connections "$connections" --argjson cores "$(nproc)" \
    --arg cpu "$(cpu_field 'model name')" --arg family "$(cpu_field 'cpu family')" --arg model "$(cpu_field model)" \
    --arg spectre "$(cat /sys/devices/system/cpu/vulnerabilities/spectre_v2 2>/dev/null || echo unknown)" \
    --arg nginxVersion "$(nginx -v 2>&1)" --arg wrk "$(wrk --version 2>&1 | head -1)" \
    --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" '
    def mean: add / length;
    def ratio(a; b): ($rps[a] | add) / ($rps[b] | add);
    def added(a): ($p50[a] | mean) - ($p50.direct | mean);
    {
        date: $date, commit: $commit, cores: $cores,
        machine: { cpu: $cpu, cpu_family: $family, cpu_model: $model, spectre_v2: $spectre },
        nginx: $nginxVersion, wrk: $wrk,
        load_generator: ("wrk -t1 -c" + ($connections|tostring) + " -d" + ($seconds|tostring) + "s for requests/s; wrk -t1 -c1 --latency for the median"),
        setup: "retrylab-cli proxy --quiet (one thread forwarding, no fault rule, no toxic; the HTTP proxies with their observer on, grouping on a second thread) and nginx (worker_processes 1, access_log off) in front of one nginx (worker_processes 1, return 200): nginx as a reverse proxy with a keep-alive upstream (proxy_http_version 1.1, Connection \"\", keepalive 64), nginx stream with proxy_pass; the forward proxies loaded with absolute-form requests (a wrk script)",
        rps_runs: $rps, p50_ms_runs: $p50,
        rps: ($rps | map_values(mean)), p50_ms: ($p50 | map_values(mean)),
        reverse_vs_nginx_reverse: ratio("reverse"; "nginx_reverse"),
        forward_vs_nginx_stream: ratio("forward"; "nginx_stream"),
        forward_vs_nginx_forward: ratio("forward"; "nginx_forward"),
        tcp_vs_nginx_stream: ratio("tcp"; "nginx_stream"),
        added_p50_ms: { reverse: added("reverse"), nginx_reverse: added("nginx_reverse"), forward: added("forward"),
            nginx_forward: added("nginx_forward"), tcp: added("tcp"), nginx_stream: added("nginx_stream") },
        ratio: ratio("reverse"; "direct"),
        nginx_proxy_ratio: ratio("nginx_reverse"; "direct"),
        proxy_rps: ($rps.reverse | mean), direct_rps: ($rps.direct | mean), nginx_proxy_rps: ($rps.nginx_reverse | mean),
        target: "the reverse proxy >= 0.9 of nginx as a reverse proxy, adding < 0.2 ms at the median; the forward and TCP proxies against nginx stream, stated"
    }' >"$out"
