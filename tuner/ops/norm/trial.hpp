// Runs one trial of a row normalization inside a worker: load the candidate's cubin, plan, verify
// against the reference (output poisoned with NaN first; the fused residual add's written-back
// sum checked too), then time it. Keeps the problem's inputs and reference outputs between
// trials of the same problem, and restores the residual, which every launch overwrites, before
// each verification.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuop/dtype.hpp"
#include "cuop/kernels/norm/family.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/ops/kernel_trial_runner.hpp"
#include "tuner/trial/buffer_sets.hpp"
#include "tuner/trial/cubin_loader.hpp"
#include "tuner/trial/protocol.hpp"

namespace cuop::ops {

class norm_trial_runner : public kernel_trial_runner {
 public:
  norm_trial_runner(kernels::norm::norm_kind kind, int device, cudaStream_t stream, const measure::instruments& tools);
  ~norm_trial_runner() override;

  trial::trial_response run(const trial::trial_request& request) override;

 private:
  struct problem_buffers {
    dtype type = dtype::f32;
    long long rows = 0, cols = 0;
    bool residual = false;
    void* x = nullptr;
    void* y = nullptr;
    void* weight = nullptr;
    void* bias = nullptr;
    void* residual_init = nullptr;  // the residual's values before any launch
    void* residual_work = nullptr;  // what launches read and overwrite
    float* reference = nullptr;
    float* reference_residual = nullptr;
  };
  cudaError_t prepare_problem(dtype t, long long rows, long long cols, bool residual, std::uint64_t seed);
  cudaError_t restore_residual();
  void release_problem();

  kernels::norm::norm_kind m_kind;
  problem_buffers m_problem;
};

// The runner of one kind, constructed as op::parts::make_trial_runner asks (make_runner).
template <kernels::norm::norm_kind K>
class norm_trial_runner_of final : public norm_trial_runner {
 public:
  norm_trial_runner_of(int device, cudaStream_t stream, const measure::instruments& tools)
      : norm_trial_runner(K, device, stream, tools) {}
};

}  // namespace cuop::ops
