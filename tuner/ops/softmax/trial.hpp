// Runs one softmax trial inside a worker: load the candidate's cubin, plan, verify against the
// reference (output poisoned with NaN first), then time it. Keeps the problem's input and
// reference output between trials of the same problem, and the rotated copies of input and
// output that short kernels are timed over (measure::buffer_rotation).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cuop/dtype.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/ops/kernel_trial_runner.hpp"
#include "tuner/trial/buffer_sets.hpp"
#include "tuner/trial/cubin_loader.hpp"
#include "tuner/trial/protocol.hpp"
#include "tuner/trial/trial_workspace.hpp"

namespace cuop::ops {

class softmax_trial_runner final : public kernel_trial_runner {
 public:
  softmax_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools);
  ~softmax_trial_runner() override;

  trial::trial_response run(const trial::trial_request& request) override;

 private:
  struct problem_buffers {
    dtype type = dtype::f32;
    long long rows = 0, cols = 0;
    void* in = nullptr;
    void* out = nullptr;
    float* reference = nullptr;
  };
  cudaError_t prepare_problem(dtype t, long long rows, long long cols, std::uint64_t seed);
  void release_problem();

  problem_buffers m_problem;
  trial::trial_workspace m_workspace;
};

}  // namespace cuop::ops
