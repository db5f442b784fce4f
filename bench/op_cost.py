#!/usr/bin/python3
"""Instructions per call of tiny ops (valgrind's callgrind), for one or two builds.

    bench/op_cost.py build/bench/tensora_op_cost [OTHER/bench/tensora_op_cost]

Runs each case of bench/op_cost.cpp for N1 and N2 calls and prints (I(N2) - I(N1)) / (N2 - N1),
which is exact and repeatable: the same binary and input give the same count on a noisy VM.
Needs valgrind (Debian: apt-get install valgrind) and a build with TENSORA_BUILD_BENCH=ON.
"""
import re
import subprocess
import sys

CASES = ["add", "eager-const", "eager-grad", "fft1024", "fft1024-into", "plain-loop"]
N1, N2 = 1000, 3000


def instructions(binary, n, case):
    # Only the calls under measured_calls() count: the start-up (Highway times its clock) varies.
    run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--collect-atstart=no",
                          "--toggle-collect=*measured_calls*", binary, str(n), case],
                         capture_output=True, text=True, check=True)
    return int(re.search(r"refs:\s+([\d,]+)", run.stderr).group(1).replace(",", ""))


def per_call(binary, case):
    return (instructions(binary, N2, case) - instructions(binary, N1, case)) / (N2 - N1)


def main():
    binaries = sys.argv[1:]
    if not 1 <= len(binaries) <= 2:
        sys.exit(__doc__)
    counts = {b: {c: per_call(b, c) for c in CASES} for b in binaries}
    header = "| case | " + " | ".join(binaries) + (" | second / first |" if len(binaries) == 2 else "")
    print(header)
    print("|" + " --- |" * (len(binaries) + 1 + (len(binaries) == 2)))
    for c in CASES:
        row = [f"{counts[b][c]:.0f}" for b in binaries]
        if len(binaries) == 2:
            row.append(f"{counts[binaries[1]][c] / counts[binaries[0]][c]:.2f}")
        print(f"| {c} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
