#!/usr/bin/python3
"""Runs tensora_bench (or reads its JSON) and writes the comparison into docs/BENCHMARKS.md.

    /usr/bin/python3 bench/compare.py build-bench/bench/tensora_bench
    /usr/bin/python3 bench/compare.py results.json            # re-render a saved run

Rows are named BM_<Op>/<lib>/<dtype>/<shape>/<form>/threads:<n> (bench/bench_common.hpp).
Rows of one case (same op, dtype, shape, threads) are paired across libs and forms; every
figure in the doc is a ratio inside one run, plus achieved GB/s against the STREAM triad
row (BM_Triad/ref/...) of the same thread count. Standard library only.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

import bench_doc  # bench/bench_doc.py

BEGIN = "<!-- {}:begin -->"
END = "<!-- {}:end -->"

# Ops whose rows go in the reductions section (written only when such rows exist).
REDUCE_OPS = {"Sum", "Max"}
# Forms that are columns of one case; any other form (all/inner/outer) is part of the case.
COLUMN_FORMS = ("alloc", "into", "plain")
LIB_ORDER = ("tensora", "torch", "ref")
# Timed by the calling thread's CPU time at every thread count (see collect()).
CPU_CLOCK_OPS = {"TinyAdd"}

# Targets from the performance issue; checked in the summary.
TARGET_TRIAD_FRACTION = 0.95
TARGET_ALLOC_OVER_INTO = 1.2
TARGET_EXP_OVER_FLOOR = 1.15
TARGET_TINY_NS = 150.0

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

INTRO = """# Benchmarks

Every performance figure for tensora comes from `bench/`, measured side by side with a peer in
one run of one binary: tensora, LibTorch C++ (Debian's `libtorch-dev`,
viewing the very same input memory through `torch::from_blob`), and a plain reference loop
(`bench/reference_kernels.cpp`, the only code built with `-O3 -march=native`). The STREAM
triad `a[i] = b[i] + s * c[i]` (double, 16M elements) is the bandwidth floor we quote.

