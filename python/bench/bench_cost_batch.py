"""Throughput of bankscope.cost_batch on one core: warp instructions per second.

    python python/bench/bench_cost_batch.py > python/bench/cost_batch_results.txt

Rows are built before timing (uint32 [N, 32], the zero-copy input); the time covers the whole call
(argument checks, the C++ loop over rows, the result arrays). Median of 7 runs per case, in CPU
time of this process (time.process_time): the workplace's 2 cores are shared with other jobs, so
wall time would measure the queue, not the code. The wall-clock rate is printed beside it.
"""
import os
import platform
import statistics
import sys
import time

import numpy as np

import bankscope

N = 1_000_000


def median_rate(offsets, width, op="ld", mask=0xFFFFFFFF, runs=7):
    bankscope.cost_batch(offsets, width, op, mask)  # warm up
    cpu, wall = [], []
    for _ in range(runs):
        c0, t0 = time.process_time(), time.perf_counter()
        bankscope.cost_batch(offsets, width, op, mask)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    return len(offsets) / statistics.median(cpu), len(offsets) / statistics.median(wall)


def row(name, rates, digits=1):
    print(f"{name:<48}{rates[0] / 1e6:>16.{digits}f}{rates[1] / 1e6:>10.{digits}f}")
    sys.stdout.flush()


def main():
    rng = np.random.default_rng(1)
    lanes = np.arange(32, dtype=np.uint32)
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"# bankscope.cost_batch, N = {N:,} warp instructions per call, median of 7 calls")
    print(f"# python {platform.python_version()}, numpy {np.__version__}, cpu: {cpu}, "
          f"cost() path: {bankscope.cost_implementation()}, affinity: {len(os.sched_getaffinity(0))} cores")
    print(f"# load average at start: {os.getloadavg()[0]:.1f}")
    print(f"{'case':<48}{'M instr/s (CPU)':>16}{'(wall)':>10}")
    cases = []
    strides = rng.integers(0, 65, size=N, dtype=np.uint32)
    for width in (4, 8, 16):
        cases.append((f"{width}-byte, strided (element strides 0..64)", (strides[:, None] * lanes[None, :] * width) % 200_000 // width * width, width))
    for width in (4, 8, 16):
        rand = rng.integers(0, 200_000 // width, size=(N, 32), dtype=np.uint32) * np.uint32(width)
        cases.append((f"{width}-byte, random addresses", rand, width))
    for name, offs, width in cases:
        offs = np.ascontiguousarray(offs, dtype=np.uint32)
        row(name, median_rate(offs, width))
    offs = np.ascontiguousarray(cases[0][1], dtype=np.uint32)
    masks = rng.integers(0, 2**32, size=N, dtype=np.uint64).astype(np.uint32)
    row("4-byte, strided, a random mask per row", median_rate(offs, 4, mask=masks))
    i64 = offs.astype(np.int64)
    row("4-byte, strided, int64 input (checked+copied)", median_rate(i64, 4))
    c0, t0 = time.process_time(), time.perf_counter()
    for r in offs[:20_000]:
        bankscope.cost(r, 4)
    row("for comparison: cost() in a Python loop",
        (20_000 / (time.process_time() - c0), 20_000 / (time.perf_counter() - t0)), digits=3)


if __name__ == "__main__":
    main()
