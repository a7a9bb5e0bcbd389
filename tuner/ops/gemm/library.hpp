// The cuBLASLt back end as the worker uses it: lists the configurations to measure for a problem
// (the heuristic's first choice first, then its next answers, then the enumerated space) and runs
// one of them, rebuilt from its identifier exactly as dispatch rebuilds it.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cuop/dtype.hpp"
#include "cuop/kernels/gemm/args.cuh"
#include "tuner/catalog/stored_config.hpp"

namespace cuop::ops {

// A prepared call: the rebuilt algorithm of one configuration for one problem.
struct library_call {
  std::size_t workspace_bytes = 0;
  std::shared_ptr<void> state;  // the back end's plan (descriptors and algorithm)
};

// "gemm_bf16_cublaslt_<identifier>", the heuristic's choice "gemm_bf16_cublaslt_heuristic".
std::string library_instance(dtype t, const std::string& identifier);

// The instance of a stored cuBLASLt configuration: the heuristic's first choice ({"rank": 0,
// "workspace_mb"}) or an algorithm's identity fields, either with "pack" 0, 1 or 2. "" and `why`
// when the parameters are neither.
std::string cublaslt_instance_of(dtype t, const catalog::stored_values& params, std::string& why);

class gemm_library {
 public:
  gemm_library();
  ~gemm_library();
  gemm_library(const gemm_library&) = delete;
  gemm_library& operator=(const gemm_library&) = delete;

  // point: {"family": "cublaslt", "params": {"top", "space", "workspace_mb"}}. Each listed
  // configuration is {"instance", "family", "params"}; `message` says why nothing could be listed.
  nlohmann::json list(dtype t, int m, int n, int k, const nlohmann::json& point, std::string& message);

  // Empty on success, else why the installed cuBLASLt rejects the configuration for the problem.
  std::string prepare(dtype t, int m, int n, int k, const nlohmann::json& config, library_call& out);

  cudaError_t run(const library_call& call, const kernels::gemm::gemm_args& args, void* workspace,
                  std::size_t workspace_bytes, cudaStream_t stream);

 private:
  struct impl;
  std::unique_ptr<impl> m;
};

}  // namespace cuop::ops
