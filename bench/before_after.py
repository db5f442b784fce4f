#!/usr/bin/python3
"""Runs the tensora rows of two builds' benchmark binaries back to back and prints after/before.

    /usr/bin/python3 bench/before_after.py BEFORE_BUILD AFTER_BUILD [--rounds 3] [--min-time 0.3] [--rows REGEX]

Each BUILD is a build directory with bench/ binaries (TENSORA_BUILD_BENCH=ON). Row by row, the
before and the after binary run alternately, `--rounds` times, so drift on a shared machine hits
both sides alike; each row keeps its fastest time over the rounds. Only rows whose library is
tensora (BM_<Op>/tensora.../...) are compared: the peers are the same code on both sides.
Standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys

BINARIES = ("tensora_bench", "tensora_bench_eager", "tensora_bench_traced", "tensora_bench_contraction",
            "tensora_bench_einsum")


TENSORA_ROWS = "^BM_[A-Za-z0-9]+/tensora"


def escape(row):
    # Google Benchmark's regex rejects Python's escapes of '-' and the like: escape only the
    # characters that are special in it.
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", row)


def rows_of(binary):
    out = subprocess.run([binary, f"--benchmark_filter={TENSORA_ROWS}", "--benchmark_list_tests"],
                         check=True, capture_output=True, text=True).stdout
    return out.split()


def run(binary, row_filter, min_time):
    out = subprocess.run([binary, f"--benchmark_filter={row_filter}", "--benchmark_format=json",
                          f"--benchmark_min_time={min_time}"],
                         check=True, capture_output=True, text=True).stdout
    if not out.strip():
        return {}  # the row does not exist in this binary
    return {b["name"]: b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
            for b in json.loads(out)["benchmarks"] if b.get("run_type", "iteration") == "iteration"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=0.3)
    parser.add_argument("--binaries", nargs="*", default=list(BINARIES))
    parser.add_argument("--rows", default="", help="only rows that match this regex (Python re.search)")
    args = parser.parse_args()

    best = {"before": {}, "after": {}}
    for r in range(args.rounds):
        for name in args.binaries:
            paths = {side: os.path.join(getattr(args, side), "bench", name) for side in best}
            for row in (r for r in rows_of(paths["after"]) if re.search(args.rows, r)):
                for side in ("before", "after"):
                    for got, ns in run(paths[side], "^" + escape(row) + "$", args.min_time).items():
                        best[side][got] = min(ns, best[side].get(got, float("inf")))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    rows = [row for row in best["after"] if row in best["before"]]
    print("| row | before | after | after / before |")
    print("| --- | --- | --- | --- |")
    worst = 0.0
    for row in rows:
        b, a = best["before"][row], best["after"][row]
        worst = max(worst, a / b)
        print(f"| `{row.removesuffix('/real_time')}` | {fmt(b)} | {fmt(a)} | {a / b:.2f} |")
    only = sorted(set(best["after"]) - set(best["before"]))
    print(f"\n{len(rows)} rows; highest after/before {worst:.2f}" +
          (f"; rows only in after: {', '.join(only)}" if only else ""))


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


if __name__ == "__main__":
    main()
