// The cuDNN back end as the worker uses it for conv2d: lists the configurations to measure for a
// problem (the heuristic's first plan first, then heuristic modes A, B and the fallback list,
// then a budget of the engines' knob space) and runs one, rebuilt from its identifier exactly as
// dispatch will rebuild it. Without cuDNN (CUOP_HAVE_CUDNN unset) every call says so.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/family.hpp"

namespace cuop::ops {

inline constexpr std::string_view cudnn_family = "cudnn";

// The cudnn candidate's parameters: heuristic answers per mode, knob-space configurations added,
// and the workspace limit.
std::vector<std::string> cudnn_param_names();

// "conv2d_f16_cudnn_<identifier>"; the heuristic's first plan "conv2d_f16_cudnn_heuristic".
std::string conv_library_instance(dtype t, const std::string& identifier);

// A prepared call: the execution plan of one configuration for one problem.
struct conv_library_call {
  std::size_t workspace_bytes = 0;
  std::shared_ptr<void> state;
};

class conv_library {
 public:
  conv_library();
  ~conv_library();
  conv_library(const conv_library&) = delete;
  conv_library& operator=(const conv_library&) = delete;

  // point: {"family": "cudnn", "params": {"top", "space", "workspace_mb"}}. Each listed
  // configuration is {"instance", "family", "params"}; `message` says why nothing was listed.
  nlohmann::json list(dtype t, const kernels::conv::conv_shape& sh, const nlohmann::json& point,
                      std::string& message);

  // Empty on success, else why cuDNN rejects the configuration for the problem.
  std::string prepare(dtype t, const kernels::conv::conv_shape& sh, const nlohmann::json& config,
                      conv_library_call& out);

  cudaError_t run(const conv_library_call& call, const void* x, const void* w, void* y, void* workspace,
                  cudaStream_t stream);

 private:
  struct impl;
  std::unique_ptr<impl> m;
};

}  // namespace cuop::ops
