// cuop::groupnorm: GroupNorm over an n x c x h x w tensor in NCHW or NHWC, optionally followed by
// SiLU (as diffusion U-Nets run it), statistics in f32 whatever the element type, dispatched
// through the table emitted from tuning results (no tuning at run time; docs/norm.md).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"
#include "cuop/kernels/groupnorm/family.hpp"
#include "cuop/norm.hpp"
#include "cuop/policy.hpp"
#include "cuop/status.hpp"

namespace cuop {

struct groupnorm_problem {
  dtype type = dtype::f32;  // of x, y, weight and bias
  long long n = 0, c = 0, h = 0, w = 0;
  long long groups = 32;  // c must be a multiple of it
  kernels::groupnorm::layout layout = kernels::groupnorm::layout::nchw;
  bool silu = false;  // y = silu(groupnorm(x)) = v * sigmoid(v)
  float eps = 1e-5f;  // added to the variance
  choice_policy policy = choice_policy::tuned;
};

// For each sample and group of c / groups channels: y = (x - mean) / sqrt(var + eps) * weight[ch]
// + bias[ch] over the group's channels and positions, with the biased variance, as
// torch.nn.functional.group_norm; then SiLU when asked. x and y are dense in the problem's layout.
// weight and bias (c elements each) may be null (1 and 0); mean and rstd (n x groups floats each)
// may be null. y may be x itself (in place); nothing written may share a byte with another
// operand. Refused with invalid_argument before anything is queued: null x or y, negative sizes,
// channels that do not divide into the groups, a group of 2^31 elements or more, pointers off
// their element size, overlap, eps negative or not finite, an unknown dtype, layout or policy, a
// stream of another device.
status groupnorm(const groupnorm_problem& p, const void* x, const void* weight, const void* bias, void* y,
                 float* mean = nullptr, float* rstd = nullptr, cudaStream_t stream = nullptr);

// What dispatch chooses for a call on the current device; tuned_rows and tuned_cols hold the
// tuned shape's groups (n x groups) and a group's elements.
status groupnorm_which(const groupnorm_problem& p, norm_choice& out);

}  // namespace cuop
