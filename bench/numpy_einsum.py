#!/usr/bin/python3
"""NumPy's einsum(optimize=True) on the cases of bench_einsum.cpp, single-threaded BLAS.

Run with Debian's Python: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/numpy_einsum.py
Prints one line per case: name, median milliseconds over repetitions.
"""
import time

import numpy as np

CASES = [
    ("batched_matmul", "bij,bjk->bik", [(64, 96, 96), (64, 96, 96)]),
    ("tensor_contraction", "abc,cbd->ad", [(256, 48, 48), (48, 48, 256)]),
    ("matrix_chain5", "ab,bc,cd,de,ef->af", [(400, 40), (40, 500), (500, 20), (20, 300), (300, 600)]),
]


def median_ms(fn, reps=15):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    rng = np.random.default_rng(1)
    for name, subs, shapes in CASES:
        ops = [rng.random(s) for s in shapes]
        print(f"{name} {median_ms(lambda: np.einsum(subs, *ops, optimize=True)):.3f}")


if __name__ == "__main__":
    main()