**Ratios from one run are what we quote.** Absolute times on shared machines are noisy: the
development machine is a KVM guest with 2 cores of an AVX-512 Xeon (Highway dispatches
tensora's kernels to its AVX3 target), 23 GiB of memory, and other engineers compile on the
same 2 cores while a benchmark runs. A number is only compared with numbers of the same run;
re-run before drawing conclusions from small differences, and read 2-thread rows with care
when the load average at the start of the run (printed with each section) is above 1.

## How to reproduce

```sh
DEBIAN_FRONTEND=noninteractive apt-get install -y libbenchmark-dev libtorch-dev  # torch: optional
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release \\
      -DTENSORA_BUILD_BENCH=ON -DTENSORA_BUILD_TESTS=OFF -DTENSORA_BENCH_REDUCE=ON
cmake --build build-bench -j2
/usr/bin/python3 bench/compare.py build-bench/bench/tensora_bench
```

`-DTENSORA_BENCH_REDUCE=ON` adds `bench/bench_reduce.cpp` (off by default); without
`libtorch-dev` the binary has the tensora and reference columns only. `compare.py` runs the
binary with `--benchmark_format=json --benchmark_repetitions=3
--benchmark_report_aggregates_only=true --benchmark_min_time=0.2` plus
`--benchmark_enable_random_interleaving=true` (slow drifts in machine load spread over all
rows), which takes about 4 minutes; it keeps the JSON next to the binary
(`build-bench/bench/tensora_bench.json`) and rewrites the sections between the
`<!-- NAME:begin -->` / `<!-- NAME:end -->` markers below. `compare.py FILE.json` re-renders a
saved run; `--filter REGEX` runs a subset; `--clock real` uses wall time for every row.

Row names: `BM_<Op>/<lib>/<dtype>/<shape>/<form>/threads:<n>`, e.g.
`BM_Add/tensora/f32/16M/into/threads:1`.

- `lib`: `tensora`; `torch`; `torch-addcmul` (LibTorch's fused `addcmul`, for a*b+c);
  `torch-inference` (under `c10::InferenceMode`); `ref` (plain loop).
- `form`: `alloc` (`x.add(y, e)` / `torch::add`), `into` (`x.add_into(y, e, dest)` /
  `torch::add_out`), `plain` (reference loop); for reductions `all`, `inner` (the contiguous
  axis: tensora axis 0, LibTorch dim 1 of the same memory) or `outer`.
- `shape`: `16M` is 1<<24 elements; `4096x4096T` is a 4096x4096 matrix in the library's native
  order viewed transposed (tensora `reshape({4096, 4096}).transpose()`, LibTorch `.t()`), for
  every input and, in the `into` form, the destination too.
- Threads: tensora `CpuEngine::serial()` / `CpuEngine::parallel(2)`, LibTorch
  `at::set_num_threads(n)`, the reference splits the range into n equal parts.
- `Fma` is a*b+c. tensora has no fused op: `alloc` is `a.mul(b, e).add(c, e)`, `into` is
  `a.mul_into(b, e, d); d.add_into(c, e, d)`; `torch` does the same two ops, `torch-addcmul`
  one fused pass, `ref` one fused loop.
- The `ref` of Exp and Tanh is the memory floor of a unary op, STREAM "scale" `out = s * in`;
  the `ref` of a transposed case is the flat loop (every operand has one layout there).
- Bytes count each array an op must touch once (add 3, a*b+c 4, exp/tanh 2, triad 3, reduction
  1), so GB/s compare across libraries; write-allocate traffic is not counted for anyone.

## Elementwise

<!-- elementwise:begin -->
<!-- elementwise:end -->

## Reductions

<!-- reduce:begin -->
Not run yet: configure with `-DTENSORA_BENCH_REDUCE=ON`.
<!-- reduce:end -->
"""


# ---------------------------------------------------------------------------------------
# Running and parsing


def run_binary(binary, args):
    json_path = args.json_out or os.path.join(os.path.dirname(os.path.abspath(binary)),
                                              "tensora_bench.json")
    cmd = [binary, "--benchmark_format=json",
           "--benchmark_repetitions={}".format(args.repetitions),
           "--benchmark_report_aggregates_only=true",
           "--benchmark_min_time={}".format(args.min_time)]
    if args.interleave:
        cmd.append("--benchmark_enable_random_interleaving=true")
    if args.filter:
        cmd.append("--benchmark_filter={}".format(args.filter))
    print("running:", " ".join(cmd), file=sys.stderr)
    started = datetime.datetime.now()
    # JSON on stdout; the benchmark library's own warnings go to stderr and pass through.
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    elapsed = (datetime.datetime.now() - started).total_seconds()
    print("benchmark run took {:.0f} s".format(elapsed), file=sys.stderr)
    data = json.loads(out)
    data.setdefault("context", {})["compare_py_elapsed_s"] = round(elapsed)
    try:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
        if rev:
            data["context"]["tensora_revision"] = rev + (" plus uncommitted changes" if dirty else "")
    except OSError:
        pass
    try:
        pkg = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}", "libtorch-dev"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
        if pkg:
            data["context"]["torch_package"] = pkg
    except OSError:
        pass
    data["context"]["compare_py_command"] = " ".join([os.path.relpath(binary)] + cmd[1:])
    # The JSON keeps these additions, so `compare.py FILE.json` renders the same section.
    with open(json_path, "w") as f:
        json.dump(data, f, indent=1)
    print("JSON kept in", json_path, file=sys.stderr)
    return data


def parse_name(run_name):
    """BM_Add/tensora/f32/16M/into/threads:1[/real_time] -> dict, or None."""
    parts = [p for p in run_name.split("/") if p not in ("real_time", "process_time")]
    if len(parts) != 6 or not parts[0].startswith("BM_") or not parts[5].startswith("threads:"):
        return None
    op, lib, dtype, shape, form, threads = parts
    return {"op": op[3:], "lib": lib, "dtype": dtype, "shape": shape, "form": form,
            "threads": int(threads.split(":")[1])}


def collect(data, statistic, clock="auto"):
    """Returns {run_name_fields_tuple: row} with time in ns and bytes/s, one per row name."""
    rows = {}
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            print("skipping failed row", b.get("name"), b.get("error_message"), file=sys.stderr)
            continue
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") != statistic:
                continue
        elif any(x.get("run_type") == "aggregate" for x in data["benchmarks"]):
            continue  # plain repetitions next to aggregates: use the aggregates only
        info = parse_name(b.get("run_name", b["name"]))
        if info is None:
            continue
        key = (info["op"], info["lib"], info["dtype"], info["shape"], info["form"], info["threads"])
        unit = UNIT_NS[b.get("time_unit", "ns")]
        real_ns = float(b["real_time"]) * unit
        # One thread: the thread's CPU time, which does not count the time other processes
        # on a shared machine held the core. More threads: wall time (the only fair clock).
        # Ops in CPU_CLOCK_OPS never leave the calling thread (far below both libraries' parallel
        # grain), so its CPU time is their whole cost at any thread count.
        use_cpu = clock == "auto" and (info["threads"] == 1 or info["op"] in CPU_CLOCK_OPS)
        ns = float(b["cpu_time"]) * unit if use_cpu else real_ns
        bps = b.get("bytes_per_second")
        if bps and ns:
            bps = bps * real_ns / ns  # the library computes it from wall time (UseRealTime)
        row = dict(info, ns=ns, bps=bps)
        if key in rows and b.get("run_type") != "aggregate":
            # several plain repetitions: keep the median by time
            rows[key].setdefault("_all", [rows[key]["ns"]]).append(ns)
            allv = sorted(rows[key]["_all"])
            rows[key]["ns"] = allv[len(allv) // 2]
            continue
        rows[key] = row
    return rows


# ---------------------------------------------------------------------------------------
# Grouping into cases


def lib_rank(lib):
    base = lib.split("-")[0]
    return (LIB_ORDER.index(base) if base in LIB_ORDER else len(LIB_ORDER), lib != base, lib)


def form_rank(form):
    return COLUMN_FORMS.index(form) if form in COLUMN_FORMS else len(COLUMN_FORMS)


def group_cases(rows):
    """{case_key: {column: row}} with case_key (op, dtype, shape, subcase, threads)."""
    cases = {}
    for r in rows.values():
        if r["op"] == "Triad":
            continue
        if r["form"] in COLUMN_FORMS:
            case = (r["op"], r["dtype"], r["shape"], "", r["threads"])
            col = (r["lib"], r["form"])
        else:
            case = (r["op"], r["dtype"], r["shape"], r["form"], r["threads"])
            col = (r["lib"], "")
        cases.setdefault(case, {})[col] = r
    return cases


def triad_bps(rows):
    out = {}
    for r in rows.values():
        if r["op"] == "Triad" and r["bps"]:
            out[r["threads"]] = r["bps"]
    return out


# ---------------------------------------------------------------------------------------
# Formatting


def fmt_time(ns):
    if ns >= 1e6:
        return "{:.2f} ms".format(ns / 1e6)
    if ns >= 1e3:
        return "{:.2f} µs".format(ns / 1e3)
    return "{:.0f} ns".format(ns)


def fmt_cell(r):
    if r is None:
        return "–"
    s = fmt_time(r["ns"])
    if r.get("bps") and r["ns"] >= 1e5:
        s += " · {:.1f} GB/s".format(r["bps"] / 1e9)
    return s


def fmt_ratio(x):
    return "–" if x is None else "{:.2f}×".format(x)


def fmt_pct(x):
    return "–" if x is None else "{:.0f}%".format(100 * x)


def ratio(a, b):
    if a is None or b is None or not b["ns"]:
        return None
    return a["ns"] / b["ns"]


def col_name(col):
    lib, form = col
    return lib if not form or form == "plain" else "{} {}".format(lib, form)


def case_label(case):
    op, dtype, shape, sub, threads = case
    label = "{} {} {}".format(op, dtype, shape)
    return label + (" " + sub if sub else "")


def case_sort_key(case, order):
    op, dtype, shape, sub, threads = case
    return (order.index(op) if op in order else len(order), op, dtype, "T" in shape, shape,
            ["all", "inner", "outer"].index(sub) if sub in ("all", "inner", "outer") else 0,
            threads)


def table(header, body, left=1):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i < left else "--:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def best_tensora(cols):
    """The tensora row a bandwidth figure is quoted for: `into` when present."""
    for key in (("tensora", "into"), ("tensora", ""), ("tensora", "alloc")):
        if key in cols:
            return cols[key]
    return None


def render_cases(cases, triad, op_order):
    """One table per op family: all columns present, then the ratios."""
    out = []
    ops = sorted({c[0] for c in cases}, key=lambda o: (op_order.index(o) if o in op_order else 99, o))
    for op in ops:
        mine = {c: v for c, v in cases.items() if c[0] == op}
        cols = sorted({col for v in mine.values() for col in v},
                      key=lambda c: (lib_rank(c[0]), form_rank(c[1])))
        has_forms = any(f in ("alloc", "into") for _, f in cols)
        has_torch = any(l == "torch" for l, _ in cols)
        bandwidth = any(r.get("bps") for v in mine.values() for r in v.values()) and op != "TinyAdd"
        header = ["case", "thr"] + [col_name(c) for c in cols]
        if has_torch:
            header += ["tensora ÷ torch" + (" (alloc / into)" if has_forms else "")]
        if has_forms:
            header += ["alloc ÷ into"]
        header += ["tensora ÷ ref"]
        if bandwidth and triad:
            header += ["of triad" + (" (alloc / into)" if has_forms else "")]
        body = []
        for case in sorted(mine, key=lambda c: case_sort_key(c, op_order)):
            v = mine[case]
            row = [case_label(case), case[4]] + [fmt_cell(v.get(c)) for c in cols]
            if has_torch:
                if has_forms:
                    row.append("{} / {}".format(
                        fmt_ratio(ratio(v.get(("tensora", "alloc")), v.get(("torch", "alloc")))),
                        fmt_ratio(ratio(v.get(("tensora", "into")), v.get(("torch", "into"))))))
                else:
                    row.append(fmt_ratio(ratio(v.get(("tensora", "")), v.get(("torch", "")))))
            if has_forms:
                row.append(fmt_ratio(ratio(v.get(("tensora", "alloc")), v.get(("tensora", "into")))))
            ref = v.get(("ref", "plain")) or v.get(("ref", ""))
            row.append(fmt_ratio(ratio(best_tensora(v), ref)))
            if bandwidth and triad:
                t = triad.get(case[4])

                def frac(r):
                    return r["bps"] / t if (r and r.get("bps") and t) else None
                if has_forms:
                    row.append("{} / {}".format(fmt_pct(frac(v.get(("tensora", "alloc")))),
                                                fmt_pct(frac(v.get(("tensora", "into"))))))
                else:
                    row.append(fmt_pct(frac(best_tensora(v))))
            body.append(row)
        out.append("### {}\n\n{}".format(op, table(header, body)))
    return "\n\n".join(out)


def verdict(ok):
    return "meets" if ok else "**misses**"


def render_targets(cases, triad):
    bandwidth, alloc, exp, tiny = [], [], [], []

    def get(op, dtype, shape, threads):
        return cases.get((op, dtype, shape, "", threads), {})

    for op, dtype, shape in (("Add", "f32", "16M"), ("Add", "f64", "16M"), ("Fma", "f32", "16M"),
                             ("Fma", "f64", "16M"), ("Add", "f32", "4096x4096T"),
                             ("Add", "f64", "4096x4096T")):
        for form in ("into", "alloc"):
            for threads in sorted(triad):
                t = triad[threads]
                r = get(op, dtype, shape, threads).get(("tensora", form))
                if r and r.get("bps"):
                    f = r["bps"] / t
                    bandwidth.append(["elementwise ≥ {:.0f}% of triad".format(100 * TARGET_TRIAD_FRACTION),
                                      "{} {} {} {}, {}T".format(op, dtype, shape, form, threads),
                                      "{:.1f} GB/s = {} of {:.1f} GB/s".format(r["bps"] / 1e9, fmt_pct(f),
                                                                               t / 1e9),
                                      verdict(f >= TARGET_TRIAD_FRACTION)])
    for case in sorted(cases, key=lambda c: case_sort_key(c, ["Add", "Fma", "Exp", "Tanh"])):
        v = cases[case]
        x = ratio(v.get(("tensora", "alloc")), v.get(("tensora", "into")))
        if x is not None and case[0] != "TinyAdd":
            alloc.append(["alloc within {:.1f}× of into".format(TARGET_ALLOC_OVER_INTO),
                          "{}, {}T".format(case_label(case), case[4]), fmt_ratio(x),
                          verdict(x <= TARGET_ALLOC_OVER_INTO)])
    for threads in sorted({c[4] for c in cases}):
        v = get("Exp", "f32", "16M", threads)
        for form in ("into", "alloc"):
            x = ratio(v.get(("tensora", form)), v.get(("ref", "plain")))
            if x is not None:
                exp.append(["exp within {:.2f}× of the memory floor".format(TARGET_EXP_OVER_FLOOR),
                            "Exp f32 16M {}, {}T (floor: ref scale)".format(form, threads), fmt_ratio(x),
                            verdict(x <= TARGET_EXP_OVER_FLOOR)])
        v = get("TinyAdd", "f32", "4", threads)
        r = v.get(("tensora", "alloc"))
        if r:
            peer = v.get(("torch", "alloc"))
            tiny.append(["4-element add ≤ {:.0f} ns".format(TARGET_TINY_NS),
                         "a.add(b, e), {}T".format(threads),
                         "{}{}".format(fmt_time(r["ns"]),
                                       " (torch::add {})".format(fmt_time(peer["ns"])) if peer else ""),
                         verdict(r["ns"] <= TARGET_TINY_NS)])
    body = bandwidth + alloc + exp + tiny
    if not body:
        return ""
    return "### Targets\n\n" + table(["target", "case", "measured", "verdict"], body, left=4)


def render_context(data, statistic, repetitions):
    ctx = data.get("context", {})
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    caches = ", ".join("L{} {} KiB{}".format(c["level"], c["size"] // 1024,
                                              " shared by {}".format(c["num_sharing"])
                                              if c.get("num_sharing", 0) > 1 else "")
                       for c in ctx.get("caches", []) if c.get("type") in ("Data", "Unified"))
    load = ", ".join("{:.2f}".format(x) for x in ctx.get("load_avg", []))
    lines = [
        "Run {} on {} ({} CPUs at {} MHz{}; {}), load average at start {}.".format(
            ctx.get("date", "?"), model or ctx.get("host_name", "?"), ctx.get("num_cpus", "?"),
            ctx.get("mhz_per_cpu", "?"), ", frequency scaling on" if ctx.get("cpu_scaling_enabled") else "",
            caches or "caches unknown", load or "?"),
        "{} of {} repetitions; {}; Google Benchmark library reports build type {}.".format(
            statistic, repetitions or "?", platform.platform(), ctx.get("library_build_type", "?")),
    ]
    if "torch_version" in ctx:
        lines.append("LibTorch {} (headers' TORCH_VERSION; package {}); tensora kernels: Highway runtime "
                     "dispatch.".format(ctx["torch_version"], ctx.get("torch_package", "libtorch-dev")))
    if "tensora_revision" in ctx:
        lines.append("tensora at {}.".format(ctx["tensora_revision"]))
    if "compare_py_elapsed_s" in ctx:
        lines.append("Whole run: {} s.".format(ctx["compare_py_elapsed_s"]))
    return "\n".join(lines)


def render_section(data, rows, ops, statistic, repetitions, with_targets, order):
    triad = triad_bps(rows)
    cases = {c: v for c, v in group_cases(rows).items() if c[0] in ops}
    if not cases:
        return None
    parts = [render_context(data, statistic, repetitions)]
    if triad:
        parts.append("STREAM triad (ref, f64 16M): " + ", ".join(
            "{:.1f} GB/s at {} thread{}".format(triad[t] / 1e9, t, "s" if t > 1 else "") for t in sorted(triad))
            + ". Cells: {} time · GB/s; {}. Ratios are of times: < 1 means tensora is faster.".format(
                statistic, "wall time throughout" if data.get("context", {}).get("_clock") == "real" else
                "the time is the thread's CPU time for 1-thread rows (it leaves out the time other processes"
                " held the core) and wall time for 2-thread rows, except TinyAdd: CPU time throughout, as"
                " 4 elements never leave the calling thread in either library"))
    if with_targets:
        tgt = render_targets(cases, triad)
        if tgt:
            parts.append(tgt)
    parts.append(render_cases(cases, triad, order))
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------
# Writing the doc


def replace_section(text, name, body):
    heading = "## " + {"elementwise": "Elementwise", "reduce": "Reductions"}.get(name, name)
    return bench_doc.replace_section(text, name, body, heading)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", help="the tensora_bench binary, or a JSON file it wrote")
    ap.add_argument("--doc", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                                                  "BENCHMARKS.md"))
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--min-time", default="0.2", help="seconds per repetition (--benchmark_min_time)")
    ap.add_argument("--filter", default="", help="--benchmark_filter regex")
    ap.add_argument("--no-interleave", dest="interleave", action="store_false",
                    help="do not pass --benchmark_enable_random_interleaving=true")
    ap.add_argument("--statistic", default="median", choices=("median", "mean"))
    ap.add_argument("--clock", default="auto", choices=("auto", "real"),
                    help="auto: CPU time for 1-thread rows, wall time otherwise; real: wall time")
    ap.add_argument("--json-out", default="", help="where to keep the JSON (default: next to the binary)")
    ap.add_argument("--print", action="store_true", help="print the sections instead of writing the doc")
    args = ap.parse_args()

    if args.source.endswith(".json"):
        with open(args.source) as f:
            data = json.load(f)
    else:
        data = run_binary(args.source, args)
    repetitions = None
    for b in data.get("benchmarks", []):
        repetitions = b.get("repetitions", repetitions)
    rows = collect(data, args.statistic, args.clock)
    data.setdefault("context", {})["_clock"] = args.clock
    if not rows:
        sys.exit("no benchmark rows named BM_<Op>/<lib>/<dtype>/<shape>/<form>/threads:<n> found")

    all_ops = {r["op"] for r in rows.values()}
    sections = {}
    elem = render_section(data, rows, all_ops - REDUCE_OPS - {"Triad"}, args.statistic, repetitions, True,
                          ["Add", "Fma", "Exp", "Tanh", "TinyAdd"])
    if elem:
        sections["elementwise"] = elem
    red = render_section(data, rows, all_ops & REDUCE_OPS, args.statistic, repetitions, False, ["Sum", "Max"])
    if red:
        sections["reduce"] = red

    if args.print:
        for name, body in sections.items():
            print(BEGIN.format(name))
            print(body)
            print(END.format(name))
        return
    doc = os.path.normpath(args.doc)
    text = open(doc).read() if os.path.exists(doc) else INTRO
    for name, body in sections.items():
        text = replace_section(text, name, body)
    os.makedirs(os.path.dirname(doc), exist_ok=True)
    with open(doc, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")
    print("wrote", doc, "sections:", ", ".join(sections), file=sys.stderr)


if __name__ == "__main__":
    main()
