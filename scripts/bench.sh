#!/usr/bin/env bash
# Measures RetryLab's speed: installs what is missing (nginx, wrk, jq), builds a
# release build in build-bench/ (the bench preset), runs the benchmark programs,
# writes bench/results.json and prints a table. Every figure is a ratio or a
# distribution taken within one run, because the machine may be shared and noisy.
#
#   1. executor requests/s against raw QNetworkAccessManager     bench_executor --part overhead
#   2. backoff timer precision, 1,000 concurrent requests          bench_executor --part timers
#   3. 10,000 and 100,000 requests failing twice: memory           bench_executor --part scale
#   4. fault server requests/s against nginx (both load by wrk)    retrylab-cli serve, nginx
#   5. herd simulator, default OCC grid                            bench_herdsimulator --models occ
#   6. error-log model, 1,000,000 attempt rows: append, filter     bench_views --no-proxies
#   7. observer: 10,000 / 100,000 attempts grouped and judged      bench_observe
#   8. the reverse, forward and TCP proxies in front of nginx,     scripts/bench-proxy.sh
#      against nginx's reverse and stream proxies (wrk)
#   9. startup: window first paint and ready server; --version     scripts/bench-startup.py
#  10. herd simulator, a million clients in one run                 bench_herdsimulator --million
#  11. fault server holding 10,000 idle keep-alive connections       scripts/bench-connections.py
#  12. backoff timers with the window live (1,000 requests), and    bench_windowtimers
#      a batch of 1,000 started with Send batch: its first attempts
#  13. monitor engine: 10,000 endpoints at a 10 s interval, 5 min     bench_monitor --part engine
#  14. monitor history: 100 monitors x 30 days (26 M checks)          bench_monitor --part history
#  15. the window with 1,000 monitors and a month's history shown     bench_windowtimers --monitors
#  16. a collection of 1,000 requests with scripts: retrylab run, newman  bench_collectionrun
#  17. instructions and indirect branches per request of the fault   scripts/bench-callgrind.sh
#      server and the proxies (callgrind)
# The machine's CPU (family, model) and its Spectre v2 mitigation go with the figures:
# where retpolines mitigate it, every indirect call (a virtual call, a signal) costs more.
#
# Usage: scripts/bench.sh [--quick] [--only-monitor] [--only-collection] [--only-servers] [--out FILE]
#   --quick            fewer repetitions and shorter load runs (a smoke run, not for bench/README.md)
#   --only-monitor     run 13 to 15 only, and put their figures into the results file that is there
#   --only-collection  run 16 only, likewise
#   --only-servers     run 4, 8 and 17 only (the fault server and the proxies against nginx, in
#                      one run), likewise
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
only_monitor=0
only_collection=0
only_servers=0
out=bench/results.json
while (($#)); do
    case "$1" in
    --quick)
        quick=1
        shift
        ;;
    --only-monitor)
        only_monitor=1
        shift
        ;;
    --only-collection)
        only_collection=1
        shift
        ;;
    --only-servers)
        only_servers=1
        shift
        ;;
    --out)
        out=${2:?--out needs a file}
        shift 2
        ;;
    -h | --help)
        sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "bench.sh: unknown argument $1" >&2
        exit 2
        ;;
    esac
done

./scripts/deps.sh libnginx-mod-stream wrk jq xvfb valgrind

build_dir=build-bench
cmake --preset bench >/dev/null
if ((only_monitor)); then
    cmake --build build-bench -j2 --target bench_monitor bench_windowtimers
elif ((only_collection)); then
    cmake --build build-bench -j2 --target bench_collectionrun retrylab-cli
elif ((only_servers)); then
    cmake --build build-bench -j2 --target retrylab-cli
else
    cmake --build --preset bench
fi

work=$(mktemp -d)
server_pid=""
nginx_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
    [[ -n "$nginx_pid" ]] && kill "$nginx_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

