"""cuop: the tuned CUDA ops of cuop-tune for PyTorch (docs/python.md).

    import cuop
    y = cuop.softmax(x, dim=-1)
    y = cuop.linear(x, weight, bias)
    y = cuop.conv2d(x, weight, bias, stride=1, padding=1, groups=x.shape[1])
    model = cuop.nn.convert(model)   # nn.Linear and nn.Conv2d through cuop

Each function calls a custom op (torch.ops.cuop.*) that runs the kernel the library's dispatch
table chooses for the shape, on torch's current stream. The ops have fake implementations, so
torch.compile traces them, and autograd formulas whose backward runs torch's own kernels.
"""

from cuop._library import load as _load

library_path = _load()

from cuop import _registrations  # noqa: E402,F401  (fake implementations)
from cuop import nn  # noqa: E402
from cuop.ops import add_rms_norm, conv2d, group_norm, layer_norm, linear, rms_norm, softmax, which  # noqa: E402

__all__ = [
    "add_rms_norm", "conv2d", "group_norm", "layer_norm", "linear", "nn", "rms_norm", "softmax", "which", "library_path"
]

try:
    from importlib.metadata import PackageNotFoundError, version

    __version__ = version("cuop")
except PackageNotFoundError:  # a build folder's library through CUOP_TORCH_LIBRARY
    __version__ = "unknown"
