#!/usr/bin/python3
"""NumPy's np.matmul at the sizes of bench/bench_contraction.cpp, side by side with that
binary's rows, rendered into docs/BENCHMARKS.md (the "contraction" section).

    /usr/bin/python3 bench/numpy_contraction.py build-gemm/bench/tensora_bench_contraction
    /usr/bin/python3 bench/numpy_contraction.py saved.json      # re-render a saved run
    /usr/bin/python3 bench/numpy_contraction.py --numpy-only    # NumPy's figures only (JSON)

The binary runs with --benchmark_repetitions=3 (median) and --benchmark_min_time=0.5; NumPy
runs in a child process per thread count (OPENBLAS_NUM_THREADS / OMP_NUM_THREADS set before
numpy is imported), median of repeated calls. Every figure in the doc is a ratio of two
numbers of the same run. Needs python3-numpy (apt-get install -y python3-numpy).
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import bench_doc  # bench/bench_doc.py

SIZES = (256, 1024, 2048)
BATCH, SMALL = 10000, 8
THREADS = (1, 2)


# ---------------------------------------------------------------------------------------
# NumPy (runs in a child process so the BLAS thread count is set before numpy loads)

def numpy_child():
    import numpy as np

    def timed(fn, min_total=0.5, min_reps=5):
        fn()
        times = []
        start = time.perf_counter()
        while len(times) < min_reps or time.perf_counter() - start < min_total:
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    rng = np.random.default_rng(1)
    out = {}
    for dt in ("float32", "float64"):
        for n in SIZES:
            a = rng.uniform(-1, 1, (n, n)).astype(dt)
            b = rng.uniform(-1, 1, (n, n)).astype(dt)
            out["Gemm/{}/{}".format("f32" if dt == "float32" else "f64", n)] = timed(lambda: np.matmul(a, b))
    a = rng.uniform(-1, 1, (BATCH, SMALL, SMALL))
    b = rng.uniform(-1, 1, (BATCH, SMALL, SMALL))
    out["Bmm/f64/{}x8x8".format(BATCH)] = timed(lambda: np.matmul(a, b))
    blas = sorted({line.split()[-1].rsplit("/", 1)[-1] for line in open("/proc/self/maps")
                   if "blas" in line or "blis" in line})
    json.dump({"seconds": out, "numpy": np.__version__, "blas": blas}, sys.stdout)


def numpy_times():
    results = {}
    for t in THREADS:
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t), BLIS_NUM_THREADS=str(t))
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--numpy-child"], env=env, check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        results[t] = json.loads(out)
    return results


# ---------------------------------------------------------------------------------------
# The benchmark binary

def run_binary(binary):
    cmd = [binary, "--benchmark_format=json", "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true",
           "--benchmark_min_time=0.5"]
    print("running:", " ".join(cmd), file=sys.stderr)
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out)


def median_rows(data):
    """{(op, lib, dtype, shape, form, threads): seconds} from the median aggregates."""
    rows = {}
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    for b in data.get("benchmarks", []):
        if b.get("aggregate_name", "median") != "median" or b.get("error_occurred"):
            continue
        name = b["run_name"] if "run_name" in b else b["name"]
        parts = name.split("/")
        if len(parts) < 6 or not parts[0].startswith("BM_"):
            continue
        threads = int(parts[5].split(":")[1])
        rows[(parts[0][3:], parts[1], parts[2], parts[3], parts[4], threads)] = b["real_time"] * scale[b["time_unit"]]
    return rows


# ---------------------------------------------------------------------------------------
# Rendering

def fmt_ms(s):
    return "{:.3g}".format(s * 1e3) if s is not None else "n/a"


def ratio(peer, mine):
    return "{:.2f}".format(peer / mine) if peer and mine else "n/a"


def render(data, numpy):
    rows = median_rows(data)
    ctx = data.get("context", {})
    lines = []
    lines.append("Reproduce (Debian 12; `scripts/install-deps.sh` installs `libblis-dev`):")
    lines.append("")
    lines.append("```sh")
    lines.append("DEBIAN_FRONTEND=noninteractive apt-get install -y libbenchmark-dev libtorch-dev python3-numpy")
    lines.append("cmake -S . -B build-gemm -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSORA_BUILD_BENCH=ON \\")
    lines.append("      -DTENSORA_BUILD_TESTS=OFF -DTENSORA_BUILD_EXAMPLES=OFF")
    lines.append("cmake --build build-gemm -j2 --target tensora_bench_contraction")
    lines.append("/usr/bin/python3 bench/numpy_contraction.py build-gemm/bench/tensora_bench_contraction")
    lines.append("```")
    lines.append("")
    lines.append("The script runs the binary (`--benchmark_repetitions=3 --benchmark_min_time=0.5`, medians), "
                 "times NumPy in a child process per thread count, keeps both in "
                 "`build-gemm/bench/tensora_bench_contraction.json` (`numpy_contraction.py FILE.json` "
                 "re-renders it) and rewrites this section. Rows and columns are described in "
                 "`bench/bench_contraction.cpp`; the BLAS choice and the blocking in docs/contractions.md.")
    lines.append("")
    lines.append("Run of {} on {} ({} CPUs, load average at start {}). tensora's BLAS: {}; "
                 "the process's OpenBLAS (LibTorch's): {}; NumPy {} on {}.".format(
                     ctx.get("date", "?"), platform.node() or "?", ctx.get("num_cpus", "?"),
                     ", ".join("{:.1f}".format(x) for x in ctx.get("load_avg", [])) or "?",
                     ctx.get("tensora_blas", "?"), ctx.get("openblas", "not loaded"),
                     numpy[THREADS[0]]["numpy"], ", ".join(numpy[THREADS[0]]["blas"]) or "?"))
    lines.append("")
    lines.append("Each ratio is the peer's time over tensora's (`x.matmul(y, e)`, allocating) in the "
                 "same run: above 1 tensora is faster. `into` is `x.dot_into(y, e, dest)`; `blis` is "
                 "tensora's own BLAS called directly on the same product, threaded by BLIS itself "
                 "(OpenMP) at 2 threads, where tensora runs fixed blocks on its engine; `openblas` is "
                 "cblas of the process's OpenBLAS; `torch` is `torch::matmul` / `torch::bmm`. NumPy is "
                 "timed in another process right after the binary, so its column saw other load "
                 "than the rest; the binary's columns come from one run, a case's rows back to back. On a machine this "
                 "busy, 2-thread rows measure contention more than scaling.")
    lines.append("")
    lines.append("### Square GEMM")
    lines.append("")
    lines.append("| dtype | n | threads | tensora ms | GFLOP/s | into | blis | openblas | torch | numpy |")
    lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for dt in ("f32", "f64"):
        for n in SIZES:
            for t in THREADS:
                key = lambda lib, form: rows.get(("Gemm", lib, dt, str(n), form, t))
                mine = key("tensora", "alloc")
                npy = numpy[t]["seconds"].get("Gemm/{}/{}".format(dt, n))
                gflops = "{:.1f}".format(2.0 * n ** 3 / mine / 1e9) if mine else "n/a"
                lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                    dt, n, t, fmt_ms(mine), gflops, ratio(key("tensora", "into"), mine),
                    ratio(key("blis", "direct"), mine), ratio(key("openblas", "direct"), mine),
                    ratio(key("torch", "alloc"), mine), ratio(npy, mine)))
    lines.append("")
    lines.append("### {} products of 8 x 8 (F64)".format(BATCH))
    lines.append("")
    lines.append("`tensora`: `[{0}, 8, 8]` column-major (the batch is the fastest axis, tensora's natural "
                 "layout for a stack of matrices); `tensora-rowmajor`: the very memory LibTorch and NumPy "
                 "use (one dense row-major matrix per product) seen through a permuted view; `blis-loop`: "
                 "one BLIS call per product.".format(BATCH))
    lines.append("")
    lines.append("| threads | tensora ms | GFLOP/s | tensora-rowmajor | blis-loop | torch bmm | numpy matmul |")
    lines.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    shape = "{}x8x8".format(BATCH)
    for t in THREADS:
        key = lambda lib, form: rows.get(("Bmm", lib, "f64", shape, form, t))
        mine = key("tensora", "alloc")
        gflops = "{:.1f}".format(2.0 * BATCH * SMALL ** 3 / mine / 1e9) if mine else "n/a"
        lines.append("| {} | {} | {} | {} | {} | {} | {} |".format(
            t, fmt_ms(mine), gflops, ratio(key("tensora-rowmajor", "alloc"), mine),
            ratio(key("blis-loop", "direct"), mine), ratio(key("torch", "alloc"), mine),
            ratio(numpy[t]["seconds"].get("Bmm/f64/" + shape), mine)))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", nargs="?", help="tensora_bench_contraction, or a JSON file saved by this script")
    ap.add_argument("--doc", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                                                  "BENCHMARKS.md"))
    ap.add_argument("--numpy-only", action="store_true", help="print NumPy's figures as JSON and exit")
    ap.add_argument("--numpy-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--print", action="store_true", help="print the section instead of writing the doc")
    args = ap.parse_args()
    if args.numpy_child:
        return numpy_child()
    if args.numpy_only:
        return json.dump(numpy_times(), sys.stdout, indent=1)
    if not args.source:
        ap.error("give the tensora_bench_contraction binary or a saved JSON file")
    if args.source.endswith(".json"):
        with open(args.source) as f:
            saved = json.load(f)
        data, numpy = saved["benchmark"], {int(k): v for k, v in saved["numpy"].items()}
    else:
        data = run_binary(args.source)
        data.setdefault("context", {})["date"] = data.get("context", {}).get("date") or datetime.datetime.now().isoformat()
        numpy = numpy_times()
        saved = os.path.join(os.path.dirname(os.path.abspath(args.source)), "tensora_bench_contraction.json")
        with open(saved, "w") as f:
            json.dump({"benchmark": data, "numpy": numpy}, f)
        print("kept the run in", saved, file=sys.stderr)
    body = render(data, numpy)
    if args.print:
        print(body)
        return
    bench_doc.write_section(os.path.normpath(args.doc), "contraction", body, "## Contractions")
    print("wrote", os.path.normpath(args.doc), file=sys.stderr)


if __name__ == "__main__":
    main()
