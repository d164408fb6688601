#!/usr/bin/env python3
"""Measures how fast RetryLab starts (scripts/bench.sh, part 9).

The window: `retrylab` launched with RETRYLAB_STARTUP_REPORT set writes the
milliseconds from its launch to main(), to its window built with the embedded
server listening, and to the window's first paint, then quits. The first launch
runs after the page cache was dropped (cold, when /proc/sys/vm/drop_caches can be
written; otherwise it says so), the others right after each other (warm). The
window is drawn by a real X server (Xvfb) when there is one, else offscreen.

The command line: the wall time of `retrylab-cli --version` and `retrylab
--version`, launched one after the other, warm.

Usage: scripts/bench-startup.py --bin DIR [--runs N] [--out FILE]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def percentile(values, q):
    ordered = sorted(values)
    if not ordered:
        return None
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def summary(values):
    return {
        "runs": len(values),
        "min": min(values),
        "median": statistics.median(values),
        "p90": percentile(values, 0.9),
        "max": max(values),
    }


def drop_caches():
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


class Display:
    """An Xvfb server for the window, or the offscreen platform without one."""

    def __init__(self):
        self.process = None
        self.env = {}

    def __enter__(self):
        xvfb = shutil.which("Xvfb")
        if xvfb:
            for number in range(90, 120):
                if os.path.exists(f"/tmp/.X{number}-lock"):
                    continue
                self.process = subprocess.Popen(
                    [xvfb, f":{number}", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                socket = f"/tmp/.X11-unix/X{number}"
                for _ in range(100):
                    if os.path.exists(socket) or self.process.poll() is not None:
                        break
                    time.sleep(0.05)
                if self.process.poll() is None and os.path.exists(socket):
                    self.env = {"DISPLAY": f":{number}", "QT_QPA_PLATFORM": "xcb"}
                    return self
                self.process.kill()
                self.process = None
        self.env = {"QT_QPA_PLATFORM": "offscreen"}
        return self

    def __exit__(self, *exc):
        if self.process:
            self.process.terminate()
            self.process.wait()

    def name(self):
        return "Xvfb (xcb)" if self.process else "offscreen"


def window_start(binary, env, report):
    env = dict(env)
    env["RETRYLAB_STARTUP_REPORT"] = report
    env["RETRYLAB_STARTUP_T0_NS"] = str(time.monotonic_ns())
    started = time.monotonic_ns()
    process = subprocess.run([binary], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             timeout=120, check=False)
    exited_ms = (time.monotonic_ns() - started) / 1e6
    if process.returncode != 0:
        sys.exit(f"bench-startup: retrylab exited with {process.returncode}: {process.stderr.decode()[-2000:]}")
    with open(report, encoding="utf-8") as f:
        figures = json.load(f)
    if not figures.get("server_ready"):
        sys.exit(f"bench-startup: the embedded server did not start: {figures.get('server_error')}")
    figures["exited_ms"] = exited_ms
    return figures


def wall_ms(command, env):
    started = time.monotonic_ns()
    process = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             timeout=60, check=False)
    elapsed = (time.monotonic_ns() - started) / 1e6
    if process.returncode != 0:
        sys.exit(f"bench-startup: {' '.join(command)} exited with {process.returncode}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="directory with retrylab and retrylab-cli")
    parser.add_argument("--runs", type=int, default=15, help="warm launches of each (default 15)")
    parser.add_argument("--out", default="-", help="JSON file for the results ('-': standard output)")
    args = parser.parse_args()
    window = os.path.join(args.bin, "retrylab")
    cli = os.path.join(args.bin, "retrylab-cli")

    with tempfile.TemporaryDirectory(prefix="retrylab-startup-") as home, Display() as display:
        # A fresh user: no settings, no history, nothing restored.
        env = dict(os.environ)
        env.update(display.env)
        env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "config"),
                    "XDG_DATA_HOME": os.path.join(home, "data"), "XDG_CACHE_HOME": os.path.join(home, "cache"),
                    "XDG_RUNTIME_DIR": home})
        report = os.path.join(home, "startup.json")

        cold_dropped = drop_caches()
        cold = window_start(window, env, report)
        warm = [window_start(window, env, report) for _ in range(args.runs)]
        cli_cold_dropped = drop_caches()
        cli_cold = wall_ms([cli, "--version"], env)
        cli_warm = [wall_ms([cli, "--version"], env) for _ in range(args.runs)]
        gui_version = [wall_ms([window, "--version"], env) for _ in range(args.runs)]

    def figures(key):
        return summary([w[key] for w in warm])

    result = {
        "display": display.name(),
        "runs": args.runs,
        "cold": {
            "page_cache_dropped": cold_dropped,
            "main_ms": cold["main_ms"],
            "window_and_server_ms": cold["window_and_server_ms"],
            "first_paint_ms": cold["first_paint_ms"],
        },
        "warm": {
            "main_ms": figures("main_ms"),
            "window_and_server_ms": figures("window_and_server_ms"),
            "first_paint_ms": figures("first_paint_ms"),
        },
        "cli_version_ms": {"cold": cli_cold, "page_cache_dropped": cli_cold_dropped, "warm": summary(cli_warm)},
        "gui_version_ms": {"warm": summary(gui_version)},
        "target": "first paint and a ready server under 500 ms warm; retrylab-cli --version under 50 ms",
    }
    text = json.dumps(result, indent=2)
    if args.out == "-":
        print(text)
    else:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(f"   window ({display.name()}): cold first paint {cold['first_paint_ms']:.0f} ms"
          f"{'' if cold_dropped else ' (page cache not dropped)'}; warm median: server ready "
          f"{result['warm']['window_and_server_ms']['median']:.0f} ms, first paint "
          f"{result['warm']['first_paint_ms']['median']:.0f} ms", file=sys.stderr)
    print(f"   retrylab-cli --version: cold {cli_cold:.1f} ms, warm median "
          f"{result['cli_version_ms']['warm']['median']:.1f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
