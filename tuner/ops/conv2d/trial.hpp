// Runs one conv2d trial inside a worker: our kernels (the depthwise family) from their cubins,
// cuDNN configurations rebuilt from their identifiers. Every candidate is verified against the
// GPU reference convolution (f64 accumulation) on a NaN-poisoned output before it is timed.
// Inputs and the reference stay between trials of the same problem; the listing of a problem's
// cuDNN configurations is answered here too.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/family.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/ops/kernel_trial_runner.hpp"
#include "tuner/ops/verified_timing.hpp"
#include "tuner/trial/buffer_sets.hpp"
#include "tuner/trial/cubin_loader.hpp"
#include "tuner/trial/protocol.hpp"
#include "tuner/trial/trial_workspace.hpp"

namespace cuop::ops {

class conv_library;

class conv_trial_runner final : public kernel_trial_runner {
 public:
  conv_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools);
  ~conv_trial_runner() override;

  trial::trial_response run(const trial::trial_request& request) override;

  // {"status": "ok", "configs": [...]} or {"status": "error", "message"}: the cuDNN
  // configurations to measure for the request's problem.
  nlohmann::json list_library(const trial::trial_request& request) override;

 private:
  struct problem_buffers;
  cudaError_t prepare_problem(dtype t, const kernels::conv::conv_shape& sh, std::uint64_t seed);
  trial::trial_response verify_and_time(const measure::launcher& launch, const set_launcher& on_set, dtype t,
                                        const trial::trial_request& request);
  conv_library& library();  // made on first use: sweeps without cuDNN candidates never create a handle

  std::unique_ptr<problem_buffers> m_problem;
  std::unique_ptr<conv_library> m_library;
  trial::trial_workspace m_workspace;
};

}  // namespace cuop::ops
