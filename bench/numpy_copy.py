"""NumPy's side of bench/copy_driver.cpp: a C-ordered 4096 x 4096 array copied into Fortran
order (`np.asfortranarray`, the transposing copy tensora's `contiguous()` of a transposed view
makes), its flat copy, and a stack of 64 96 x 96 matrices stored batch-fastest copied
batch-slowest (`np.ascontiguousarray(np.moveaxis(s, -1, 0))`), as in the driver. Best of 5 (20)."""
import time

import numpy as np


def best_ms(reps, f):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


for dt in (np.float16, np.float32, np.float64, np.complex128):
    a = np.random.default_rng(1).uniform(-1, 1, (4096, 4096)).astype(dt)
    s = np.random.default_rng(2).uniform(-1, 1, (96, 96, 64)).astype(dt)  # batch fastest
    print("%-10s asfortranarray %7.2f ms   flat copy %6.2f ms   stack to batch-slowest %6.3f ms" % (
        np.dtype(dt).name, best_ms(5, lambda: np.asfortranarray(a)), best_ms(5, lambda: a.copy()),
        best_ms(20, lambda: np.ascontiguousarray(np.moveaxis(s, -1, 0)))))
