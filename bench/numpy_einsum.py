#!/usr/bin/python3
"""einsum side by side: tensora, LibTorch and NumPy's einsum(optimize=True), single-threaded.

Usage (Debian's Python, for python3-numpy):
  /usr/bin/python3 bench/numpy_einsum.py build-gemm/bench/tensora_bench_einsum
      runs the binary (tensora and LibTorch in one run), then NumPy in a child process with one
      BLAS thread, and rewrites the einsum section of docs/BENCHMARKS.md.
  /usr/bin/python3 bench/numpy_einsum.py --numpy-only
      prints one line per case: name, median milliseconds.
"""
import argparse
import datetime
import os
import sys

import bench_doc  # bench/bench_doc.py

CASES = [
    ("batched_matmul", "bij,bjk->bik", [(64, 96, 96), (64, 96, 96)]),
    ("tensor_contraction", "abc,cbd->ad", [(256, 48, 48), (48, 48, 256)]),
    ("matrix_chain5", "ab,bc,cd,de,ef->af", [(400, 40), (40, 500), (500, 20), (20, 300), (300, 600)]),
]


def numpy_times():
    import numpy as np

    rng = np.random.default_rng(1)
    out = {}
    for name, subs, shapes in CASES:
        ops = [rng.random(s) for s in shapes]
        out[name] = bench_doc.median_ms(lambda: np.einsum(subs, *ops, optimize=True))
    return out


def numpy_in_child():
    text = bench_doc.numpy_child(__file__, 1)
    return {line.split()[0]: float(line.split()[1]) for line in text.splitlines() if line.strip()}


def run_binary(binary):
    rows, context = bench_doc.run_medians(binary, "--benchmark_repetitions=5")
    times = {}
    for name, b in rows.items():
        _, who, _, case = name.split("/")[:4]
        times.setdefault(case, {})[who] = bench_doc.seconds(b) * 1e3
        if who.startswith("tensora") and b.get("planned_flops"):
            times[case]["planned_flops"] = b["planned_flops"]
    return times, context


def render(times, numpy, context):
    load = os.getloadavg()
    lines = [
        "Reproduce: build `tensora_bench_einsum` as for the contractions above, then",
        "",
        "```sh",
        "/usr/bin/python3 bench/numpy_einsum.py build-gemm/bench/tensora_bench_einsum",
        "```",
        "",
        "Run of {} (load average after the run {:.1f}, {:.1f}, {:.1f}). F64, one thread everywhere: tensora's "
        "serial engine, `at::set_num_threads(1)`, NumPy with `OPENBLAS_NUM_THREADS=1` in a child process "
        "right after the binary. tensora is `einsum(subscripts, operands, engine)` including its planning; "
        "each ratio is the peer's time over tensora's (above 1 tensora is faster).".format(
            context.get("date", datetime.datetime.now().isoformat()), *load),
        "",
        "`tensora` takes column-major operands of the case's shapes (its natural layout); `tensora-rm` the "
        "very memory LibTorch and NumPy use, in and out: every operand's shape and subscript reversed "
        "(row-major `[b, i, j]` is column-major `[j, i, b]`; `bij,bjk->bik` becomes `jib,kjb->kib`), so its "
        "column-major result has the bytes of the peers' row-major one. The peers' ratios are against "
        "`tensora-rm`, the like-for-like comparison; the last column is `tensora-rm`'s time over `tensora`'s "
        "(the case's subscripts on column-major operands, where a leading batch index is the fastest one).",
        "",
        "| case | subscripts | planned GFLOP | tensora-rm ms | GFLOP/s | torch::einsum | numpy einsum(optimize=True) "
        "| tensora (column-major) |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def ratio(peer, mine):
        return "{:.2f}".format(peer / mine) if peer and mine else "-"

    for name, subs, _ in CASES:
        t = times.get(name, {})
        rm, cm, flops = t.get("tensora-rm"), t.get("tensora"), t.get("planned_flops")
        lines.append("| {} | `{}` | {} | {} | {} | {} | {} | {} |".format(
            name, subs, "{:.3g}".format(flops / 1e9) if flops else "-", "{:.3g}".format(rm) if rm else "-",
            "{:.1f}".format(flops / rm / 1e6) if flops and rm else "-", ratio(t.get("torch"), rm),
            ratio(numpy.get(name), rm), ratio(rm, cm)))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary", nargs="?", help="tensora_bench_einsum")
    ap.add_argument("--numpy-only", action="store_true")
    ap.add_argument("--doc", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                                                  "BENCHMARKS.md"))
    args = ap.parse_args()
    if args.numpy_only:
        for name, ms in numpy_times().items():
            print(name, "{:.4f}".format(ms))
        return
    if not args.binary:
        ap.error("give the tensora_bench_einsum binary")
    times, context = run_binary(args.binary)
    bench_doc.write_section(args.doc, "einsum", render(times, numpy_in_child(), context), "### einsum")
    print("wrote", os.path.abspath(args.doc), file=sys.stderr)


if __name__ == "__main__":
    main()
