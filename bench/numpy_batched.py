#!/usr/bin/python3
"""Batched products of medium matrices side by side: tensora and LibTorch
(bench/bench_batched.cpp) and NumPy's np.matmul / np.einsum on the same memory, 1 and 2 threads.

Usage (Debian's Python, for python3-numpy):
  /usr/bin/python3 bench/numpy_batched.py build-bench/bench/tensora_bench_batched
      runs the binary, then NumPy in a child process per thread count (OPENBLAS_NUM_THREADS),
      and rewrites the "batched" section of docs/BENCHMARKS.md.
  /usr/bin/python3 bench/numpy_batched.py --numpy-only
      prints one line per case: dtype, b, n, matmul ms, einsum ms.
"""
import datetime
import os

import bench_doc  # bench/bench_doc.py

SHAPES = [(64, 96), (256, 32), (16, 256)]  # b products of n x n, as in bench_batched.cpp
DTYPES = ["f32", "f64"]
TENSORA = ["tensora-einsum", "tensora-into", "tensora-matmul", "tensora-cm"]


def numpy_times():
    import numpy as np

    rng = np.random.default_rng(1)
    for dt in DTYPES:
        for b, n in SHAPES:
            x, y = (rng.uniform(-1, 1, (b, n, n)).astype(dt.replace("f", "float")) for _ in range(2))
            mm = bench_doc.median_ms(lambda: np.matmul(x, y))
            es = bench_doc.median_ms(lambda: np.einsum("bij,bjk->bik", x, y, optimize=True), reps=5)
            print(dt, b, n, mm, es)


def numpy_in_child(threads):
    text = bench_doc.numpy_child(__file__, threads)
    out = {}
    for line in text.splitlines():
        dt, b, n, mm, es = line.split()
        out[(dt, int(b), int(n))] = (float(mm), float(es))
    return out


def run_binary(binary):
    rows, context = bench_doc.run_medians(binary, "--benchmark_repetitions=5")
    times = {}
    for name, row in rows.items():
        # BM_Batched/<who>/<dtype>/<b>x<n>/threads:<t>
        _, who, dt, shape, th = name.split("/")[:5]
        b, n = (int(v) for v in shape.split("x"))
        times[(who, dt, b, n, int(th.split(":")[1]))] = bench_doc.seconds(row) * 1e3
    return times, context


def render(times, numpy, context):
    load = os.getloadavg()
    lines = [
        "Reproduce: `cmake --build build-bench -j2 --target tensora_bench_batched` (configured as under "
        "\"How to reproduce\"), then",
        "",
        "```sh",
        "/usr/bin/python3 bench/numpy_batched.py build-bench/bench/tensora_bench_batched",
        "```",
        "",
        "Run of {} (load average after the run {:.1f}, {:.1f}, {:.1f}; BLAS: {}). Stacks of `b` products "
        "of `n x n` matrices; medians of 5 (tensora, LibTorch) and of 15 (NumPy, in a child process "
        "right after the binary with `OPENBLAS_NUM_THREADS` = threads). Every peer runs on row-major "
        "`[b, n, n]` stacks (one dense matrix after another). tensora's columns:".format(
            context.get("date", datetime.datetime.now().isoformat()), *load, context.get("tensora_blas", "?")),
        "",
        "- `einsum`: `einsum(\"jib,kjb->kib\")` on that very memory (row-major `[b, i, j]` is column-major "
        "`[j, i, b]`), so the result has the bytes of the peers' one: the like-for-like row;",
        "- `into`: `a.dot_into(b, e, dest)` with `a`, `b`, `dest` `[b, i, j]` views of row-major stacks;",
        "- `matmul`: `a.matmul(b, e)` on those views; its result is column-major (the batch fastest), "
        "so it is a product plus a transpose;",
        "- `cm`: `a.matmul(b, e)` on column-major `[b, n, n]` operands, tensora's own layout (the batch "
        "fastest): every product is strided, so operands and result are copied to dense matrices "
        "(BLAS path) or the lane kernel runs across the batch (up to 32^3).",
        "",
        "Times in ms; `torch` is `torch::matmul` with `at::set_num_threads` and OpenBLAS at the row's "
        "thread count; the last two columns are the best peer's time over tensora's `einsum` and "
        "`matmul` (above 1 tensora is faster).",
        "",
        "| dtype | b x n | threads | einsum | into | matmul | cm | torch | np.matmul | np.einsum | "
        "peer / einsum | peer / matmul |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for dt in DTYPES:
        for b, n in SHAPES:
            for th in (1, 2):
                t = [times.get((who, dt, b, n, th)) for who in TENSORA]
                torch = times.get(("torch", dt, b, n, th))
                mm, es = numpy[th].get((dt, b, n), (None, None))
                best = min((x for x in (torch, mm) if x), default=None)
                cells = ["{:.3g}".format(x) if x else "-" for x in (*t, torch, mm, es)]
                lines.append("| {} | {} x {}^3 | {} | {} | {} | {} |".format(
                    dt.upper(), b, n, th, " | ".join(cells), bench_doc.ratio(best, t[0]), bench_doc.ratio(best, t[2])))
    return "\n".join(lines)


if __name__ == "__main__":
    bench_doc.side_by_side_main(numpy_times, run_binary, numpy_in_child, render, "batched", "### Batched products")
