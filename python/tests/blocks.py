"""Two small models for the Python tests and the timing table (docs/python.md): a pre-norm
transformer block and a MobileNetV2 inverted-residual block, each built once with torch's ops and
once with cuop's (same parameters).
"""

import math

import torch
import torch.nn.functional as F


class TorchOps:
    softmax = staticmethod(lambda x, dim: torch.softmax(x, dim))
    linear = staticmethod(F.linear)
    conv2d = staticmethod(F.conv2d)


def cuop_ops():
    import cuop

    class CuopOps:
        softmax = staticmethod(cuop.softmax)
        linear = staticmethod(cuop.linear)
        conv2d = staticmethod(cuop.conv2d)

    return CuopOps


class TransformerBlock(torch.nn.Module):
    """x + attention(norm(x)), then + mlp(norm(.)); attention with an explicit softmax."""

    def __init__(self, dim=1024, heads=16, hidden=4096, ops=TorchOps):
        super().__init__()
        self.heads, self.ops = heads, ops
        self.norm1, self.norm2 = torch.nn.LayerNorm(dim), torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.up = torch.nn.Linear(dim, hidden)
        self.down = torch.nn.Linear(hidden, dim)

    def attention(self, x):
        b, s, d = x.shape
        q, k, v = self.ops.linear(x, self.qkv.weight, self.qkv.bias).view(b, s, 3, self.heads, -1).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(d // self.heads))
        out = (self.ops.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, s, d)
        return self.ops.linear(out, self.proj.weight, self.proj.bias)

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        h = F.gelu(self.ops.linear(self.norm2(x), self.up.weight, self.up.bias), approximate="tanh")
        return x + self.ops.linear(h, self.down.weight, self.down.bias)


class InvertedResidual(torch.nn.Module):
    """MobileNetV2's block: 1x1 expand, depthwise kxk, 1x1 project, batch norms (eval), residual."""

    def __init__(self, channels=64, expand=6, kernel=3, ops=TorchOps):
        super().__init__()
        wide = channels * expand
        self.kernel, self.ops = kernel, ops
        self.expand = torch.nn.Conv2d(channels, wide, 1, bias=False)
        self.depthwise = torch.nn.Conv2d(wide, wide, kernel, padding=kernel // 2, groups=wide, bias=False)
        self.project = torch.nn.Conv2d(wide, channels, 1, bias=False)
        self.bn1, self.bn2, self.bn3 = (torch.nn.BatchNorm2d(c) for c in (wide, wide, channels))

    def forward(self, x):
        ops = self.ops
        h = F.relu6(self.bn1(ops.conv2d(x, self.expand.weight)))
        h = ops.conv2d(h, self.depthwise.weight, None, 1, self.kernel // 2, 1, self.depthwise.groups)
        h = F.relu6(self.bn2(h))
        return x + self.bn3(ops.conv2d(h, self.project.weight))


def pair(block, dtype, **kw):
    """The block with torch's ops and with cuop's, sharing parameters, on the GPU, in eval mode."""
    torch.manual_seed(0)
    reference = block(**kw).to("cuda", dtype).eval()
    for bn in (m for m in reference.modules() if isinstance(m, torch.nn.BatchNorm2d)):
        bn.running_var.uniform_(0.5, 2.0)  # statistics a trained model has, not 0 and 1
        bn.running_mean.uniform_(-0.5, 0.5)
    ours = block(**kw, ops=cuop_ops()).to("cuda", dtype).eval()
    ours.load_state_dict(reference.state_dict())
    return reference, ours


def transformer_input(dtype, batch=4, seq=512, dim=1024):
    return torch.randn(batch, seq, dim, device="cuda", dtype=dtype)


def mobilenet_input(dtype, batch=32, channels=64, size=56):
    x = torch.randn(batch, channels, size, size, device="cuda", dtype=dtype)
    return x.contiguous(memory_format=torch.channels_last)
