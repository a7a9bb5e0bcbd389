// GEMM as the sweep sees it. A problem is {m, n, k} with one dtype: A (m x k, row-major) and B
// (stored n x k: the weight layout of a linear layer, column-major in args.cuh's terms) of that
// dtype, D (m x n, row-major) of the same dtype, f32 accumulation. Candidates are our kernel
// families (mma, skinny) and the cuBLASLt back end (family "cublaslt", a library: its
// configurations are enumerated by the worker on the GPU).
#pragma once

#include <string>
#include <vector>

#include "cuop/kernels/gemm/family.hpp"
#include "tuner/ops/op.hpp"

namespace cuop::ops {

inline constexpr std::string_view cublaslt_family = "cublaslt";

// Appended to the dtype in the group (the dispatch model) of a shape with K or N off 16-byte rows.
inline constexpr std::string_view gemm_misaligned_group_suffix = "_misaligned";

// The parameters of the cuBLASLt candidate: how many of the heuristic's answers to measure, how
// many configurations of the enumerated space, and the workspace it may use.
std::vector<std::string> cublaslt_param_names();

// Throws cuop::error for an unknown family, parameter or dtype.
kernels::gemm::gemm_config gemm_config_of(const space::point& p, const std::string& dtype);

// The extern "C" entry of one configuration, its includes, and both together.
std::string gemm_entry_definition(const kernels::gemm::gemm_config& c);
std::vector<std::string> gemm_entry_includes(const kernels::gemm::gemm_config& c);
std::string gemm_entry_source(const kernels::gemm::gemm_config& c);

const op& gemm_op();

}  // namespace cuop::ops
