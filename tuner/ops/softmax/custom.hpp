// Softmax kernels from the sweep file's own source (family "custom"): a header that defines a
// class template `KERNEL<T, P1, P2, ...>` with `static __device__ void run(const softmax_args&)`,
// the parameters being the candidate's, in its order (block_threads among them). The tuner pastes
// the header into the translation unit it compiles, so the cubin cache and the instance name
// follow the header's contents; the worker launches block_threads threads per block on a grid of
// min(rows, resident blocks) blocks (and smem_bytes of dynamic shared memory when the candidate
// has that parameter), which the kernel strides over rows. Verified and timed like every
// softmax; never emitted into the library (docs/configs.md, custom kernels).
#pragma once

#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

#include <string>

#include "cuop/kernels/softmax/family.hpp"
#include "tuner/ops/op.hpp"

namespace cuop::ops {

inline constexpr const char* custom_family = "custom";

// The candidate to compile for `point` (family "custom") and dtype; throws cuop::error when the
// header cannot be read or block_threads is missing.
kernel_candidate custom_softmax_candidate(const space::point& point, const std::string& dtype_name);

// The launch of a custom configuration (`config`: its {"family", "params"}) for a rows-row
// problem on `device`: "" and `out` filled, or why it cannot run there (a limit it exceeds).
std::string plan_custom_softmax(const nlohmann::json& config, const void* kernel, int device, long long rows,
                                kernels::softmax::launch_plan& out, cudaError_t& error);

}  // namespace cuop::ops
