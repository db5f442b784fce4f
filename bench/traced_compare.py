#!/usr/bin/python3
"""Traced programs side by side: runs tensora_bench_traced (traced fused / unfused, eager,
direct, LibTorch eager and a hand-written loop in one run) and rewrites the "traced" section of
docs/BENCHMARKS.md, or prints it with --print.

  /usr/bin/python3 bench/traced_compare.py build-bench/bench/tensora_bench_traced
  /usr/bin/python3 bench/traced_compare.py --print --repetitions 1 --min-time 0.2 \\
      build-bench/bench/tensora_bench_traced   # one short run, printed only
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

import bench_doc  # bench/bench_doc.py


def run(binary, repetitions, min_time):
    """{row: result} (medians when repeated), context."""
    if repetitions > 1:
        return bench_doc.run_medians(binary, "--benchmark_repetitions={}".format(repetitions),
                                     "--benchmark_min_time={}".format(min_time))
    # One repetition has no aggregates: take the plain rows.
    cmd = [binary, "--benchmark_format=json", "--benchmark_min_time={}".format(min_time)]
    print("running:", " ".join(cmd), file=sys.stderr)
    data = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    rows = {b["run_name"].replace("/real_time", ""): b for b in data["benchmarks"]
            if b.get("run_type") == "iteration" and "error_occurred" not in b}
    return rows, data.get("context", {})


fmt, ratio = bench_doc.fmt, bench_doc.ratio


def render(rows, context, cmd):
    def row(case, lib, shape, form, threads=1):
        return rows.get("BM_{}/{}/f32/{}/{}/threads:{}".format(case, lib, shape, form, threads))

    def t(*key, **kw):
        r = row(*key, **kw)
        return bench_doc.seconds(r) if r else None

    def counter(name, *key, **kw):
        r = row(*key, **kw)
        return r.get(name) if r else None

    load = os.getloadavg()
    lines = [
        "Reproduce: build `build-bench` as in \"How to reproduce\", then",
        "",
        "```sh",
        cmd,
        "```",
        "",
        "Run of {} (load average after the run {:.1f}, {:.1f}, {:.1f}); medians, wall time. Rows are "
        "described in `bench/bench_traced.cpp`.".format(
            context.get("date", datetime.datetime.now().isoformat()), *load),
        "",
        "8-op chains over 16M F32, all arithmetic, so the hand loop computes the same values up to "
        "rounding (it is built with -march=native and may contract a multiply and an add into one FMA): Chain8 `maximum(((x * 1.5 + 0.25) * x - 0.5) * (x * x + 1), -0.25)` (cheap ops: "
        "bandwidth-bound when unfused) and Chain8Div (the same with one division, compute-heavy):",
        "",
        "| chain | threads | traced fused | ÷ hand loop (target <= 1.2) | eager ÷ traced fused (target >= 3) "
        "| direct ÷ fused | LibTorch ÷ fused | unfused ÷ fused |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for case in ("Chain8", "Chain8Div"):
        for th in (1, 2):
            fused = t(case, "tensora", "16M", "traced-fused", th)
            lines.append("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
                case, th, fmt(fused), ratio(fused, t(case, "ref", "16M", "plain", th)),
                ratio(t(case, "tensora", "16M", "eager", th), fused),
                ratio(t(case, "tensora", "16M", "direct", th), fused),
                ratio(t(case, "torch", "16M", "eager", th), fused),
                ratio(t(case, "tensora", "16M", "traced-unfused", th), fused)))

    def per_op(lib, form):
        v = counter("per_op_ns", "Replay100", lib, "8", form)
        return v * 1e-9 if v else None

    torch_op = per_op("torch", "eager")
    lines += [
        "",
        "Replay: 100 elementwise ops on 8-element F32 tensors, cost per op (run time / 100):",
        "",
        "| form | per op | ÷ LibTorch eager per op (target <= 0.2 for traced) |",
        "| --- | ---: | ---: |",
    ]
    for label, lib, form in (("traced, unfused (100 steps)", "tensora", "traced-unfused"),
                             ("traced, fused", "tensora", "traced-fused"),
                             ("direct ops", "tensora", "direct"),
                             ("LibTorch eager", "torch", "eager"),
                             ("LibTorch eager, InferenceMode", "torch", "eager-inference")):
        v = per_op(lib, form)
        lines.append("| {} | {} | {} |".format(label, fmt(v), ratio(v, torch_op)))

    lines += [
        "",
        "Peak memory of one run of a 20-op chain over 16M F32 (bytes in use above the level before "
        "the run, in 64 MiB buffers; the output is one):",
        "",
        "| threads | fused: peak buffers | unfused: peak buffers | unfused ÷ fused time |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for th in (1, 2):
        pf = counter("peak_buffers", "Peak20", "tensora", "16M", "traced-fused", th)
        pu = counter("peak_buffers", "Peak20", "tensora", "16M", "traced-unfused", th)
        lines.append("| {} | {} | {} | {} |".format(
            th, "-" if pf is None else "{:.2f}".format(pf), "-" if pu is None else "{:.2f}".format(pu),
            ratio(t("Peak20", "tensora", "16M", "traced-unfused", th),
                  t("Peak20", "tensora", "16M", "traced-fused", th))))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--doc", default=bench_doc.DEFAULT_DOC)
    ap.add_argument("--print", action="store_true", help="print the section instead of writing the doc")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--min-time", default="0.3")
    args = ap.parse_args()
    # Google Benchmark 1.7 (Debian 12) takes --benchmark_min_time as plain seconds, no suffix.
    rows, context = run(args.binary, args.repetitions, args.min_time)
    cmd = "/usr/bin/python3 bench/traced_compare.py build-bench/bench/tensora_bench_traced"
    if args.repetitions != 5 or args.min_time != "0.3":
        cmd = "/usr/bin/python3 bench/traced_compare.py --repetitions {} --min-time {} {}".format(
            args.repetitions, args.min_time, "build-bench/bench/tensora_bench_traced")
    body = render(rows, context, cmd)
    if args.print:
        print(body)
        return
    bench_doc.write_section(os.path.normpath(args.doc), "traced", body, "## Traced")
    print("wrote", os.path.normpath(args.doc), file=sys.stderr)


if __name__ == "__main__":
    main()
