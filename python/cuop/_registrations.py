"""Fake implementations (torch.compile, meta tensors) and autograd of the ops of csrc/.

The fakes give the real ops' output shapes, dtypes and strides exactly (csrc/*_op.cpp), and the
argument checks that do not need data. Backward runs torch's own kernels.
"""

import torch

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


def _softmax_setup(ctx, inputs, output):
    x = inputs[0]
    ctx.dim = _wrap_dim(inputs[1] if len(inputs) > 1 else -1, x.dim())
    ctx.save_for_backward(output)


def _softmax_backward(ctx, grad):
    (y,) = ctx.saved_tensors
    return torch.ops.aten._softmax_backward_data(grad, y, ctx.dim, y.dtype), None


torch.library.register_autograd("cuop::softmax", _softmax_backward, setup_context=_softmax_setup)


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


def _linear_setup(ctx, inputs, output):
    x, weight = inputs[0], inputs[1]
    ctx.has_bias = len(inputs) > 2 and inputs[2] is not None
    ctx.save_for_backward(x, weight)


def _linear_backward(ctx, grad):
    x, weight = ctx.saved_tensors
    n, k = weight.shape
    grad_x = grad_w = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_x = grad @ weight
    if ctx.needs_input_grad[1]:
        grad_w = grad.reshape(-1, n).t() @ x.reshape(-1, k)
    if ctx.has_bias and ctx.needs_input_grad[2]:
        grad_b = grad.reshape(-1, n).sum(0)
    return grad_x, grad_w, grad_b


torch.library.register_autograd("cuop::linear", _linear_backward, setup_context=_linear_setup)


# conv2d


def _two(value):
    """A schema's int[2] as passed: one int, or a list of 1 or 2."""
    if isinstance(value, int):
        return [value, value]
    return [value[0], value[0]] if len(value) == 1 else list(value)


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
    stride, padding, dilation = (_two(v) for v in (stride, padding, dilation))
    p = _conv_out(x.shape[2], padding[0], dilation[0], weight.shape[2], stride[0])
    q = _conv_out(x.shape[3], padding[1], dilation[1], weight.shape[3], stride[1])
    torch._check(p >= 1 and q >= 1, lambda: "cuop.conv2d: the filter does not fit the padded input")
    nhwc = x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
    fmt = torch.channels_last if nhwc else torch.contiguous_format
    shape = (x.shape[0], weight.shape[0], p, q)
    return torch.empty(shape, dtype=x.dtype, device=x.device, memory_format=fmt)


def _conv2d_setup(ctx, inputs, output):
    x, weight, bias, stride, padding, dilation, groups = inputs
    ctx.args = (_two(stride), _two(padding), _two(dilation), groups)
    ctx.bias_sizes = None if bias is None else list(bias.shape)
    ctx.save_for_backward(x, weight)


def _conv2d_backward(ctx, grad):
    x, weight = ctx.saved_tensors
    stride, padding, dilation, groups = ctx.args
    mask = [ctx.needs_input_grad[0], ctx.needs_input_grad[1], ctx.bias_sizes is not None and ctx.needs_input_grad[2]]
    grad_x, grad_w, grad_b = torch.ops.aten.convolution_backward(
        grad, x, weight, ctx.bias_sizes, stride, padding, dilation, False, [0, 0], groups, mask
    )
    return grad_x, grad_w, grad_b, None, None, None, None


torch.library.register_autograd("cuop::conv2d", _conv2d_backward, setup_context=_conv2d_setup)
