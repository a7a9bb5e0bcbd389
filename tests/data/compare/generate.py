#!/usr/bin/env python3
"""Writes the compare fixtures in this folder (deterministic: run it again, get the same bytes).

Each scenario folder is a small results folder (<op>/<gpu>.json, the format `cuop-tune export`
writes) with raw samples ("samples_us") on every verified trial:

  baseline/   softmax (one compute-free 41 us problem with two configurations, one 6 us problem)
              and gemm (one ~1 ms problem with two configurations), NVIDIA H200
  same/       the same kernels measured again: new noise, same distributions (A/A)
  slower/     as same/, but softmax_f32_4096x4096 10% slower in both configurations
  no-samples/ the baseline as files exported before samples were: no "samples_us"
  other-gpu/  the softmax problems measured on an A100

Samples are median * exp(0.4% * N(0, 1)), 24 per trial, rounded to 0.01 us as export rounds them.
"""
import hashlib
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
N = 24
NOISE = 0.004

SOFTMAX = [  # problem, dims, instance, family, params, median us
    ("softmax_f16_256x1024", {"cols": 1024, "rows": 256}, "softmax_f16_warp_row_v8_t32_r4_c1", "warp_row",
     {"chunks": 1, "rows_per_block": 4, "threads_per_row": 32, "vec": 8}, 6.0),
    ("softmax_f32_4096x4096", {"cols": 4096, "rows": 4096}, "softmax_f32_block_row_v4_b128_c8", "block_row",
     {"block_threads": 128, "chunks": 8, "vec": 4}, 41.0),
    ("softmax_f32_4096x4096", {"cols": 4096, "rows": 4096}, "softmax_f32_block_row_v4_b256_c4", "block_row",
     {"block_threads": 256, "chunks": 4, "vec": 4}, 44.0),
]
GEMM = [
    ("gemm_bf16_4096x4096x4096", {"k": 4096, "m": 4096, "n": 4096},
     "gemm_bf16_cublaslt_lt_a21_t20_s8_k1_r0_w0_c0_i0_cl0", "cublaslt",
     {"algo": 21, "cluster": 0, "custom": 0, "inner": 0, "reduction": 0, "split_k": 1, "stages": 8, "swizzle": 0,
      "tile": 20}, 980.0),
    ("gemm_bf16_4096x4096x4096", {"k": 4096, "m": 4096, "n": 4096},
     "gemm_bf16_bf16_col_mma_m128_n128_k64_wm64_wn64_s3_g8_sk1", "mma",
     {"block_k": 64, "block_m": 128, "block_n": 128, "group_m": 8, "split_k": 1, "stages": 3, "warp_m": 64,
      "warp_n": 64}, 1010.0),
]
H200 = {"gpu": "NVIDIA H200", "cc": 90, "sm_count": 132, "driver": "13.0", "cuda_runtime": "13.0"}
A100 = {"gpu": "NVIDIA A100-SXM4-80GB", "cc": 80, "sm_count": 108, "driver": "12.8", "cuda_runtime": "13.0"}


def quantile(v, q):  # type 7, as tuner/measure/statistics.cpp
    pos = q * (len(v) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])


def sig5(x):
    return round(x, 4 - math.floor(math.log10(abs(x))))


def trial(problem, dims, instance, family, params, median, rng, scale, with_samples):
    samples = [round(median * scale * math.exp(NOISE * rng.gauss(0, 1)), 2) for _ in range(N)]
    v = sorted(samples)
    half = 1.96 * math.sqrt(N) / 2
    lo_rank = min(max(math.floor(N / 2 - half), 1), N)
    hi_rank = min(max(math.ceil(N / 2 + half) + 1, 1), N)
    t = {"problem": problem, "dtype": problem.split("_")[1], "dims": dims, "instance": instance,
         "family": family, "params": params, "status": "ok", "median_us": sig5(quantile(v, 0.5)),
         "min_us": sig5(v[0]), "q1_us": sig5(quantile(v, 0.25)), "q3_us": sig5(quantile(v, 0.75)),
         "ci_us": [sig5(v[lo_rank - 1]), sig5(v[hi_rank - 1])], "samples": N, "gbps": 0.0, "run": 1}
    if with_samples:
        t["samples_us"] = samples
    return t


def digest(text):  # a 16-digit hex digest, as the tuner's hashes are
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def write(scenario, op, rows, env, seed, slower=(), with_samples=True):
    rng = random.Random(seed)
    trials = [trial(*r, rng, 1.10 if r[0] in slower else 1.0, with_samples) for r in rows]
    head = {"format": "cuop-tune results 1", "op": op, **env, "source_hash": digest(f"{scenario}-kernels")}
    run = {"id": 1, "started_at": "2026-12-01T00:00:00Z", "spec_file": f"configs/{op}.yaml",
           "env_key": digest(f"{scenario}-env"), "git_rev": scenario}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines += ['  "runs": [', "    " + json.dumps(run, separators=(",", ":")), "  ],", '  "trials": [']
    lines += ["    " + json.dumps(t, separators=(",", ":")) + ("," if i + 1 < len(trials) else "")
              for i, t in enumerate(trials)]
    lines += ["  ],", '  "builds": [', "  ]", "}"]
    slug = env["gpu"].lower().replace(" ", "-")
    path = os.path.join(HERE, scenario, op, slug + ".json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


write("baseline", "softmax", SOFTMAX, H200, 1)
write("baseline", "gemm", GEMM, H200, 2)
write("same", "softmax", SOFTMAX, H200, 11)
write("same", "gemm", GEMM, H200, 12)
write("slower", "softmax", SOFTMAX, H200, 21, slower={"softmax_f32_4096x4096"})
write("slower", "gemm", GEMM, H200, 22)
write("no-samples", "softmax", SOFTMAX, H200, 1, with_samples=False)
write("no-samples", "gemm", GEMM, H200, 2, with_samples=False)
write("other-gpu", "softmax", SOFTMAX, A100, 31)
