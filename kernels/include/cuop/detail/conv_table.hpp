// The shape of the emitted conv2d dispatch table (generated/cuop/generated/conv_dispatch.hpp).
// Written by `cuop-tune emit`, read by the library's dispatch.
#pragma once

#include "cuop/detail/dispatch_model.hpp"
#include "cuop/detail/shape_features.hpp"
#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/family.hpp"

namespace cuop::detail {

enum class conv_kind : int {
  kernel = 0,           // our depthwise kernel: `config`, instantiated as conv_kernels[kernel]
  cudnn = 1,            // a cuDNN engine configuration rebuilt from `lib_id` at the first call
  cudnn_heuristic = 2,  // whatever cuDNN's heuristic (mode A) answers first for the call
  fft = 3,              // our cuFFT convolution with the configuration `lib_id`
};

struct conv_entry {
  int arch;         // compute capability of the table: 80, 90, 100
  const char* gpu;  // GPU the timing comes from ("" for defaults)
  dtype type;
  kernels::conv::layout lay;
  int n, h, w, c, k, r, s;  // tuned shape (all 0 for defaults)
  int stride, pad, dilation, groups;
  int tf32;  // 1: tuned with TF32 allowed (f32 only)
  conv_kind kind;
  kernels::conv::depthwise_config config;  // kind == kernel
  const char* lib_id;                      // kind == cudnn or fft: the configuration's identifier, else ""
  int kernel;                              // kind == kernel: index into conv_kernels, else -1
  entry_source source;
  double median_us;  // measured time of this choice on `gpu` (0 for defaults)
  const char* instance;
};

// A conv2d dispatch model: its shapes share the type and the group (layout, filter, stride,
// padding, dilation, kind of grouping, TF32).
struct conv_model {
  dispatch_model m;
  dtype type;
  conv_group group;
};

}  // namespace cuop::detail
