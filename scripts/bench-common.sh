# shellcheck shell=bash
# What the benchmark scripts share (sourced by bench.sh, bench-proxy.sh, bench-callgrind.sh).

# A free TCP port below the kernel's ephemeral range, so that no client connection holds
# it as its local port (after a long run thousands do); free of any socket at all.
free_port() {
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