cpu_field() {
    grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'
}
cpu_name=$(cpu_field 'model name')
cpu_family=$(cpu_field 'cpu family')
cpu_model=$(cpu_field model)
spectre_v2=$(cat /sys/devices/system/cpu/vulnerabilities/spectre_v2 2>/dev/null || echo unknown)
machine_json() {
    jq -n --arg cpu "$cpu_name" --arg family "$cpu_family" --arg model "$cpu_model" --arg spectre "$spectre_v2" \
        --argjson cores "$(nproc)" --arg load "$1" \
        '{ cpu: $cpu, cpu_family: $family, cpu_model: $model, spectre_v2: $spectre, cores: $cores, load_average: $load }'
}
echo "== machine: $(nproc) cores, $cpu_name (family $cpu_family, model $cpu_model), Spectre v2: $spectre_v2"
echo "   load average $(cut -d' ' -f1-3 /proc/loadavg)"
load_before=$(cut -d' ' -f1 /proc/loadavg)
quick_flag=()
((quick)) && quick_flag=(--quick)

# shellcheck source=scripts/bench-common.sh
source scripts/bench-common.sh # the working directory is the checkout

run_server_benchmark() {
    echo "== 4. fault server against nginx, both loaded by wrk on loopback"
    "$build_dir/bin/retrylab-cli" serve --quiet >"$work/serve.out" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do
        grep -q 'http://' "$work/serve.out" && break
        sleep 0.1
    done
    fault_url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$work/serve.out" | head -1)
    [[ -n "$fault_url" ]] || {
        echo "bench.sh: retrylab serve did not print its URL" >&2
        cat "$work/serve.out" >&2
        exit 1
    }

    nginx_port=$(free_port)
    mkdir -p "$work/nginx"
    # One worker, like the fault server's one thread; no access log, like serve --quiet.
    cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    server {
        listen 127.0.0.1:$nginx_port;
        location / {
            default_type application/json;
            return 200 '{"status":200}\n';
        }
    }
}
EOF
    nginx -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" &
    nginx_pid=$!
    for _ in $(seq 100); do
        curl -fsS "http://127.0.0.1:$nginx_port/status/200" >/dev/null 2>&1 && break
        sleep 0.1
    done
    curl -fsS "http://127.0.0.1:$nginx_port/status/200" >/dev/null
    curl -fsS "$fault_url/status/200" >/dev/null

    wrk_seconds=5
    repetitions=4
    ((quick)) && wrk_seconds=2 && repetitions=2
    connections=64
    wrk_rps() {
        wrk -t1 -c"$connections" -d"${wrk_seconds}s" "$1/status/200" | awk '/^Requests\/sec:/ { print $2 }'
    }
    # Warm-up, not counted: each server's first seconds of load also grow its heap (the
    # fault server's log fills to its capacity) and page its code in.
    for url in "$fault_url" "http://127.0.0.1:$nginx_port"; do
        wrk -t1 -c"$connections" -d2s "$url/status/200" >/dev/null
    done
    fault_runs=()
    nginx_runs=()
    for ((i = 0; i < repetitions; i++)); do
        # A/B, then B/A, so that drift weighs on both.
        if ((i % 2 == 0)); then
            fault_runs+=("$(wrk_rps "$fault_url")")
            nginx_runs+=("$(wrk_rps "http://127.0.0.1:$nginx_port")")
        else
            nginx_runs+=("$(wrk_rps "http://127.0.0.1:$nginx_port")")
            fault_runs+=("$(wrk_rps "$fault_url")")
        fi
        echo "   run $((i + 1)): fault server ${fault_runs[-1]} req/s, nginx ${nginx_runs[-1]} req/s"
    done
    kill "$server_pid" "$nginx_pid" 2>/dev/null || true
    wait "$server_pid" "$nginx_pid" 2>/dev/null || true
    server_pid=""
    nginx_pid=""
    jq -n --argjson fault "[$(
        IFS=,
        echo "${fault_runs[*]}"
    )]" --argjson nginx "[$(
        IFS=,
        echo "${nginx_runs[*]}"
    )]" --arg wrk "$(wrk --version 2>&1 | head -1)" --arg nginxVersion "$(nginx -v 2>&1)" \
        --argjson seconds "$wrk_seconds" --argjson connections "$connections" '{
            load_generator: ("wrk -t1 -c" + ($connections|tostring) + " -d" + ($seconds|tostring) + "s, keep-alive, GET /status/200"),
            wrk: $wrk, nginx: $nginxVersion,
            servers: "retrylab-cli serve --quiet (one thread) and nginx with worker_processes 1, access_log off, return 200 with the same JSON body",
            fault_server_rps_runs: $fault, nginx_rps_runs: $nginx,
            fault_server_rps: ($fault | add / length), nginx_rps: ($nginx | add / length),
            ratio: (($fault | add) / ($nginx | add))
        }' >"$work/servers.json"
}

