#!/usr/bin/python3
"""File I/O of one large F32 tensor: tensora (bench_io.cpp) vs NumPy vs plain write/read.

Usage (Debian's Python, for python3-numpy):
  TENSORA_BENCH_IO_MIB=1024 /usr/bin/python3 bench/numpy_io.py build-bench/bench/tensora_bench_io
      runs the binary, then times NumPy on a file of the same size, and prints a markdown
      table of medians and ratios (paste into docs/BENCHMARKS.md, section "I/O").
  /usr/bin/python3 bench/numpy_io.py --numpy-only
      prints NumPy's medians only.
The files live in TENSORA_BENCH_IO_DIR (default /tmp) and are in the page cache after the
first repetition, so these are memory-speed figures, not disk figures.
"""
import json
import os
import subprocess
import sys

import bench_doc  # bench/bench_doc.py

MIB = int(os.environ.get("TENSORA_BENCH_IO_MIB", "1024"))
DIR = os.environ.get("TENSORA_BENCH_IO_DIR", "/tmp")


def numpy_times():
    import numpy as np
    a = np.random.default_rng(1).random((MIB * 1024 * 1024 // 4 // 1024, 1024), dtype=np.float32)
    path = os.path.join(DIR, "numpy_bench_io.npy")

    def save_fsync():
        with open(path, "wb") as f:
            np.save(f, a)
            f.flush()
            os.fsync(f.fileno())

    def touch(m):
        flat = m.reshape(-1).view(np.uint8)
        return int(flat[::4096].sum())

    out = {
        "save+fsync": bench_doc.median_ms(save_fsync, reps=7),
        "save": bench_doc.median_ms(lambda: np.save(path, a), reps=7),
        "load mmap": bench_doc.median_ms(lambda: np.load(path, mmap_mode="r"), reps=7),
        "load mmap+touch": bench_doc.median_ms(lambda: touch(np.load(path, mmap_mode="r")), reps=7),
        "load read": bench_doc.median_ms(lambda: np.load(path), reps=7),
    }
    os.remove(path)
    return out


def tensora_times(binary):
    env = dict(os.environ, TENSORA_BENCH_IO_MIB=str(MIB), TENSORA_BENCH_IO_DIR=DIR)
    run = subprocess.run([binary, "--benchmark_format=json", "--benchmark_repetitions=5",
                          "--benchmark_report_aggregates_only=true"],
                         env=env, check=True, capture_output=True, text=True)
    rows = {}
    for b in json.loads(run.stdout)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            rows[b["run_name"].split("/")[0] + "/" + b["run_name"].split("/")[1]] = b["real_time"]
    return rows


def main():
    if "--numpy-only" in sys.argv:
        for k, v in numpy_times().items():
            print(f"{k}\t{v:.3f}")
        return
    t = tensora_times(sys.argv[1])
    n = numpy_times()
    lines = [
        f"{MIB} MiB F32 tensor, files in {DIR} (page cache), medians; ratio = other / tensora "
        "(> 1: tensora is faster).",
        "",
        "| operation | tensora ms | peer | peer ms | ratio |",
        "|---|---:|---|---:|---:|",
    ]

    def row(op, tkey, peer, ms):
        lines.append(f"| {op} | {t[tkey]:.3f} | {peer} | {ms:.3f} | {ms / t[tkey]:.2f} |")

    row("save .npy (atomic, fsync)", "BM_IoSave/tensora-npy", "np.save + fsync", n["save+fsync"])
    row("save .npy (atomic, fsync)", "BM_IoSave/tensora-npy", "write() + fsync", t["BM_IoSave/ref-write-fsync"])
    row("save .npy (atomic, fsync)", "BM_IoSave/tensora-npy", "np.save (no fsync)", n["save"])
    row("load .npy, mmap", "BM_IoLoadMap/tensora-npy", "np.load(mmap_mode='r')", n["load mmap"])
    row("load safetensors, mmap", "BM_IoLoadMap/tensora-safetensors", "np.load(mmap_mode='r')", n["load mmap"])
    row("load .npy, mmap + touch every page", "BM_IoLoadMapTouch/tensora-npy", "np.load(mmap_mode='r') + touch", n["load mmap+touch"])
    row("load .npy, mmap = false", "BM_IoLoadRead/tensora-npy", "np.load()", n["load read"])
    row("load .npy, mmap = false", "BM_IoLoadRead/tensora-npy", "read() into a buffer", t["BM_IoLoadRead/ref-read"])
    print("\n".join(lines))


if __name__ == "__main__":
    main()
