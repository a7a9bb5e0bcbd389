// Kernel arguments shared by every row-normalization family (LayerNorm, RMSNorm and RMSNorm with
// the residual add fused). Device-safe and NVRTC-safe: built-in types only.
#pragma once

namespace cuop::kernels::norm {

struct norm_args {
  const void* x;     // rows x cols, row-major, element type T of the instantiation
  void* y;           // rows x cols, same type; may be x itself (in place)
  const void* weight;  // cols elements of T, or null (1)
  const void* bias;    // layernorm: cols elements of T, or null (0); ignored by rmsnorm
  // rmsnorm with the residual add: rows x cols of T, read and overwritten with residual + x
  // (rounded to T), which is then what is normalized. Null: plain rmsnorm. Ignored by layernorm.
  void* residual;
  float* mean;  // layernorm: rows floats, or null
  float* rstd;  // rows floats (1 / sqrt(variance + eps), or 1 / sqrt(mean square + eps)), or null
  long long rows;
  long long cols;
  long long x_stride;         // elements between consecutive rows of x (>= cols)
  long long y_stride;         // of y
  long long residual_stride;  // of residual
  float eps;
};

}  // namespace cuop::kernels::norm