server_rows='
    def f(d): (. * pow(10; d) | round) / pow(10; d);
    ("Machine: \(.machine.cores) cores, \(.machine.cpu) (family \(.machine.cpu_family), model \(.machine.cpu_model)); Spectre v2: \(.machine.spectre_v2)"),
    ("| 4 | fault server vs nginx, requests/s (wrk, 64 connections) | \(."4_fault_server_vs_nginx".ratio | f(3)) (\(."4_fault_server_vs_nginx".fault_server_rps | f(0)) vs \(."4_fault_server_vs_nginx".nginx_rps | f(0))) | >= 0.7 |"),
    (."8_fault_proxy" | "| 8 | reverse proxy vs nginx as a reverse proxy (one worker, keep-alive upstream), both in front of the same nginx, requests/s (wrk, 64 connections); median latency each adds over that nginx directly (1 connection) | \(.reverse_vs_nginx_reverse | f(3)) (\(.rps.reverse | f(0)) vs \(.rps.nginx_reverse | f(0)); nginx directly \(.rps.direct | f(0))); +\(.added_p50_ms.reverse | f(3)) ms (nginx +\(.added_p50_ms.nginx_reverse | f(3)) ms) | >= 0.9; < 0.2 ms |"),
    (."8_fault_proxy" | "| 8b | forward proxy (absolute-form requests) and TCP proxy vs nginx'"'"'s stream proxy, in front of the same nginx | forward \(.forward_vs_nginx_stream | f(3)) (\(.rps.forward | f(0)) vs \(.rps.nginx_stream | f(0)); against nginx'"'"'s HTTP proxy given the same requests \(.forward_vs_nginx_forward | f(3))), +\(.added_p50_ms.forward | f(3)) ms; TCP \(.tcp_vs_nginx_stream | f(3)) (\(.rps.tcp | f(0))), +\(.added_p50_ms.tcp | f(3)) ms (nginx stream +\(.added_p50_ms.nginx_stream | f(3)) ms) | stated |"),
    ("| 17 | per request of GET /status/200 with keep-alive, the whole process (callgrind) | " + ([."17_hot_path_counts".per_request | to_entries[] | "\(.key) \(.value.instructions_per_request | f(0)) instructions, \(.value.indirect_branches_per_request | f(0)) indirect branches"] | join("; ")) + " | fewer |")
'
monitor_rows='
    def f(d): (. * pow(10; d) | round) / pow(10; d);
    ("| 13 | monitor engine: \(."13_monitor_engine".monitors) endpoints on the fault server every \(."13_monitor_engine".intervalMs / 1000) s for \(."13_monitor_engine".durationS | f(0)) s, a fifth retried | \(."13_monitor_engine".checks) checks (\(."13_monitor_engine".checksPerSecond | f(0))/s, \(."13_monitor_engine".attemptsPerCheck | f(2)) attempts each); CPU \(."13_monitor_engine".cpuMicrosecondsPerCheck | f(0)) us per check (\(."13_monitor_engine".coresBusy | f(2)) cores); peak RSS \(."13_monitor_engine".peakResidentKiB / 1024 | f(0)) MiB, \(."13_monitor_engine".bytesPerMonitor / 1024 | f(1)) KiB per monitor; late start p50 \(."13_monitor_engine".lateP50Ms | f(1)) ms, p99 \(."13_monitor_engine".lateP99Ms | f(1)) ms, max \(."13_monitor_engine".lateMaxMs | f(0)) ms | p99 < 50 ms |"),
    ("| 14 | monitor history: \(."14_monitor_history".monitors) monitors x \(."14_monitor_history".days) days at 10 s, SQLite | \(."14_monitor_history".checks) checks written at \(."14_monitor_history".checksWrittenPerSecond | f(0))/s; \(."14_monitor_history".bytesPerAttempt | f(1)) bytes per stored attempt; one monitor'"'"'s \(."14_monitor_history".days) days (availability, \(."14_monitor_history".oneMonitorIncidents) incidents) \(."14_monitor_history".oneMonitorWindowMs | f(1)) ms (with percentiles \(."14_monitor_history".oneMonitorWindowWithPercentilesMs | f(0)) ms); every monitor'"'"'s 24 h \(."14_monitor_history".allMonitorsDayMs | f(0)) ms (with percentiles \(."14_monitor_history".allMonitorsDayWithPercentilesMs | f(0)) ms); what-if of one monitor'"'"'s \(."14_monitor_history".days) days \(."14_monitor_history".whatIfWindowMs | f(0)) ms | <= 64 B; < 200 ms; < 1 s; < 2 s |"),
    ("| 15 | the window with \(."15_monitor_window".monitors) monitors checking the embedded server every 10 s, the Monitors tab and a 30-day history taking turns, 1,000 requests failing twice meanwhile | frames drawn in \(."15_monitor_window".frame_draw_ms.p99 | f(1)) ms at p99; window thread stalls p99 \(."15_monitor_window".gui_thread_stall_ms.p99 | f(1)) ms; backoff lateness p99 \(."15_monitor_window".window_lateness_ms.p99 | f(2)) ms (without the window \(."15_monitor_window".headless_lateness_ms.p99 | f(2)) ms); a month of one monitor (\(."15_monitor_window".history_month_points) checks) read and drawn in \(."15_monitor_window".history_month_load_ms | f(0)) ms, one draw \(."15_monitor_window".history_month_draw_ms.p50 | f(1)) ms | < 33 ms; < 2 ms; < 300 ms |")
'
run_monitor_benchmarks() {
    echo "== 13-14. monitor engine and history"
    "$build_dir/bin/bench_monitor" --part engine "${quick_flag[@]}" --out "$work/monitor-engine.json"
    "$build_dir/bin/bench_monitor" --part history "${quick_flag[@]}" --out "$work/monitor-history.json"
    echo "== 15. the window with 1,000 monitors and a month of history shown"
    QT_QPA_PLATFORM=offscreen "$build_dir/bench/bench_windowtimers" --requests 1000 --monitors 1000 \
        --out "$work/monitor-window.json" 2>&1 | grep -v "propagateSizeHints\|XDG_RUNTIME_DIR\|does not support"
}

collection_rows='
    def f(d): (. * pow(10; d) | round) / pow(10; d);
    ("| 16 | a Postman collection of \(."16_collection_run".requests) requests in 10 folders, a pre-request script and two pm.tests each, against the fault server; each runner a process of its own, median of \(."16_collection_run".rounds) | retrylab run \(."16_collection_run".retrylab.wallMs / 1000 | f(2)) s (\(."16_collection_run".retrylab.msPerRequest | f(2)) ms a request), CPU \(."16_collection_run".retrylab.cpuSeconds | f(2)) s, peak RSS \(."16_collection_run".retrylab.maxRssKiB / 1024 | f(0)) MiB; with the JSON report and JUnit \(."16_collection_run".retrylabWithReports.wallMs / 1000 | f(2)) s, \(."16_collection_run".retrylabWithReports.maxRssKiB / 1024 | f(0)) MiB; newman 6 \(."16_collection_run".newman.wallMs / 1000 | f(2)) s, CPU \(."16_collection_run".newman.cpuSeconds | f(2)) s, \(."16_collection_run".newman.maxRssKiB / 1024 | f(0)) MiB; time ratio \(."16_collection_run".wallRatio | f(2)), memory ratio \(."16_collection_run".rssRatio | f(2)) | time and memory stated; newman the anchor |")
'
run_collection_benchmark() {
    echo "== 16. a collection of 1,000 requests: retrylab run and newman 6"
    tests/tools/install-node-tools.sh "$build_dir/node-tools" >/dev/null
    "$build_dir/bin/bench_collectionrun" --cli "$build_dir/bin/retrylab-cli" \
        --newman "$build_dir/node-tools/node_modules/.bin/newman" --requests 1000 \
        --rounds "$( ((quick)) && echo 1 || echo 3)" --out "$work/collection.json" 2>&1 | grep -v "file descriptor limit"
}

if ((only_collection)); then
    run_collection_benchmark
    [[ -f "$out" ]] || echo '{}' >"$out"
    jq --slurpfile collection "$work/collection.json" \
        --arg commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
        '. + { "16_collection_run": ($collection[0] + { commit: $commit, quick: ('"$quick"' == 1) }) }' \
        "$out" >"$work/merged.json"
    mv "$work/merged.json" "$out"
    jq -r "$collection_rows" "$out"
    exit 0
fi

if ((only_servers)); then
    run_server_benchmark
    echo "== 8. the proxies in front of nginx, against nginx's own"
    ./scripts/bench-proxy.sh --no-build "${quick_flag[@]}" --out "$work/proxy.json"
    echo "== 17. instructions and indirect branches per request (callgrind)"
    ./scripts/bench-callgrind.sh --no-build --out "$work/callgrind.json"
    [[ -f "$out" ]] || echo '{}' >"$out"
    machine_json "$load_before -> $(cut -d' ' -f1 /proc/loadavg)" >"$work/machine.json"
    jq --slurpfile servers "$work/servers.json" --slurpfile proxy "$work/proxy.json" \
        --slurpfile callgrind "$work/callgrind.json" --slurpfile machine "$work/machine.json" \
        --arg commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
        --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        '. + { machine: ((.machine // {}) + ($machine[0] | { cpu, cpu_family, cpu_model, spectre_v2 })),
               "4_fault_server_vs_nginx": ($servers[0] + { commit: $commit, date: $date, quick: ('"$quick"' == 1),
                   target: ">= 0.7", machine: $machine[0] }),
               "8_fault_proxy": ($proxy[0] + { quick: ('"$quick"' == 1), machine: $machine[0] }),
               "17_hot_path_counts": ($callgrind[0] + { commit: $commit, date: $date, machine: $machine[0] }) }' \
        "$out" >"$work/merged.json"
    mv "$work/merged.json" "$out"
    jq -r "$server_rows" "$out"
    exit 0
fi

if ((only_monitor)); then
    run_monitor_benchmarks
    [[ -f "$out" ]] || echo '{}' >"$out"
    jq --slurpfile engine "$work/monitor-engine.json" --slurpfile history "$work/monitor-history.json" \
        --slurpfile window "$work/monitor-window.json" \
        --arg commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
        '. + { "13_monitor_engine": ($engine[0].engine + { commit: $commit, quick: ('"$quick"' == 1) }),
               "14_monitor_history": ($history[0].history + { commit: $commit, quick: ('"$quick"' == 1) }),
               "15_monitor_window": ($window[0] + { commit: $commit, quick: ('"$quick"' == 1) }) }' \
        "$out" >"$work/merged.json"
    mv "$work/merged.json" "$out"
    jq -r "$monitor_rows" "$out"
    exit 0
