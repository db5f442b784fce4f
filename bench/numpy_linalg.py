#!/usr/bin/python3
"""Linear algebra side by side: tensora, LibTorch and LAPACK called directly
(bench/bench_linalg.cpp), and numpy.linalg on the same cases, 1 and 2 threads.

Usage (Debian's Python, for python3-numpy):
  /usr/bin/python3 bench/numpy_linalg.py build-bench/bench/tensora_bench_linalg
      runs the binary, then NumPy in a child process per thread count (OPENBLAS_NUM_THREADS),
      and rewrites the "linalg" section of docs/BENCHMARKS.md.
  /usr/bin/python3 bench/numpy_linalg.py --numpy-only
      prints one line per case: op, case, ms.
"""
import datetime
import os

import bench_doc  # bench/bench_doc.py

LARGE = ["solve", "cholesky", "qr", "svd", "eigh"]
SMALL = ["inv", "solve", "det", "cholesky", "eigh"]
ROWS = ([(op, str(n)) for op in LARGE for n in (256, 1024)] +
        [(op, c) for op in SMALL for c in ("100000x3", "10000x8")] + [("matmul", "10000x8")])


def matrix(np, rng, case, op):
    """The binary's inputs in NumPy's layout: n I + uniform(-1, 1), x x^T + n I for cholesky,
    x + x^T for eigh; row-major [batch, n, n] stacks."""
    batch, n = (int(case), int(case)) if "x" not in case else (int(v) for v in case.split("x"))
    shape = (n, n) if "x" not in case else (batch, n, n)
    x = rng.uniform(-1, 1, shape)
    if op == "cholesky":
        return x @ np.swapaxes(x, -1, -2) + n * np.eye(n)
    if op == "eigh":
        return x + np.swapaxes(x, -1, -2)
    return x + n * np.eye(n)


def numpy_times():
    import numpy as np

    rng = np.random.default_rng(1)
    la = np.linalg
    calls = {
        "solve": lambda a, b: la.solve(a, b),
        "cholesky": lambda a, b: la.cholesky(a),
        "qr": lambda a, b: la.qr(a),
        "svd": lambda a, b: la.svd(a, compute_uv=False),
        "eigh": lambda a, b: la.eigvalsh(a),
        "inv": lambda a, b: la.inv(a),
        "det": lambda a, b: la.det(a),
        "matmul": lambda a, b: np.matmul(a, a),
    }
    for op, case in ROWS:
        a = matrix(np, rng, case, op)
        b = rng.uniform(-1, 1, a.shape[:-1] + (1,))  # a vector per matrix, as a one-column matrix
        reps = 5 if case == "1024" else 15
        print(op, case, bench_doc.median_ms(lambda: calls[op](a, b), reps=reps))


def numpy_in_child(threads):
    out = {}
    for line in bench_doc.numpy_child(__file__, threads).splitlines():
        op, case, ms = line.split()
        out[(op, case)] = float(ms)
    return out


def run_binary(binary):
    rows, context = bench_doc.run_medians(binary, "--benchmark_repetitions=3", "--benchmark_min_time=0.2")
    times = {}
    for name, row in rows.items():
        # BM_Linalg/<lib>/<op>/<case>/threads:<t>
        _, lib, op, case, th = name.split("/")[:5]
        times[(lib, op, case, int(th.split(":")[1]))] = bench_doc.seconds(row) * 1e3
    return times, context


def render(times, numpy, context):
    load = os.getloadavg()
    lines = [
        "Reproduce: `cmake --build build-bench -j2 --target tensora_bench_linalg` (configured as under "
        "\"How to reproduce\"), then",
        "",
        "```sh",
        "/usr/bin/python3 bench/numpy_linalg.py build-bench/bench/tensora_bench_linalg",
        "```",
        "",
        "Run of {} (load average after the run {:.1f}, {:.1f}, {:.1f}; LAPACK: {}). F64; medians of 3 "
        "(tensora, LibTorch, LAPACK) and of 5-15 calls (NumPy, in a child process right after the binary "
        "with `OPENBLAS_NUM_THREADS` = threads). `solve` has one right-hand side vector; `qr` is the "
        "reduced q and r; `svd` and `eigh` are the values alone everywhere (`svdvals`, `eigvalsh`). "
        "`lapack` is the driver tensora loads, called per "
        "matrix on one thread (`getrf`+`getrs`, `potrf`, `geqrf`+`orgqr`, `gesdd`, `syevd`). Stacks: "
        "tensora on its own layout (column-major `[b, n, n]`, the batch fastest: the small-matrix "
        "kernels' layout), the peers on row-major `[b, n, n]` stacks.".format(
            context.get("date", datetime.datetime.now().isoformat()), *load, context.get("tensora_lapack", "?")),
        "",
        "Times in ms; the last column is the best peer's (LibTorch, NumPy) time over tensora's (above 1 "
        "tensora is faster), and `lapack / tensora` the direct call's.",
        "",
        "| op | case | threads | tensora | torch | numpy | lapack | lapack / tensora | peer / tensora |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for op, case in ROWS:
        for th in (1, 2):
            t = times.get(("tensora", op, case, th))
            torch = times.get(("torch", op, case, th))
            npy = numpy[th].get((op, case))
            lap = times.get(("lapack", op, case, 1))
            best = min((x for x in (torch, npy) if x), default=None)
            cells = ["{:.3g}".format(x) if x else "-" for x in (t, torch, npy, lap)]
            lines.append("| {} | {} | {} | {} | {} | {} |".format(op, case, th, " | ".join(cells),
                                                               bench_doc.ratio(lap, t), bench_doc.ratio(best, t)))
    return "\n".join(lines)


if __name__ == "__main__":
    bench_doc.side_by_side_main(numpy_times, run_binary, numpy_in_child, render, "linalg", "### Linear algebra")
