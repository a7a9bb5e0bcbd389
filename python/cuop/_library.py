"""Finds and loads the compiled ops (libcuop_torch), once.

pip install puts it in the package as cuop/_C*.so; CUOP_TORCH_LIBRARY names another build (a
CMake build folder's python/libcuop_torch.so, for development).
"""

import glob
import os

import torch

_loaded = None


def _candidates():
    named = os.environ.get("CUOP_TORCH_LIBRARY")
    if named:
        return [named]
    here = os.path.dirname(os.path.abspath(__file__))
    return sorted(glob.glob(os.path.join(here, "_C*.so")))


def load():
    """Loads the ops into torch.ops.cuop and returns the library's path."""
    global _loaded
    if _loaded is not None:
        return _loaded
    found = _candidates()
    if not found or not os.path.isfile(found[0]):
        raise ImportError(
            "cuop: the compiled ops are missing "
            f"({found[0] if found else 'no _C*.so beside ' + __file__}); "
            "install the package with `pip install --no-build-isolation .` from the repository "
            "(docs/python.md), or set CUOP_TORCH_LIBRARY to a build's libcuop_torch.so"
        )
    torch.ops.load_library(found[0])
    _loaded = found[0]
    return _loaded
