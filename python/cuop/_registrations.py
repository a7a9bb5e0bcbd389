"""Fake implementations of the ops of csrc/ (torch.compile, meta tensors): the real ops' output
shapes, dtypes and strides exactly (csrc/*_op.cpp), and the argument checks that need no data.
Autograd is csrc/autograd.cpp's.
"""

import torch

from cuop.ops import _pair

_FLOATS = (torch.float32, torch.float16, torch.bfloat16)


def _check_dtype(op, x, allowed=_FLOATS):
    torch._check_type(
        x.dtype in allowed,
        lambda: f"{op}: x is {x.dtype}; {', '.join(str(t) for t in allowed)} supported",
    )


def _check_same(op, x, other, name):
    torch._check(
        other.dtype == x.dtype and other.device == x.device,
        lambda: f"{op}: {name} is {other.dtype} on {other.device}, x {x.dtype} on {x.device}",
    )


def _wrap_dim(dim, rank):
    rank = max(rank, 1)
    torch._check(-rank <= dim < rank, lambda: f"cuop.softmax: dim {dim} out of range for {rank}-d")
    return dim % rank


# softmax


@torch.library.register_fake("cuop::softmax")
def _softmax_fake(x, dim=-1):
    _check_dtype("cuop.softmax", x)
    dim = _wrap_dim(dim, x.dim())
    if x.dim() == 0 or dim == x.dim() - 1:
        return x.new_empty(x.shape)
    return x.new_empty(x.movedim(dim, -1).shape).movedim(-1, dim)


# linear

_GEMM_TYPES = (torch.float16, torch.bfloat16)


@torch.library.register_fake("cuop::linear")
def _linear_fake(x, weight, bias=None):
    _check_dtype("cuop.linear", x, _GEMM_TYPES)
    _check_same("cuop.linear", x, weight, "weight")
    torch._check(weight.dim() == 2, lambda: "cuop.linear: weight must be 2-d")
    torch._check(x.dim() >= 1, lambda: "cuop.linear: x must have at least one dimension")
    torch._check(
        x.shape[-1] == weight.shape[1],
        lambda: f"cuop.linear: x's last dimension is {x.shape[-1]}, weight's in_features {weight.shape[1]}",
    )
    if bias is not None:
        _check_same("cuop.linear", x, bias, "bias")
        torch._check(bias.dim() == 1 and bias.shape[0] == weight.shape[0], lambda: "cuop.linear: bias shape")
    return x.new_empty((*x.shape[:-1], weight.shape[0]))


# conv2d


def _conv_out(size, pad, dil, kernel, stride):
    return (size + 2 * pad - dil * (kernel - 1) - 1) // stride + 1


@torch.library.register_fake("cuop::conv2d")
def _conv2d_fake(x, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    _check_dtype("cuop.conv2d", x)
    _check_same("cuop.conv2d", x, weight, "weight")
    torch._check(x.dim() == 4 and weight.dim() == 4, lambda: "cuop.conv2d: x and weight must be 4-d")
    torch._check(
        weight.shape[1] * groups == x.shape[1] and weight.shape[0] % groups == 0,
        lambda: f"cuop.conv2d: weight {tuple(weight.shape)} does not fit x {tuple(x.shape)} in {groups} groups",
    )
    if bias is not None:
        _check_same("cuop.conv2d", x, bias, "bias")
    stride, padding, dilation = (_pair(v, name) for v, name in ((stride, "stride"), (padding, "padding"),
                                                              (dilation, "dilation")))
    p = _conv_out(x.shape[2], padding[0], dilation[0], weight.shape[2], stride[0])
    q = _conv_out(x.shape[3], padding[1], dilation[1], weight.shape[3], stride[1])
    torch._check(p >= 1 and q >= 1, lambda: "cuop.conv2d: the filter does not fit the padded input")
    nhwc = x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
    fmt = torch.channels_last if nhwc else torch.contiguous_format
    shape = (x.shape[0], weight.shape[0], p, q)
    return torch.empty(shape, dtype=x.dtype, device=x.device, memory_format=fmt)


# layer_norm, rms_norm, add_rms_norm: a new contiguous tensor of x's shape (add_rms_norm also
# updates residual in place, which its schema declares).


def _check_norm(op, x, normalized_shape, params):
    _check_dtype(op, x)
    n = len(normalized_shape)
    torch._check(n >= 1, lambda: f"{op}: normalized_shape must name at least one dimension")
    torch._check(
        x.dim() >= n and list(x.shape[x.dim() - n:]) == list(normalized_shape),
        lambda: f"{op}: x of shape {tuple(x.shape)} does not end with normalized_shape {tuple(normalized_shape)}",
    )
    for name, p in params:
        if p is not None:
            _check_same(op, x, p, name)
            torch._check(list(p.shape) == list(normalized_shape), lambda: f"{op}: {name} shape")


@torch.library.register_fake("cuop::layer_norm")
def _layer_norm_fake(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    _check_norm("cuop.layer_norm", x, normalized_shape, (("weight", weight), ("bias", bias)))
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


@torch.library.register_fake("cuop::rms_norm")
def _rms_norm_fake(x, normalized_shape, weight=None, eps=None):
    _check_norm("cuop.rms_norm", x, normalized_shape, (("weight", weight),))
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


@torch.library.register_fake("cuop::add_rms_norm")
def _add_rms_norm_fake(x, residual, normalized_shape, weight=None, eps=None):
    _check_norm("cuop.add_rms_norm", x, normalized_shape, (("weight", weight),))
    _check_same("cuop.add_rms_norm", x, residual, "residual")
    torch._check(residual.shape == x.shape, lambda: "cuop.add_rms_norm: residual shape")
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


# group_norm: a new tensor of x's shape, channels_last for channels_last 4-d input (and not also
# contiguous), else contiguous (csrc/groupnorm_op.cpp).
@torch.library.register_fake("cuop::group_norm")
def _group_norm_fake(x, num_groups, weight=None, bias=None, eps=1e-5, silu=False):
    op = "cuop.group_norm"
    _check_dtype(op, x)
    torch._check(x.dim() >= 2, lambda: f"{op}: x must have at least 2 dimensions (N, C, *), got {tuple(x.shape)}")
    torch._check(num_groups >= 1 and x.shape[1] % num_groups == 0,
                 lambda: f"{op}: {x.shape[1]} channels do not divide into num_groups {num_groups}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None:
            _check_same(op, x, p, name)
            torch._check(list(p.shape) == [x.shape[1]], lambda: f"{op}: {name} shape")
    nhwc = x.dim() == 4 and x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
    fmt = torch.channels_last if nhwc else torch.contiguous_format
    return torch.empty(x.shape, dtype=x.dtype, device=x.device, memory_format=fmt)

