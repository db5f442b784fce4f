"""Rewrites one marked section of docs/BENCHMARKS.md; shared by the side-by-side scripts.

A section is the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->`. A doc without the
markers gets the section appended under `heading`.
"""
import argparse
import json
import os
import subprocess
import sys
import time

DEFAULT_DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "BENCHMARKS.md")


def replace_section(text, name, body, heading):
    begin, end = "<!-- {}:begin -->".format(name), "<!-- {}:end -->".format(name)
    block = "{}\n{}\n{}".format(begin, body.strip(), end)
    if begin in text and end in text:
        return text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    return text.rstrip() + "\n\n{}\n\n{}\n".format(heading, block)


def write_section(doc, name, body, heading):
    text = open(doc).read() if os.path.exists(doc) else "# Benchmarks\n"
    text = replace_section(text, name, body, heading)
    with open(doc, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def run_medians(binary, *args):
    """Runs a Google Benchmark binary with repetitions and returns ({row: median aggregate},
    context); rows are named without the "/real_time" suffix, times stay in the row's unit."""
    cmd = [binary, "--benchmark_format=json", "--benchmark_report_aggregates_only=true", *args]
    print("running:", " ".join(cmd), file=sys.stderr)
    data = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    rows = {b["run_name"].replace("/real_time", ""): b for b in data["benchmarks"]
            if b.get("aggregate_name") == "median"}
    return rows, data.get("context", {})


def seconds(row):
    """A row's median wall time in seconds."""
    return row["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[row["time_unit"]]


def fmt(seconds):
    """A duration with a readable unit ("-" for a missing row)."""
    if seconds is None:
        return "-"
    for unit, f in (("ns", 1e9), ("us", 1e6), ("ms", 1e3)):
        if seconds * f < 1000:
            return "{:.3g} {}".format(seconds * f, unit)
    return "{:.3g} s".format(seconds)


def ratio(a, b):
    """a / b to two decimals ("-" when either is missing)."""
    return "{:.2f}".format(a / b) if a and b else "-"


def median_ms(fn, reps=15):
    """fn's median wall time over `reps` calls after one warm-up, in milliseconds."""
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def numpy_child(script, threads, *args):
    """Runs `script --numpy-only args...` in a child process whose BLAS has `threads` threads
    (NumPy reads OPENBLAS_NUM_THREADS when it loads); returns its stdout."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    return subprocess.run([sys.executable, os.path.abspath(script), "--numpy-only", *args], env=env, check=True,
                          capture_output=True, text=True).stdout


def side_by_side_main(numpy_times, run_binary, numpy_in_child, render, section, heading):
    """The command line of the side-by-side scripts: `script BINARY` runs the binary, then NumPy
    in a child process per thread count (1, 2), prints the table and rewrites `section` of the
    doc; `script --numpy-only` is that child (prints numpy_times' lines)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?")
    ap.add_argument("--numpy-only", action="store_true")
    ap.add_argument("--doc", default=DEFAULT_DOC)
    args = ap.parse_args()
    if args.numpy_only:
        return numpy_times()
    times, context = run_binary(args.binary)
    numpy = {th: numpy_in_child(th) for th in (1, 2)}
    body = render(times, numpy, context)
    print(body)
    write_section(args.doc, section, body, heading)