fi

echo "== 1-3. retry executor (fault server in a child process)"
# Memory first, in a process of its own, so that its peak is its own.
"$build_dir/bin/bench_executor" --part scale "${quick_flag[@]}" --out "$work/scale.json"
"$build_dir/bin/bench_executor" --part scale --scale-requests "$( ((quick)) && echo 20000 || echo 100000)" --out "$work/scale100k.json"
"$build_dir/bin/bench_executor" --part overhead "${quick_flag[@]}" --out "$work/overhead.json"
"$build_dir/bin/bench_executor" --part timers "${quick_flag[@]}" --out "$work/timers.json"

run_server_benchmark

echo "== 5. herd simulator, default OCC grid"
"$build_dir/bin/bench_herdsimulator" --models occ --repeat "$( ((quick)) && echo 1 || echo 3)" --out "$work/sim.json"

echo "== 6. error-log model, 1,000,000 attempt rows"
QT_QPA_PLATFORM=offscreen "$build_dir/bench/bench_views" --no-proxies --rows "$( ((quick)) && echo 200000 || echo 1000000)" \
    --out "$work/views.txt" --json "$work/views.json" 2>&1 | grep -E "ingest, total|append to|model filter|per row|per attempt row" || true

echo "== 7. observer: grouping, inference and verdicts"
"$build_dir/bench/bench_observe" --out "$work/observe.json"

