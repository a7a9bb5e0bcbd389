#!/usr/bin/env python3
"""Named subsets of the sweep files of configs/, for ci/gpu/run.sh (`sweep @NAME`, `bench-conv @NAME`).

  subset_spec.py NAME OUT.yaml

  depthwise-tc    configs/conv.yaml's NHWC depthwise problems with 7x7 and 31x31 filters, the
                  tensor-core candidates only (algo mma, mma_tma, mma_seg), strategy $DW_STRATEGY
                  (race: the finalists re-measured interleaved, so that algorithms that run close are compared
                  within one run), every trial timed in single launches after a flush
                  ($DW_BATCH_BELOW_US, default 0: the regime of the side-by-side tables)
  depthwise-nchw-grid, depthwise-nchw-corners
                  the NCHW problems of configs/regions/depthwise-grid.yaml (or depthwise-corners.yaml)
                  with every candidate of the file: export --update replaces a problem's trials whole,
                  so a problem is measured with all of them (each half fits one 10-minute device call)
  softmax-cols=N  configs/softmax.yaml's problems with N columns
  softmax-race    configs/softmax.yaml with strategy: race

Exit 0 with the file written, 2 on an unknown name or an empty subset."""
import os
import sys

import yaml


def depthwise_tc(spec):
    spec["problems"] = [p for p in spec["problems"]
                        if p.get("groups", 1) > 1 and p.get("layout", "nhwc") == "nhwc" and p["r"] in (7, 31)]
    spec["candidates"] = [c for c in spec["candidates"]
                          if {"mma", "mma_tma", "mma_seg"} & set(c["params"].get("algo", []))]
    spec["strategy"] = os.environ.get("DW_STRATEGY", "race")
    spec.setdefault("measure", {})["batch_below_us"] = float(os.environ.get("DW_BATCH_BELOW_US", "0"))
    return spec


def depthwise_nchw(part):
    spec = yaml.safe_load(open(f"configs/regions/depthwise-{part}.yaml"))
    spec["problems"] = [p for p in spec["problems"] if p.get("layout") == "nchw"]
    return spec


def softmax_cols(spec, cols):
    spec["problems"] = [p for p in spec["problems"] if p["cols"] == cols]
    return spec


def main(name, out):
    if name == "depthwise-tc":
        spec = depthwise_tc(yaml.safe_load(open("configs/conv.yaml")))
    elif name in ("depthwise-nchw-grid", "depthwise-nchw-corners"):
        spec = depthwise_nchw(name.rsplit("-", 1)[1])
    elif name.startswith("softmax-cols=") and name.split("=", 1)[1].isdigit():
        spec = softmax_cols(yaml.safe_load(open("configs/softmax.yaml")), int(name.split("=", 1)[1]))
    elif name == "softmax-race":
        spec = yaml.safe_load(open("configs/softmax.yaml"))
        spec["strategy"] = "race"
    else:
        print(f"subset_spec.py: unknown subset \"{name}\" (depthwise-tc, depthwise-nchw-grid, depthwise-nchw-corners, softmax-cols=N, softmax-race)", file=sys.stderr)
        return 2
    if not spec["problems"]:
        print(f"subset_spec.py: the subset \"{name}\" has no problem", file=sys.stderr)
        return 2
    with open(out, "w") as f:
        yaml.safe_dump(spec, f, sort_keys=False)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
