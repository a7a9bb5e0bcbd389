// Packing of GEMM operands for the mma family's `pack: 1` configurations. An operand whose rows
// are not 16-byte aligned (an odd leading dimension such as K = 4093, or a pointer into the middle
// of a row) makes the mma kernel copy it element by element, an order of magnitude slower than its
// cp.async path. Packing copies A (m x k) and B into the workspace first, every row 16-byte
// aligned and K (and the N of row-major B) padded with zeros to a multiple of 8, then runs the
// kernel on the copies with K rounded up: the zeros add nothing to any dot product.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/gemm/args.cuh"
#include "cuop/kernels/gemm/family.hpp"

namespace cuop::kernels::gemm {

// Copies A and B of `args` to the regions `plan` names in args.workspace (one kernel launch on
// `stream`) and returns in `packed` the arguments that read the copies.
cudaError_t pack_operands(const pack_plan& plan, const gemm_args& args, gemm_args& packed,
                          cudaStream_t stream);

}  // namespace cuop::kernels::gemm
