#!/usr/bin/python3
"""Elementwise ops on transposed 4096x4096 views: tensora's rows (bench/bench_transposed.cpp)
and NumPy's on the same cases, in one run, printed as the markdown table of docs/BENCHMARKS.md
("Transposed inputs").

    /usr/bin/python3 bench/numpy_transposed.py build-bench/bench/tensora_bench_transposed [--filter REGEX]

tensora runs with --benchmark_repetitions=3 (median); NumPy (single-threaded for elementwise
ops) takes the median of 5 calls after one warm-up. NumPy keeps its inputs' layout where it
can (`aT + bT`, `-aT` and `aT.astype` are one flat pass there), which is what tensora's `into`
rows measure; `aT + c` mixes two layouts in both libraries. Needs python3-numpy.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

N = 4096
DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "c128": np.complex128}
CAST_TO = {"f32": np.float64, "f64": np.float32, "f16": np.float32, "c128": np.complex64}


def numpy_ms(dt, op):
    rng = np.random.default_rng(1)
    t = DTYPES[dt]
    make = lambda: (rng.uniform(-1, 1, N * N).astype(t).reshape(N, N))
    a, b, c = make(), make(), make()
    # aT: the transposed view of tensora's rows (F-ordered here); c, C-ordered, is laid out the
    # other way, as tensora's column-major operand is against its transposed one.
    aT, bT = a.T, b.T
    fn = {
        "add": lambda: aT + bT,
        "add1": lambda: aT + c,
        "neg": lambda: -aT,
        "cast": lambda: aT.astype(CAST_TO[dt]),
    }[op]
    fn()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--filter", default="BM_Transposed")
    args = ap.parse_args()
    out = subprocess.run([args.binary, f"--benchmark_filter={args.filter}", "--benchmark_repetitions=3",
                          "--benchmark_report_aggregates_only=true", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    rows = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        # BM_Transposed<Op>/tensora/<dtype>/4096x4096T/<form>/threads:<n>/real_time
        parts = b["run_name"].split("/")
        op, dt, form, th = parts[0][len("BM_Transposed"):].lower(), parts[2], parts[4], int(parts[5].split(":")[1])
        ms = b["real_time"] * {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[b["time_unit"]]
        rows[(dt, op, th, form)] = ms
    print("| case | threads | tensora alloc | tensora into | alloc / into | NumPy | NumPy / alloc |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    cache = {}
    for (dt, op, th, form) in sorted(rows):
        if form != "alloc" or (dt, op, th, "into") not in rows:
            continue
        alloc, into = rows[(dt, op, th, "alloc")], rows[(dt, op, th, "into")]
        if (dt, op) not in cache:
            cache[(dt, op)] = numpy_ms(dt, op)
        npy = cache[(dt, op)]
        print(f"| {op} {dt} | {th} | {alloc:.2f} ms | {into:.2f} ms | {alloc / into:.2f} | {npy:.2f} ms | "
              f"{npy / alloc:.2f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
