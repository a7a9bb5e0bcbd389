// The library back ends as the worker uses them for conv2d. cuDNN: lists the configurations to
// measure for a problem (the heuristic's first plan first, then heuristic modes A, B and the
// fallback list, then a budget of the engines' knob space) and runs one, rebuilt from its
// identifier exactly as dispatch will rebuild it; without cuDNN (CUOP_HAVE_CUDNN unset) every
// call says so. FFT (our cuFFT convolution): a point is one configuration, planned per problem.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/family.hpp"
#include "tuner/catalog/stored_config.hpp"

namespace cuop::ops {

inline constexpr std::string_view cudnn_family = "cudnn";
inline constexpr std::string_view fft_family = "fft";  // our cuFFT convolution (cuop/backends/fft_conv.hpp)

// The cudnn candidate's parameters: heuristic answers per mode, knob-space configurations added,
// and the workspace limit.
std::vector<std::string> cudnn_param_names();

// "conv2d_f16_cudnn_<identifier>"; the heuristic's first plan "conv2d_f16_cudnn_heuristic".
std::string conv_library_instance(dtype t, const std::string& identifier);

// The fft candidate's parameters (cuop/backends/fft_conv.hpp): output tile, padded-size policy,
// output channels per thread of the spectral product. Its instance: "conv2d_f32_fft_t64_p0_kb4".
std::vector<std::string> fft_param_names();

// The instance of a stored cuDNN configuration (the heuristic's first plan, {"rank": 0,
// "workspace_mb"}, or {"engine", "k<type>": value...}) or FFT configuration ({"tile", "pad",
// "kb"}); "" and `why` when the parameters are not one.
std::string cudnn_instance_of(dtype t, const catalog::stored_values& params, std::string& why);
std::string fft_instance_of(dtype t, const catalog::stored_values& params, std::string& why);

// A prepared call: the execution plan of one configuration for one problem.
struct conv_library_call {
  std::size_t workspace_bytes = 0;
  bool fft = false;  // state is a cuop::backends::fft_conv, else a cuDNN plan
  std::shared_ptr<void> state;
};

class conv_library {
 public:
  conv_library();
  ~conv_library();
  conv_library(const conv_library&) = delete;
  conv_library& operator=(const conv_library&) = delete;

  // point: {"family": "cudnn", "params": {"top", "space", "workspace_mb"}} or {"family": "fft",
  // "params": {"tile", "pad", "kb"}}. Each listed configuration is {"instance", "family",
  // "params"}; `message` says why nothing was listed.
  nlohmann::json list(dtype t, const kernels::conv::conv_shape& sh, const nlohmann::json& point, std::string& message);

  // Empty on success, else why cuDNN rejects the configuration for the problem.
  std::string prepare(dtype t, const kernels::conv::conv_shape& sh, const nlohmann::json& config,
                      conv_library_call& out);

  cudaError_t run(const conv_library_call& call, const void* x, const void* w, void* y, void* workspace,
                  cudaStream_t stream);

 private:
  nlohmann::json dnn_list(dtype t, const kernels::conv::conv_shape& sh, const nlohmann::json& point,
                          std::string& message);
  std::string dnn_prepare(dtype t, const kernels::conv::conv_shape& sh, const nlohmann::json& config,
                          conv_library_call& out);
  cudaError_t dnn_run(const conv_library_call& call, const void* x, const void* w, void* y, void* workspace,
                      cudaStream_t stream);

  struct impl;
  std::unique_ptr<impl> m;
};

}  // namespace cuop::ops
