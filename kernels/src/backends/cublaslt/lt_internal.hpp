// What backend.cpp and enumerate.cpp, the two halves of the cuBLASLt back end, share: the
// problem's cuBLASLt types and the attribute helpers. Not part of the library's interface.
#pragma once

#include <cublasLt.h>

#include <string>

#include "cuop/backends/cublaslt_backend.hpp"

namespace cuop::backends::lt_internal {

inline constexpr cublasComputeType_t compute_type = CUBLAS_COMPUTE_32F;
inline constexpr cudaDataType_t scale_type = CUDA_R_32F;

cudaDataType_t cuda_type(dtype t);

// Stores `message` in *why (when given) and returns `s`.
cublasStatus_t fail(std::string* why, cublasStatus_t s, std::string message);

// Sets every identity attribute of an initialized algorithm; the name of the one refused, if any.
cublasStatus_t set_identity(cublasLtMatmulAlgo_t& algo, const lt_config& c, const char*& refused);

// The capabilities of an initialized algorithm.
cublasStatus_t read_caps(const cublasLtMatmulAlgo_t& algo, lt_caps& out, std::string* why);

}  // namespace cuop::backends::lt_internal
