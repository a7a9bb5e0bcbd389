// Runs one GEMM trial inside a worker: our kernels from their cubins, cuBLASLt configurations
// rebuilt from their identifiers. Every candidate is verified against the reference GEMM on a
// NaN-poisoned output before it is timed. Inputs and the reference stay between trials of the
// same problem; the listing of a problem's cuBLASLt configurations is answered here too.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cuop/dtype.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/ops/verified_timing.hpp"
#include "tuner/runner/buffer_sets.hpp"
#include "tuner/runner/cubin_loader.hpp"
#include "tuner/runner/protocol.hpp"
#include "tuner/runner/trial_workspace.hpp"

namespace cuop::ops {

class gemm_library;

class gemm_trial_runner {
 public:
  gemm_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools);
  ~gemm_trial_runner();
  gemm_trial_runner(const gemm_trial_runner&) = delete;
  gemm_trial_runner& operator=(const gemm_trial_runner&) = delete;

  runner::trial_response run(const runner::trial_request& request);

  // {"status": "ok", "configs": [{"instance", "family", "params"}...]} or {"status": "error",
  // "message"}: the cuBLASLt configurations to measure for the request's problem.
  nlohmann::json list_library(const runner::trial_request& request);

 private:
  struct problem_buffers;
  cudaError_t prepare_problem(dtype t, int m, int n, int k, std::uint64_t seed);
  runner::trial_response verify_and_time(const measure::launcher& launch, const set_launcher& on_set, dtype t,
                                         const runner::trial_request& request);

  int m_device;
  cudaStream_t m_stream;
  measure::instruments m_tools;
  std::unique_ptr<problem_buffers> m_problem;
  std::unique_ptr<gemm_library> m_library;
  runner::trial_workspace m_workspace;
  runner::buffer_sets m_sets;  // rotated copies of A, B and D for batched timing
  runner::cubin_loader m_cubins;
};

}  // namespace cuop::ops
