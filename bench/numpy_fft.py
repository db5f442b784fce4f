#!/usr/bin/python3
"""FFTs side by side: tensora with FFTW and with its built-in provider, FFTW called directly,
LibTorch (when the binary has it) and numpy.fft, on the cases of bench/bench_fft.cpp.

Usage (Debian's Python, for python3-numpy):
  /usr/bin/python3 bench/numpy_fft.py build/bench/tensora_bench_fft
prints a markdown table of medians (ms) and ratios peer / tensora (above 1: tensora is faster);
paste it into docs/BENCHMARKS.md, section "FFT". NumPy is single-threaded (pocketfft).
tensora's rows: `alloc` (a fresh result per call, as torch::fft and numpy.fft) and `into` (the
`_into` form into one destination, as FFTW's direct execute reuses its arrays).
"""
import json
import os
import subprocess
import sys
import time

CASES = [  # name, shape in NumPy's row-major order (the transform runs on the last axes), kind
    ("c1024", (1024,), "fft"), ("c65536", (65536,), "fft"), ("c1048576", (1 << 20,), "fft"),
    ("c1000", (1000,), "fft"), ("c10007", (10007,), "fft"), ("r1048576", (1 << 20,), "rfft"),
    ("2d1024x1024", (1024, 1024), "fft2"), ("batch1000x1024", (1000, 1024), "fft"),
]


def median_ms(fn, min_time=0.3, reps=5):
    fn()
    times = []
    for _ in range(reps):
        count, t0 = 0, time.perf_counter()
        while True:
            fn()
            count += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= min_time / reps:
                break
        times.append(elapsed / count * 1e3)
    times.sort()
    return times[len(times) // 2]


def numpy_times():
    import numpy as np
    rng = np.random.default_rng(1)
    out = {}
    for name, shape, kind in CASES:
        if kind == "rfft":
            x = rng.random(shape)
            out[name] = median_ms(lambda: np.fft.rfft(x))
        else:
            x = rng.random(shape) + 1j * rng.random(shape)
            out[name] = median_ms(lambda: np.fft.fft2(x) if kind == "fft2" else np.fft.fft(x))
    return out


def bench_times(binary, provider):
    env = dict(os.environ)
    if provider == "builtin":
        env["TENSORA_FFT"] = "builtin"
    run = subprocess.run([binary, "--benchmark_format=json", "--benchmark_repetitions=3",
                          "--benchmark_min_time=0.3", "--benchmark_report_aggregates_only=true"],
                         env=env, check=True, capture_output=True, text=True)
    data = json.loads(run.stdout)
    rows = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        # BM_Fft/<lib>/<dtype>/<case>/<form>/threads:<n>/real_time
        parts = b["run_name"].split("/")
        rows[(parts[1], parts[3], parts[4], parts[5])] = b["real_time"]
    return rows, data["context"].get("tensora_fft", "?")


def ms(v):
    """Three significant digits: microsecond rows keep theirs."""
    return f"{v:.3g}" if v < 1 else f"{v:.3f}"


def main():
    binary = sys.argv[1]
    fftw_rows, fftw_name = bench_times(binary, "fftw")
    own_rows, own_name = bench_times(binary, "builtin")
    numpy = numpy_times()
    has_torch = any(key[0] == "torch" for key in fftw_rows)
    head = "| case | threads | tensora, " + fftw_name + " (ms) | into | tensora, " + own_name + " (ms) | FFTW direct | "
    head += ("torch::fft | " if has_torch else "") + "numpy.fft | FFTW direct / tensora | FFTW direct / tensora into | "
    head += ("torch / tensora | " if has_torch else "") + "numpy / tensora | numpy / tensora(built-in) |"
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for name, _, _ in CASES:
        for t in ("threads:1", "threads:2"):
            a = fftw_rows.get(("tensora", name, "alloc", t))
            i = fftw_rows.get(("tensora", name, "into", t))
            b = own_rows.get(("tensora", name, "alloc", t))
            d = fftw_rows.get(("fftw", name, "direct", "threads:1"))
            n = numpy[name]
            cells = [name, t[-1], ms(a), ms(i), ms(b), ms(d) if d else "-"]
            tt = fftw_rows.get(("torch", name, "alloc", t)) if has_torch else None
            if has_torch:
                cells.append(ms(tt) if tt else "-")
            cells += [ms(n), f"{d / a:.2f}" if d else "-", f"{d / i:.2f}" if d else "-"]
            if has_torch:
                cells.append(f"{tt / a:.2f}" if tt else "-")
            cells += [f"{n / a:.2f}", f"{n / b:.2f}"]
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
