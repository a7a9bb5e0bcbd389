// Classifying CUDA errors for the trial status: a sticky error leaves the context unusable and
// costs the worker a restart; any other failure is a property of the configuration.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace cuop::trial {

bool is_sticky(cudaError_t e) noexcept;

// "cudaErrorIllegalAddress: an illegal memory access was encountered"
std::string describe(cudaError_t e);

}  // namespace cuop::trial
