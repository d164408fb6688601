#!/usr/bin/env python3
"""Idle keep-alive connections held by `retrylab serve` (scripts/bench.sh, part 11).

Starts `retrylab serve --quiet --max-connections N+64 --idle-timeout 600000`,
opens N connections (default 10,000), sends GET /status/200 on each and reads the
answer, so that each is a kept-alive connection with a request behind it, and
leaves them idle. Then: the server's resident memory against before (bytes per
connection), 200 probes on a connection of their own (latency while the others are
held), a second request on every held connection (all must be answered), and
resident memory at the end. One thread on each side, as the server has.

Usage: scripts/bench-connections.py --binary PATH [--connections N] [--out FILE]
"""

import argparse
import json
import os
import re
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import time

REQUEST = b"GET /status/200 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def rss_kib(pid):
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def answer_complete(data):
    """Whether `data` holds one whole answer (status line, headers, Content-Length body)."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    match = re.search(rb"(?im)^content-length:\s*(\d+)\s*$", head)
    return match is None or len(body) >= int(match.group(1))


def request_all(sockets, timeout_s=60.0):
    """Sends REQUEST on every socket and reads one answer from each; returns how many came."""
    selector = selectors.DefaultSelector()
    pending = {}
    for s in sockets:
        s.sendall(REQUEST)
        pending[s.fileno()] = b""
        selector.register(s, selectors.EVENT_READ)
    answered = 0
    deadline = time.monotonic() + timeout_s
    while pending and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=1.0):
            s = key.fileobj
            chunk = s.recv(4096)
            if not chunk:
                selector.unregister(s)
                pending.pop(s.fileno(), None)
                continue
            pending[s.fileno()] += chunk
            if answer_complete(pending[s.fileno()]):
                if pending[s.fileno()].startswith(b"HTTP/1.1 200"):
                    answered += 1
                selector.unregister(s)
                pending.pop(s.fileno())
    selector.close()
    return answered


def probe(port, count):
    """Latency of `count` requests, one after another, on a connection of their own (ms)."""
    latencies = []
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(count):
            started = time.perf_counter()
            s.sendall(REQUEST)
            data = b""
            while not answer_complete(data):
                chunk = s.recv(4096)
                if not chunk:
                    raise RuntimeError("the probe connection was closed")
                data += chunk
            latencies.append((time.perf_counter() - started) * 1000.0)
    latencies.sort()
    return {"requests": count, "p50_ms": statistics.median(latencies),
            "p99_ms": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], "max_ms": latencies[-1]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="the retrylab (or retrylab-cli) binary")
    parser.add_argument("--connections", type=int, default=10_000)
    parser.add_argument("--out", default="-")
    args = parser.parse_args()
    n = args.connections
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < n + 256:
        sys.exit(f"bench-connections: {n} connections need a descriptor limit above {n + 256} (the hard limit is {hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    server = subprocess.Popen([args.binary, "serve", "--quiet", "--max-connections", str(n + 64),
                               "--idle-timeout", "600000"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        port = None
        started = time.monotonic()
        while port is None and time.monotonic() - started < 30:
            line = server.stdout.readline()
            if not line:
                break
            match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
            if match:
                port = int(match.group(1))
        if port is None:
            sys.exit("bench-connections: retrylab serve did not print its URL")
        probe(port, 20)  # the server's first answers, out of the way
        time.sleep(0.5)
        before = rss_kib(server.pid)

        sockets = []
        opened = time.monotonic()
        for _ in range(n):
            sockets.append(socket.create_connection(("127.0.0.1", port)))
        first_round = request_all(sockets)
        open_s = time.monotonic() - opened
        time.sleep(1.0)
        held = rss_kib(server.pid)
        probes = probe(port, 200)
        second_round = request_all(sockets)
        after = rss_kib(server.pid)
        for s in sockets:
            s.close()
        result = {
            "connections": n,
            "setup": "retrylab serve --quiet (one thread), each connection with one answered GET /status/200, then idle",
            "opened_and_answered_seconds": open_s,
            "first_round_answered": first_round,
            "rss_before_kib": before,
            "rss_held_kib": held,
            "bytes_per_connection": (held - before) * 1024 / n,
            "probe_while_held": probes,
            "second_round_answered": second_round,
            "rss_after_second_round_kib": after,
        }
    finally:
        server.terminate()
        server.wait(timeout=30)

    text = json.dumps(result, indent=2)
    if args.out == "-":
        print(text)
    else:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(f"   {n} idle keep-alive connections: +{(held - before) / 1024:.1f} MiB "
          f"({result['bytes_per_connection'] / 1024:.1f} KiB each); probe p50 {probes['p50_ms']:.2f} ms, "
          f"max {probes['max_ms']:.2f} ms; second round {second_round}/{n} answered", file=sys.stderr)
    if first_round != n or second_round != n:
        sys.exit("bench-connections: not every held connection was answered")


if __name__ == "__main__":
    main()
