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
#include "tuner/ops/kernel_trial_runner.hpp"
#include "tuner/ops/verified_timing.hpp"
#include "tuner/trial/buffer_sets.hpp"
#include "tuner/trial/cubin_loader.hpp"
#include "tuner/trial/protocol.hpp"
#include "tuner/trial/trial_workspace.hpp"

namespace cuop::ops {

class gemm_library;

class gemm_trial_runner final : public kernel_trial_runner {
 public:
  gemm_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools);
  ~gemm_trial_runner() override;

  trial::trial_response run(const trial::trial_request& request) override;

  // {"status": "ok", "configs": [{"instance", "family", "params"}...]} or {"status": "error",
  // "message"}: the cuBLASLt configurations to measure for the request's problem.
  nlohmann::json list_library(const trial::trial_request& request) override;

 private:
  struct problem_buffers;
  cudaError_t prepare_problem(dtype t, int m, int n, int k, std::uint64_t seed);
  trial::trial_response verify_and_time(const measure::launcher& launch, const set_launcher& on_set, dtype t,
                                        const trial::trial_request& request);

  std::unique_ptr<problem_buffers> m_problem;
  std::unique_ptr<gemm_library> m_library;
  trial::trial_workspace m_workspace;
};

}  // namespace cuop::ops
