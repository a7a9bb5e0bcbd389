// Runs one trial of GroupNorm inside a worker: load the candidate's cubin, plan, verify against
// the reference (output poisoned with NaN first), then time it. Keeps the problem's inputs and
// reference output between trials of the same problem.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuop/dtype.hpp"
#include "cuop/kernels/groupnorm/family.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/ops/kernel_trial_runner.hpp"
#include "tuner/trial/buffer_sets.hpp"
#include "tuner/trial/cubin_loader.hpp"
#include "tuner/trial/protocol.hpp"

namespace cuop::ops {

class groupnorm_trial_runner final : public kernel_trial_runner {
 public:
  groupnorm_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools);
  ~groupnorm_trial_runner() override;

  trial::trial_response run(const trial::trial_request& request) override;

 private:
  // What a problem's buffers were made for: its dtype, shape and layout (SiLU is the kernel's).
  struct problem_key {
    dtype type = dtype::f32;
    kernels::groupnorm::groupnorm_shape shape;
    kernels::groupnorm::layout lay = kernels::groupnorm::layout::nhwc;
    bool silu = false;
    bool operator==(const problem_key& o) const {
      return type == o.type && shape.n == o.shape.n && shape.c == o.shape.c && shape.hw == o.shape.hw &&
             shape.groups == o.shape.groups && lay == o.lay && silu == o.silu;
    }
  };
  struct problem_buffers {
    problem_key key;
    void* x = nullptr;
    void* y = nullptr;
    void* weight = nullptr;
    void* bias = nullptr;
    float* reference = nullptr;
  };
  cudaError_t prepare_problem(const problem_key& key, std::uint64_t seed);
  void release_problem();

  problem_buffers m_problem;
};

}  // namespace cuop::ops
