// Kernel arguments of 2-D convolution (forward). Device-safe and NVRTC-safe: built-in types only.
// y = alpha * conv(x, w) + beta * y. x is N x C x H x W, y is N x K x P x Q, both NHWC or both
// NCHW (chosen by the instantiation); the filter follows the layout: K x R x S x (C / groups)
// for NHWC (cuDNN's KRSC, PyTorch's channels_last), K x (C / groups) x R x S for NCHW (KCRS).
// For depthwise (C / groups == 1) the two are the same array.
// P = (H + 2 pad_h - dil_h (R - 1) - 1) / stride_h + 1, Q likewise.
#pragma once

namespace cuop::kernels::conv {

struct conv_args {
  const void* x;
  const void* w;
  void* y;  // read too when beta != 0
  int n, c, h, w_;  // input
  int k, p, q;      // output channels and size
  int r, s;         // filter
  int stride_h, stride_w;
  int pad_h, pad_w;
  int dil_h, dil_w;
  int groups;
  float alpha;
  float beta;
};

// The input of mma_tma and mma_seg (depthwise_mma.cuh, depthwise_seg.cuh): CUtensorMaps of x and
// (mma_seg) y (their 128 opaque bytes each, encoded on the host by make_tma_input, launch.hpp) and whether
// it holds them. valid is 0 where the tensors cannot be read or written through TMA or 16-byte
// accesses are not safe (C not a multiple of 8, x or y not 16-byte aligned); the kernel then loads
// (and mma_seg stores) with plain accesses.
struct alignas(128) tma_input {
  unsigned long long map[16];
  unsigned long long map_y[16];
  int valid;
};

}  // namespace cuop::kernels::conv
