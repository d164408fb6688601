#!/usr/bin/env python3
"""Hostile clients against `retrylab serve`, with the figures of HACKING.md ("Hostile clients").

Each attack runs against a fresh server started with a soft descriptor limit of
1024 (Linux's default), which the server raises to the hard limit itself:

  slowloris   N connections (default 2500, more than the 2048 cap) send an
              incomplete request and then one byte every 5 s; meanwhile a plain
              client sends GET /status/200 ten times a second and times the answer
              (so that it also asks while the header deadlines of some 2,000 slow
              connections run out together). One probe sent right after the
              connections were opened, behind them in the accept queue, is
              reported apart.
  pipelined   one client writes pipelined requests without ever reading an
              answer, for 10 s; the server's peak RSS is sampled.
  broken      20 clients ask /fault/broken?total=16777216&sent=16777215 and
              never read; peak RSS.
  uploads     200 clients each send 8 MiB less one byte of an 8 MiB upload,
              then a byte every 10 s; peak RSS, and what a plain client gets.

Bounded in time (about 90 s in all); writes bench/stress-results.json and prints
a summary. Usage: scripts/stress-faultserver.py [--binary PATH] [--slow N] [--only ATTACK]
"""
import argparse
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, binary):
        def limit():
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))

        self.proc = subprocess.Popen([binary, "serve", "--port", "0", "--quiet"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, preexec_fn=limit)
        self.banner = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("retrylab serve ended: " + self.proc.stderr.read())
            self.banner.append(line.strip())
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
            if line.startswith("At most"):
                break
        self.peak = rss_mib(self.proc.pid)
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mib(self.proc.pid))
            time.sleep(0.05)

    def stop(self):
        self._stop.set()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def plain_get(port, timeout=5.0):
    start = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"GET /status/200 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            data = s.recv(64)
            status = int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.1 ") else 0
    except OSError:
        status = 0
    return status, (time.monotonic() - start) * 1000.0


def open_many(port, count, first_bytes):
    socks = []
    for _ in range(count):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.setblocking(False)
            if first_bytes:
                try:
                    s.send(first_bytes)
                except OSError:
                    pass
            socks.append(s)
        except OSError:
            break
    return socks


def trickle(socks, byte, stop, every):
    while not stop.wait(every):
        for s in socks:
            try:
                s.send(byte)
            except OSError:
                pass


def attack_slowloris(binary, count, seconds=30):
    server = Server(binary)
    socks = open_many(server.port, count, b"GET /status/200 HTTP/1.1\r\nHost: a\r\nX-Slow: ")
    stop = threading.Event()
    t = threading.Thread(target=trickle, args=(socks, b"a", stop, 5.0), daemon=True)
    t.start()
    # One probe at once, while the server is still taking the connections just opened (all of
    # them queue in the kernel ahead of it), reported apart; then the probes of the attack itself.
    opening = plain_get(server.port)
    time.sleep(1.0)
    cpu0 = cpu_seconds(server.proc.pid)
    answers = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        answers.append(plain_get(server.port))
        time.sleep(0.1)
    cpu = (cpu_seconds(server.proc.pid) - cpu0) / seconds
    stop.set()
    for s in socks:
        s.close()
    server.stop()
    times = [ms for status, ms in answers if status == 200]
    return {
        "slow_connections": len(socks),
        "opening_probe": {"status": opening[0], "ms": round(opening[1], 2)},
        "plain_requests": len(answers),
        "plain_answered_200": len(times),
        "plain_ms_median": round(statistics.median(times), 2) if times else None,
        "plain_ms_p99": round(sorted(times)[int(len(times) * 0.99)], 2) if times else None,
        "plain_ms_max": round(max(times), 2) if times else None,
        "server_cpu_share": round(cpu, 3),
        "peak_rss_mib": round(server.peak, 1),
        "banner": server.banner[-1],
    }


def attack_pipelined(binary, seconds=10):
    server = Server(binary)
    base = rss_mib(server.proc.pid)
    s = socket.create_connection(("127.0.0.1", server.port))
    s.setblocking(False)
    request = b"GET /status/200 HTTP/1.1\r\nHost: a\r\n\r\n" * 1000
    sent = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            sent += s.send(request)
        except BlockingIOError:
            time.sleep(0.01)
    s.close()
    server.stop()
    return {"bytes_of_requests_sent": sent, "rss_at_start_mib": round(base, 1), "peak_rss_mib": round(server.peak, 1)}


def attack_broken(binary, clients=20, seconds=5):
    server = Server(binary)
    base = rss_mib(server.proc.pid)
    socks = open_many(server.port, clients,
                      b"GET /fault/broken?total=16777216&sent=16777215 HTTP/1.1\r\nHost: a\r\n\r\n")
    time.sleep(seconds)
    for s in socks:
        s.close()
    server.stop()
    return {"clients": len(socks), "rss_at_start_mib": round(base, 1), "peak_rss_mib": round(server.peak, 1)}


def attack_uploads(binary, clients=200, seconds=20):
    server = Server(binary)
    base = rss_mib(server.proc.pid)
    size = 8 * 1024 * 1024
    head = b"POST /status/200 HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n" % size
    body = b"u" * (size - 1)
    refused = 0
    socks = []
    deadline = time.monotonic() + seconds
    for _ in range(clients):
        if time.monotonic() > deadline:
            break
        try:
            s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            s.sendall(head)
            s.settimeout(2)
            try:
                s.sendall(body)
            except OSError:
                pass
            s.setblocking(False)
            try:
                if s.recv(16).startswith(b"HTTP/1.1 503"):
                    refused += 1
            except (BlockingIOError, OSError):
                pass
            socks.append(s)
        except OSError:
            refused += 1
    plain = plain_get(server.port)
    for s in socks:
        s.close()
    server.stop()
    return {"clients": len(socks), "refused_503": refused, "plain_get": plain[0], "plain_ms": round(plain[1], 2),
            "rss_at_start_mib": round(base, 1), "peak_rss_mib": round(server.peak, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "build-tests", "bin", "retrylab"))
    parser.add_argument("--slow", type=int, default=2500)
    parser.add_argument("--only", choices=["slowloris", "pipelined_unread", "broken_unread", "nearly_complete_uploads"],
                        help="run one attack and print its figures")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"stress-faultserver: no binary at {args.binary}; build first (cmake --preset tests && ...)")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this script holds thousands of sockets itself

    attacks = {
        "slowloris": lambda: attack_slowloris(args.binary, args.slow),
        "pipelined_unread": lambda: attack_pipelined(args.binary),
        "broken_unread": lambda: attack_broken(args.binary),
        "nearly_complete_uploads": lambda: attack_uploads(args.binary),
    }
    if args.only:
        # One attack, printed and not written: bench/stress-results.json keeps the full run.
        print(json.dumps(attacks[args.only](), indent=2))
        return
    results = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cores": os.cpu_count(),
        "descriptor_limit_given": 1024,
    }
    for name, attack in attacks.items():
        results[name] = attack()
    os.makedirs(os.path.join(ROOT, "bench"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "stress-results.json"), "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    print(json.dumps(results, indent=2))
    s = results["slowloris"]
    ok = s["plain_answered_200"] == s["plain_requests"] and results["nearly_complete_uploads"]["plain_get"] in (200, 503)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
