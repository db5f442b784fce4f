#!/usr/bin/python3
"""Eager overhead side by side: runs tensora_bench_eager (tensora and LibTorch autograd in one
run) and rewrites the "eager" section of docs/BENCHMARKS.md.

  /usr/bin/python3 bench/eager_compare.py build-bench/bench/tensora_bench_eager
"""
import argparse
import datetime
import os
import sys

import bench_doc  # bench/bench_doc.py


def run(binary):
    rows, context = bench_doc.run_medians(binary, "--benchmark_repetitions=5", "--benchmark_min_time=0.3")
    return {name: bench_doc.seconds(b) for name, b in rows.items()}, context


fmt, ratio = bench_doc.fmt, bench_doc.ratio


def render(t, context):
    def get(case, lib, shape, form, threads=1):
        return t.get("BM_{}/{}/f32/{}/{}/threads:{}".format(case, lib, shape, form, threads))

    direct = get("Add4", "tensora", "4", "direct")
    const, grad = get("Add4", "tensora", "4", "eager-const"), get("Add4", "tensora", "4", "eager-grad")
    t_nograd, t_grad = get("Add4", "torch", "4", "torch-nograd"), get("Add4", "torch", "4", "torch-grad")
    fwd, fwdbwd = get("Chain1000", "tensora", "4", "eager-fwd"), get("Chain1000", "tensora", "4", "eager-fwd+bwd")
    t_chain = get("Chain1000", "torch", "4", "torch-fwd+bwd")
    load = os.getloadavg()
    lines = [
        "Reproduce: build `build-bench` as in \"How to reproduce\", then",
        "",
        "```sh",
        "/usr/bin/python3 bench/eager_compare.py build-bench/bench/tensora_bench_eager",
        "```",
        "",
        "Run of {} (load average after the run {:.1f}, {:.1f}, {:.1f}); medians of 5, wall time. Rows are "
        "described in `bench/bench_eager.cpp`.".format(
            context.get("date", datetime.datetime.now().isoformat()), *load),
        "",
        "| case | tensora | LibTorch | tensora ÷ LibTorch | note |",
        "| --- | ---: | ---: | ---: | --- |",
        "| 4-element add, direct `x.add(y, e)` | {} | {} (no grad) | {} | |".format(
            fmt(direct), fmt(t_nograd), ratio(direct, t_nograd)),
        "| 4-element add, eager, constants | {} | {} (no grad) | {} | {}x the direct op |".format(
            fmt(const), fmt(t_nograd), ratio(const, t_nograd), ratio(const, direct)),
        "| 4-element add, eager, recorded | {} | {} (requires grad) | {} | {}x the direct op (target <= 2) |".format(
            fmt(grad), fmt(t_grad), ratio(grad, t_grad), ratio(grad, direct)),
        "| 1000 tiny adds, forward | {} | | | |".format(fmt(fwd)),
        "| 1000 tiny adds, forward + backward | {} | {} | {} | backward = {}x the forward |".format(
            fmt(fwdbwd), fmt(t_chain), ratio(fwdbwd, t_chain),
            "{:.2f}".format((fwdbwd - fwd) / fwd) if fwd and fwdbwd else "-"),
    ]
    for threads in (1, 2):
        mine, peer = get("Mlp3", "tensora", "256x512", "fwd+bwd", threads), get("Mlp3", "torch", "256x512",
                                                                                 "fwd+bwd", threads)
        lines.append("| 3-layer MLP 256 x 512 F32, forward + backward, {} thread{} | {} | {} | {} | target <= 1 |".format(
            threads, "s" if threads > 1 else "", fmt(mine), fmt(peer), ratio(mine, peer)))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--doc", default=bench_doc.DEFAULT_DOC)
    args = ap.parse_args()
    times, context = run(args.binary)
    bench_doc.write_section(os.path.normpath(args.doc), "eager", render(times, context), "## Eager")
    print("wrote", os.path.normpath(args.doc), file=sys.stderr)


if __name__ == "__main__":
    main()
