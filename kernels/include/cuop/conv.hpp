// cuop::conv2d: y = alpha * conv(x, w) + beta * y (2-D forward convolution, cross-correlation as
// deep-learning frameworks define it), dispatched through the table emitted from tuning results:
// our depthwise kernels, cuDNN engine configurations and our cuFFT convolution alike; no tuning
// at run time.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/family.hpp"
#include "cuop/policy.hpp"
#include "cuop/status.hpp"

namespace cuop {

struct conv2d_problem {
  dtype type = dtype::f16;  // x, w and y (accumulation is f32)
  // N, C, H, W, K, R, S, stride, padding, dilation, groups and the layout (NHWC or NCHW; the
  // filter follows it: K x R x S x C/groups or K x C/groups x R x S; kernels/conv/args.cuh).
  kernels::conv::conv_shape shape;
  float alpha = 1.f;
  float beta = 0.f;  // y is read only when beta != 0
  choice_policy policy = choice_policy::tuned;
};

// Asynchronous on `stream`; errors of the launch itself are returned. Workspace (cuDNN, cuFFT)
// is the library's, kept per device and stream (under CUDA graph capture: the graph's own).
// x, w and y must be aligned to the element type and should be 16-byte aligned (as cudaMalloc
// gives): the choices (cuDNN's plans, our TMA kernels) take nothing else, so other tensors are
// copied into aligned buffers of the library's first, and y back after (one copy of each
// misaligned tensor each way: slower, not wrong). y must not share a byte with x or w. Refused
// with invalid_argument before anything is queued: those, a shape check_shape refuses (output
// sizes past INT_MAX, tensors past 2^46 elements included), an unknown dtype or layout, a stream
// of another device. Without cuDNN in the build, only shapes a tuned depthwise kernel or FFT
// configuration covers are supported. Streams, graphs and threads: docs/ARCHITECTURE.md,
// "Using the library".
status conv2d(const conv2d_problem& p, const void* x, const void* w, void* y, cudaStream_t stream = nullptr);

// What dispatch chooses for `p` on the current device, for logs, tests and benchmarks.
struct conv2d_choice {
  const char* instance = nullptr;  // "conv_depthwise_...", "conv2d_f16_cudnn_dnn_e...", ...
  const char* kind = nullptr;      // "kernel", "cudnn", "cudnn-heuristic" or "fft"
  const char* source = nullptr;    // "tuned", "nearest-arch" or "default"
  const char* gpu = nullptr;       // GPU the choice was measured on ("" for defaults)
  bool exact_shape = false;        // the call's shape was tuned
  bool fell_back = false;          // the table's cuDNN configuration was rejected here
  int table_arch = 0;
};
status conv2d_which(const conv2d_problem& p, conv2d_choice& out);

}  // namespace cuop