echo "== 8. the proxies in front of nginx, against nginx's own"
./scripts/bench-proxy.sh --no-build "${quick_flag[@]}" --out "$work/proxy.json"

echo "== 9. startup: the window (embedded server ready, first paint) and --version"
python3 scripts/bench-startup.py --bin "$build_dir/bin" --runs "$( ((quick)) && echo 5 || echo 15)" --out "$work/startup.json"

echo "== 10. herd simulator, a million clients in one run"
"$build_dir/bin/bench_herdsimulator" --million --out "$work/million.json"

echo "== 11. fault server holding 10,000 idle keep-alive connections"
python3 scripts/bench-connections.py --binary "$build_dir/bin/retrylab" --connections 10000 --out "$work/connections.json"

echo "== 12. backoff timers while the window draws the run"
QT_QPA_PLATFORM=offscreen "$build_dir/bench/bench_windowtimers" --requests 1000 --out "$work/windowtimers.json" 2>&1 | grep -v "propagateSizeHints\|XDG_RUNTIME_DIR"

run_monitor_benchmarks
run_collection_benchmark

echo "== 17. instructions and indirect branches per request (callgrind)"
./scripts/bench-callgrind.sh --no-build --out "$work/callgrind.json"

load_after=$(cut -d' ' -f1 /proc/loadavg)
machine_json "$load_before -> $load_after" >"$work/machine.json"
mkdir -p "$(dirname "$out")"
jq -n \
    --slurpfile scale "$work/scale.json" --slurpfile overhead "$work/overhead.json" \
    --slurpfile scale100k "$work/scale100k.json" \
    --slurpfile timers "$work/timers.json" --slurpfile servers "$work/servers.json" \
    --slurpfile sim "$work/sim.json" --slurpfile views "$work/views.json" \
    --slurpfile observe "$work/observe.json" --slurpfile proxy "$work/proxy.json" \
    --slurpfile startup "$work/startup.json" --slurpfile million "$work/million.json" \
    --slurpfile connections "$work/connections.json" --slurpfile windowtimers "$work/windowtimers.json" \
    --slurpfile monitorengine "$work/monitor-engine.json" --slurpfile monitorhistory "$work/monitor-history.json" \
    --slurpfile monitorwindow "$work/monitor-window.json" --slurpfile collection "$work/collection.json" \
    --slurpfile callgrind "$work/callgrind.json" --slurpfile machine "$work/machine.json" \
    --arg commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson quick "$quick" '{
        date: $date, commit: $commit, quick: ($quick == 1),
        machine: $machine[0],
        qt: $overhead[0].qt,
        "1_executor_overhead": { target: ">= 0.98 at 6, 48 and 256", server: $overhead[0].server, runs: $overhead[0].overhead,
            ratio: ($overhead[0].overhead | map(.ratio) | min) },
        "2_timer_precision": ($timers[0].timers + { target: "p99 within 2 ms (default policy)" }),
        "3_scale": $scale[0].scale,
        "3b_scale_100k": $scale100k[0].scale,
        "4_fault_server_vs_nginx": ($servers[0] + { target: ">= 0.7" }),
        "5_simulator_occ": ($sim[0].models[0] + { cores: $sim[0].cores }),
        "6_error_log_model": $views[0],
        "7_observer": ($observe[0] + { target: "10,000 attempts grouped and judged in under 1 s; linear" }),
        "8_fault_proxy": $proxy[0],
        "9_startup": $startup[0],
        "10_herd_million": ($million[0] + { target: "1,000,000 clients, one run, one strategy: <= 10 s and <= 2 GiB" }),
        "11_idle_connections": ($connections[0] + { target: "10,000 idle keep-alive connections on one thread, bounded memory" }),
        "12_window_timers": $windowtimers[0],
        "13_monitor_engine": $monitorengine[0].engine,
        "14_monitor_history": $monitorhistory[0].history,
        "15_monitor_window": $monitorwindow[0],
        "16_collection_run": $collection[0],
        "17_hot_path_counts": $callgrind[0]
    }' >"$out"

