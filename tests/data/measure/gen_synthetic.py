#!/usr/bin/env python3
"""Writes synthetic_compare.json: a SYNTHETIC "lowerscope.run/1" A/B result for the GUI tests.

The numbers are generated here (seeded, deterministic), NOT measured on a GPU. The document says so
("synthetic": true and a note), and the measurement pane labels it. Use a real
`lowerscope-cli compare --json` result from a GPU machine wherever one is committed.
Usage: python3 tests/data/measure/gen_synthetic.py > tests/data/measure/synthetic_compare.json
"""
import json
import random

rng = random.Random(7)


def variant(label, median_ms, clock, registers, occupancy):
    samples, clocks = [], []
    for i in range(40):
        samples.append(round(median_ms * (1 + rng.gauss(0, 0.004)), 6))
        clocks.append(round(clock + rng.gauss(0, 6), 1))
    samples[23] = round(median_ms * 1.06, 6)  # one slow sample (an outlier candidate)
    return {
        "label": label,
        "kernel": "fast_math_kernel",
        "mode": "cold",
        "resources": {"registers": registers, "static_shared_bytes": 0, "local_bytes": 0},
        "occupancy": {"fraction": occupancy},
        "first_launch_ms": round(median_ms * 3.1, 6),
        "samples_ms": samples,
        "sample_clock_mhz": clocks,
        "throttled_samples": 0,
        "stop_reason": "noise",
        "bytes": 8 * (1 << 24),
        "flops": 20 * (1 << 24),
        "outputs": [{"name": "y", "type": "f32", "count": 1 << 24, "digest": "%016x" % rng.getrandbits(64),
                     "fully_written": True}],
    }


doc = {
    "schema": "lowerscope.run/1",
    "synthetic": True,
    "note": "SYNTHETIC fixture (tests/data/measure/gen_synthetic.py), not measured on a GPU",
    "source": "kernels/fast_math.cu",
    "mode": "cold",
    "device": {"name": "NVIDIA H200 (synthetic)", "sm_count": 132, "clock_mhz": 1980,
               "peak_bandwidth_gbs": 4800.0, "copy_bandwidth_gbs": 4250.0, "fp32_peak_gflops": 66908.0},
    "launch": {"grid": ["ceil(n/256)"], "block": ["256"], "shared_bytes": "0",
               "args": ["n=1<<24", "x=f32[n]:random", "y=f32[n]:zeros"]},
    "variants": [variant("A", 0.1210, 1965, 16, 1.0), variant("B", 0.0853, 1971, 14, 1.0)],
    "agreement": [{"name": "y", "label_a": "A", "label_b": "B", "same_digest": False, "agree": True,
                   "count": 1 << 24, "mismatches": 0, "max_abs_error": 8.3e-7, "max_rel_error": 2.1e-6}],
}
print(json.dumps(doc, indent=1))
