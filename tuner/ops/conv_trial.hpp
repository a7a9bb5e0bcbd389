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
#include "tuner/ops/verified_timing.hpp"
#include "tuner/runner/buffer_sets.hpp"
#include "tuner/runner/cubin_loader.hpp"
#include "tuner/runner/protocol.hpp"
#include "tuner/runner/trial_workspace.hpp"

namespace cuop::ops {

class conv_library;

class conv_trial_runner {
 public:
  conv_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools);
  ~conv_trial_runner();
  conv_trial_runner(const conv_trial_runner&) = delete;
  conv_trial_runner& operator=(const conv_trial_runner&) = delete;

  runner::trial_response run(const runner::trial_request& request);

  // {"status": "ok", "configs": [...]} or {"status": "error", "message"}: the cuDNN
  // configurations to measure for the request's problem.
  nlohmann::json list_library(const runner::trial_request& request);

 private:
  struct problem_buffers;
  cudaError_t prepare_problem(dtype t, const kernels::conv::conv_shape& sh, std::uint64_t seed);
  runner::trial_response verify_and_time(const measure::launcher& launch, const set_launcher& on_set, dtype t,
                                         const runner::trial_request& request);
  conv_library& library();  // made on first use: sweeps without cuDNN candidates never create a handle

  int m_device;
  cudaStream_t m_stream;
  measure::instruments m_tools;
  std::unique_ptr<problem_buffers> m_problem;
  std::unique_ptr<conv_library> m_library;
  runner::trial_workspace m_workspace;
  runner::buffer_sets m_sets;  // rotated copies of x, w and y for batched timing
  runner::cubin_loader m_cubins;
};

}  // namespace cuop::ops
