"""The ops as functions with torch.nn.functional's signatures (softmax, linear, conv2d, layer_norm,
rms_norm, group_norm) and the fused add_rms_norm."""

import torch


def _pair(value, name):
    """An int or a sequence of 1 or 2 ints, as [height, width]."""
    if isinstance(value, int):
        return [value, value]
    values = [int(v) for v in value]
    if len(values) == 1:
        return values * 2
    if len(values) != 2:
        raise ValueError(f"cuop.conv2d: {name} takes an int or 2 ints, got {tuple(value)}")
    return values


def conv_padding(padding, weight, dilation):
    """torch's padding argument as [pad_h, pad_w]: ints, "valid", or "same" where it is symmetric."""
    if not isinstance(padding, str):
        return _pair(padding, "padding")
    if padding == "valid":
        return [0, 0]
    if padding != "same":
        raise ValueError(f"cuop.conv2d: padding {padding!r}; ints, 'valid' or 'same' are supported")
    pads = []
    for size, dil in zip(weight.shape[2:], _pair(dilation, "dilation")):
        total = dil * (size - 1)
        if total % 2:
            raise ValueError(
                "cuop.conv2d: padding='same' needs uneven padding for a filter of even size "
                f"{tuple(weight.shape[2:])}; pad the input with torch.nn.functional.pad first"
            )
        pads.append(total // 2)
    return pads


def softmax(x, dim=-1):
    """torch.softmax(x, dim) through cuop's dispatch (float32, float16, bfloat16)."""
    return torch.ops.cuop.softmax(x, dim)


def linear(x, weight, bias=None):
    """torch.nn.functional.linear through cuop's GEMM dispatch (float16, bfloat16)."""
    return torch.ops.cuop.linear(x, weight, bias)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv2d through cuop's conv dispatch (channels_last input runs NHWC)."""
    pads = conv_padding(padding, weight, dilation)
    return torch.ops.cuop.conv2d(
        x, weight, bias, _pair(stride, "stride"), pads, _pair(dilation, "dilation"), groups
    )


def _shape(normalized_shape):
    return [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """torch.nn.functional.layer_norm through cuop's dispatch (forward only)."""
    return torch.ops.cuop.layer_norm(x, _shape(normalized_shape), weight, bias, eps)


def rms_norm(x, normalized_shape, weight=None, eps=None):
    """torch.nn.functional.rms_norm through cuop's dispatch (forward only)."""
    return torch.ops.cuop.rms_norm(x, _shape(normalized_shape), weight, eps)


def add_rms_norm(x, residual, normalized_shape, weight=None, eps=None):
    """residual += x (in place), then rms_norm(residual): one read of each input, one write each."""
    return torch.ops.cuop.add_rms_norm(x, residual, _shape(normalized_shape), weight, eps)


def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5, silu=False):
    """torch.nn.functional.group_norm through cuop (forward only); silu=True applies SiLU after it
    in the same kernel. channels_last 4-d input runs NHWC and returns channels_last."""
    return torch.ops.cuop.group_norm(x, num_groups, weight, bias, eps, silu)


class _Which:
    """What each op would run for these arguments: "instance [kind, source, table, ...]"."""

    @staticmethod
    def softmax(x, dim=-1):
        return torch.ops.cuop.softmax_which(x, dim)

    @staticmethod
    def linear(x, weight):
        return torch.ops.cuop.linear_which(x, weight)

    @staticmethod
    def conv2d(x, weight, stride=1, padding=0, dilation=1, groups=1):
        pads = conv_padding(padding, weight, dilation)
        return torch.ops.cuop.conv2d_which(
            x, weight, _pair(stride, "stride"), pads, _pair(dilation, "dilation"), groups
        )

    @staticmethod
    def layer_norm(x, normalized_shape):
        return torch.ops.cuop.norm_which(x, _shape(normalized_shape), "layer_norm", False)

    @staticmethod
    def rms_norm(x, normalized_shape, residual=False):
        return torch.ops.cuop.norm_which(x, _shape(normalized_shape), "rms_norm", residual)

    @staticmethod
    def group_norm(x, num_groups, silu=False):
        return torch.ops.cuop.group_norm_which(x, num_groups, silu)


which = _Which()
