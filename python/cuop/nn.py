"""Modules over the ops, and convert(), which puts an existing model's layers through cuop.

convert() changes the class of each converted layer in place (its parameters, buffers and hooks
stay); the converted layers compute with cuop's kernels and refuse what those do not take (e.g.
float32 GEMMs) with torch's errors rather than falling back silently.
"""

import torch

from cuop import ops


class Linear(torch.nn.Linear):
    def forward(self, x):
        return ops.linear(x, self.weight, self.bias)


class Conv2d(torch.nn.Conv2d):
    def forward(self, x):
        return ops.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Softmax(torch.nn.Softmax):
    def forward(self, x):
        return ops.softmax(x, self.dim)


def _convertible(module, linear, conv2d, softmax):
    kind = type(module)
    if linear and kind is torch.nn.Linear:
        return Linear
    if conv2d and kind is torch.nn.Conv2d and module.padding_mode == "zeros":
        return Conv2d
    if softmax and kind is torch.nn.Softmax and module.dim is not None:  # None: torch's legacy choice
        return Softmax
    return None


def convert(model, *, linear=True, conv2d=True, softmax=True):
    """Puts model's nn.Linear, nn.Conv2d (zero padding) and nn.Softmax (a dim given) through cuop.

    Only those exact classes are converted (subclasses may override forward). Returns model.
    """
    for module in model.modules():
        target = _convertible(module, linear, conv2d, softmax)
        if target is not None:
            module.__class__ = target
    return model