echo
echo "Results (written to $out):"
jq -r '
    def f(d): (. * pow(10; d) | round) / pow(10; d);
    "| # | figure | measured | target |",
    "|---|---|---|---|",
    ("| 1 | executor vs raw QNetworkAccessManager, requests/s (every first attempt succeeds) | " +
        ([."1_executor_overhead".runs[] | "\(.ratio | f(3)) at concurrency \(.concurrency) (\(.executor_rps | f(0)) vs \(.raw_rps | f(0)); fed one at a time as raw Qt is \(.ratio_fed | f(3)), and without the X-Retry headers \(.ratio_fed_without_attempt_headers | f(3)); CPU per request, both processes, raw over executor \(.cpu_ratio | f(3)) (\(.raw_cpu_us_per_request | f(0)) vs \(.executor_cpu_us_per_request | f(0)) us) with \(.raw_cores_busy | f(2)) cores busy; heap per request in flight \(.executor_heap_per_in_flight_bytes / 1024 | f(1)) KiB vs \(.raw_heap_per_in_flight_bytes / 1024 | f(1)) KiB)"] | join("; ")) +
        " | >= 0.98 |"),
    ("| 2 | backoff timer: actual - planned, 1,000 requests x 2 retries, default policy (2^n s + U[0, 1 s]) | p50 \(."2_timer_precision".google_default.lateness_ms.p50 | f(2)) ms, p99 \(."2_timer_precision".google_default.lateness_ms.p99 | f(2)) ms, max \(."2_timer_precision".google_default.lateness_ms.max | f(2)) ms | p99 <= 2 ms |"),
    ("| 2b | the same, full jitter U[0, 1 s] (3,000 attempts within about a second) | p50 \(."2_timer_precision".full_jitter.lateness_ms.p50 | f(2)) ms, p99 \(."2_timer_precision".full_jitter.lateness_ms.p99 | f(2)) ms, max \(."2_timer_precision".full_jitter.lateness_ms.max | f(2)) ms | (for comparison) |"),
    ("| 2c | the same without jitter (all 1,000 wake at once) | p50 \(."2_timer_precision".herd_no_jitter.lateness_ms.p50 | f(2)) ms, p99 \(."2_timer_precision".herd_no_jitter.lateness_ms.p99 | f(2)) ms, max \(."2_timer_precision".herd_no_jitter.lateness_ms.max | f(2)) ms | (for comparison) |"),
    ("| 3 | \(."3_scale".requests) concurrent requests, each failing twice | \(."3_scale".succeeded) succeeded in \(."3_scale".seconds | f(1)) s; peak RSS \(."3_scale".peak_rss_kib / 1024 | f(0)) MiB, +\((."3_scale".peak_rss_kib - ."3_scale".baseline_rss_kib) / 1024 | f(1)) MiB = \(."3_scale".rss_bytes_per_request / 1024 | f(1)) KiB per request (heap \(."3_scale".heap_bytes_per_request / 1024 | f(1)) KiB) | all complete |"),
    ("| 3b | \(."3b_scale_100k".requests) logical requests, each failing twice, \(."3b_scale_100k".concurrency_limit) in flight at most | \(."3b_scale_100k".succeeded) succeeded in \(."3b_scale_100k".seconds | f(1)) s; peak RSS \(."3b_scale_100k".peak_rss_kib / 1024 | f(0)) MiB, \(."3b_scale_100k".rss_bytes_per_request / 1024 | f(2)) KiB per request (heap \(."3b_scale_100k".heap_bytes_per_request / 1024 | f(2)) KiB); after completion the heap keeps +\(."3b_scale_100k".heap_retained_bytes / 1048576 | f(1)) MiB, and \(."3b_scale_100k".second_pass_requests) more requests add \(."3b_scale_100k".heap_growth_in_second_pass_bytes / 1048576 | f(2)) MiB | all complete; no growth after |"),
    ("| 5 | herd simulator, default OCC grid (19 x 6 x 100 runs) | \(."5_simulator_occ".single_thread.seconds_min | f(2)) s on 1 thread, \(."5_simulator_occ".all_cores.seconds_min | f(2)) s on \(."5_simulator_occ".cores) | time |"),
    ("| 6 | error-log model, \(."6_error_log_model".rows | f(0)) rows: append, filter | append \(."6_error_log_model".append_ms | f(0)) ms (\(."6_error_log_model".append_ns_per_row | f(0)) ns/row), outcome filter \(."6_error_log_model".filter_outcome_ms | f(1)) ms, text filter \(."6_error_log_model".filter_text_ms | f(1)) ms; \(."6_error_log_model".resident_bytes_per_row_with_model | f(0)) bytes/row | time, memory |"),
    ("| 7 | observer: 10,000 attempts grouped, inferred and judged; 100,000 | \(."7_observer".attempts10k.totalMs | f(1)) ms (group \(."7_observer".attempts10k.groupMs | f(1)), judge \(."7_observer".attempts10k.inferAndJudgeMs | f(1))); 100,000: \(."7_observer".attempts100k.totalMs | f(0)) ms, ratio \(."7_observer".ratio100kTo10k | f(2)); flood of 100,000 unrelated: \(."7_observer".flood100kMs | f(0)) ms | < 1 s, linear |"),
    ("| 9 | startup, launch to window built with its server listening, and to first paint (\(."9_startup".display)); retrylab-cli --version | warm median: server ready \(."9_startup".warm.window_and_server_ms.median | f(0)) ms, first paint \(."9_startup".warm.first_paint_ms.median | f(0)) ms (p90 \(."9_startup".warm.first_paint_ms.p90 | f(0)) ms); cold: \(."9_startup".cold.first_paint_ms | f(0)) ms; --version warm median \(."9_startup".cli_version_ms.warm.median | f(1)) ms, cold \(."9_startup".cli_version_ms.cold | f(1)) ms | < 500 ms warm; < 50 ms |"),
    (."10_herd_million".models[] | "| 10 | herd of 1,000,000 clients, \(.model) model, one run per strategy, one thread | " +
        ([.runs[] | "\(.strategy) \(.seconds | f(2)) s (\(.events_per_second / 1e6 | f(1)) M events/s, \(.peak_rss_kib / 1024 | f(0)) MiB)"] | join("; ")) +
        "; as one grid on all cores: \(.grid_all_cores_seconds | f(1)) s vs \(.grid_single_thread_seconds | f(1)) s on one\(if .same_csv then ", the same results" else ", RESULTS DIFFER" end) | <= 10 s, <= 2 GiB |"),
    ("| 11 | fault server holding \(."11_idle_connections".connections) idle keep-alive connections (one thread) | +\((."11_idle_connections".rss_held_kib - ."11_idle_connections".rss_before_kib) / 1024 | f(0)) MiB, \(."11_idle_connections".bytes_per_connection / 1024 | f(1)) KiB per connection; a probe meanwhile: p50 \(."11_idle_connections".probe_while_held.p50_ms | f(2)) ms, max \(."11_idle_connections".probe_while_held.max_ms | f(1)) ms; a second request on each: \(."11_idle_connections".second_round_answered) answered | bounded memory |"),
    ("| 12 | backoff timers with the window live: 1,000 requests failing twice, default policy, the timeline following the live edge and the error log the newest row (offscreen), the executor on a thread of its own; actual - planned | p50 \(."12_window_timers".window_lateness_ms.p50 | f(2)) ms, p99 \(."12_window_timers".window_lateness_ms.p99 | f(2)) ms, max \(."12_window_timers".window_lateness_ms.max | f(1)) ms; the same requests on the main thread without a window: p99 \(."12_window_timers".headless_lateness_ms.p99 | f(2)) ms; timeline frames drawn in p50 \(."12_window_timers".timeline_frame_draw_ms.p50 | f(1)) ms, p99 \(."12_window_timers".timeline_frame_draw_ms.p99 | f(1)) ms, one every \(."12_window_timers".timeline_frame_interval_ms.p50 | f(0)) ms (p99 \(."12_window_timers".timeline_frame_interval_ms.p99 | f(0)) ms); window thread kept busy: p99 \(."12_window_timers".gui_thread_stall_ms.p99 | f(1)) ms, max \(."12_window_timers".gui_thread_stall_ms.max | f(0)) ms; \(."12_window_timers".reports_per_batch | f(1)) reports per batch | p99 <= 2 ms; frames < 33 ms |"),
    ("| 12b | a batch of \(."12_window_timers".batch_first_attempts_window_ms.count) requests started with Send batch, the timeline live (offscreen): from the click to each first attempt on the wire | within \(."12_window_timers".batch_first_attempts_window_ms.max | f(0)) ms (p50 \(."12_window_timers".batch_first_attempts_window_ms.p50 | f(0)) ms); the same requests submitted headless: within \(."12_window_timers".batch_first_attempts_headless_ms.max | f(0)) ms | <= 150 ms |")
' "$out"
jq -r "$server_rows" "$out"
jq -r "$monitor_rows" "$out"
jq -r "$collection_rows" "$out"
