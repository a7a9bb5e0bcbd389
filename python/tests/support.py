"""What the Python tests share: skips with their reasons, seeded shapes, tolerances.

Without torch every test skips with that reason. With torch, `import cuop` must work (a broken
install fails, not skips); the tests that run kernels skip where torch sees no CUDA device.
"""

import unittest

try:
    import torch
except ImportError:  # the tests skip, saying so
    torch = None

cuop = None
if torch is not None:
    import cuop  # noqa: F811

NO_TORCH = "torch is not installed (pip install torch; docs/python.md)"
NO_GPU = "" if torch is None or torch.cuda.is_available() else "torch sees no CUDA device"
needs_torch = unittest.skipIf(torch is None, NO_TORCH)
needs_gpu = unittest.skipIf(torch is None or bool(NO_GPU), NO_TORCH if torch is None else NO_GPU)


def relative_error(actual, expected):
    """||actual - expected|| / ||expected||, in float64."""
    a, e = actual.double(), expected.double()
    return ((a - e).norm() / e.norm().clamp_min(1e-30)).item()


# Relative error (norm) a result may have against a float32 reference of the same inputs.
TOLERANCE = {} if torch is None else {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 1.2e-2}
