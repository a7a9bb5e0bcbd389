// Loads candidate cubins into the worker's context once each and looks kernels up by entry name.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <string>

#include "tuner/trial/protocol.hpp"

namespace cuop::trial {

class cubin_loader {
 public:
  cubin_loader() = default;
  ~cubin_loader();
  cubin_loader(const cubin_loader&) = delete;
  cubin_loader& operator=(const cubin_loader&) = delete;

  // On failure `message` says what and where.
  cudaError_t kernel(const std::string& cubin_path, const std::string& entry, cudaKernel_t& out, std::string& message);

 private:
  std::map<std::string, cudaLibrary_t> m_libraries;  // by cubin path
};

// The request's kernel (its cubin_path and entry) as a launchable function; null when it cannot be
// loaded, with `failed` saying why: "crashed" (and a worker restart) for a sticky error, else
// "launch_error".
const void* load_kernel(cubin_loader& loader, const trial_request& request, trial_response& failed);

// A failed CUDA call during `during` as a trial response: "crashed" (and a worker restart) when
// the error is sticky, else "launch_error".
trial_response trial_failure(cudaError_t e, const std::string& during);

}  // namespace cuop::trial
