// Kernel arguments of the GroupNorm families. Device-safe and NVRTC-safe: built-in types only.
#pragma once

namespace cuop::kernels::groupnorm {

struct groupnorm_args {
  const void* x;       // n x c x hw (NCHW) or n x hw x c (NHWC), dense, element type T
  void* y;             // the same shape and type; may be x itself (in place)
  const void* weight;  // c elements of T, or null (1)
  const void* bias;    // c elements of T, or null (0)
  float* mean;         // n x groups floats, or null
  float* rstd;         // n x groups floats (1 / sqrt(variance + eps)), or null
  long long n;         // batch
  long long c;         // channels, a multiple of groups
  long long hw;        // spatial positions (h x w)
  int groups;
  float eps;
};

}  // namespace cuop::kernels::groupnorm
