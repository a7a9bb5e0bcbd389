// Packing of GEMM operands for the mma family's `pack: 1` configurations. An operand whose rows
// are not 16-byte aligned (an odd leading dimension such as K = 4093, or a pointer into the middle
// of a row) makes the mma kernel copy it element by element, an order of magnitude slower than its
// cp.async path. Packing copies A (m x k) and B into the workspace first, every row 16-byte
// aligned and K (and the N of row-major B) padded with zeros to a multiple of 8, then runs the
// kernel on the copies with K rounded up: the zeros add nothing to any dot product.
//
// Staging does the same for the output of cuBLASLt's `pack: 2` configurations: with D's rows off
// 16-byte alignment (N not a multiple of 8 in a 16-bit output) cuBLASLt has no aligned kernel, so
// it writes D into aligned rows of the workspace, and one more launch copies them to D.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/kernels/gemm/args.cuh"
#include "cuop/kernels/gemm/family.hpp"

namespace cuop::kernels::gemm {

// Copies A and B of `args` to the regions `plan` names in args.workspace (one kernel launch on
// `stream`) and returns in `packed` the arguments that read the copies.
cudaError_t pack_operands(const pack_plan& plan, const gemm_args& args, gemm_args& packed,
                          cudaStream_t stream);

// The staged output's rows in `workspace` (plan_stage). stage_in copies C there (an m x n matrix
// of leading dimension ldc) when it is read; stage_out copies the staged rows to D. One launch each.
void* staged_rows(const stage_plan& plan, void* workspace);
const void* staged_rows(const stage_plan& plan, const void* workspace);
cudaError_t stage_in(const stage_plan& plan, const void* c, long long ldc, int m, int n, void* workspace,
                     cudaStream_t stream);
cudaError_t stage_out(const stage_plan& plan, const void* workspace, void* d, long long ldd, int m, int n,
                      cudaStream_t stream);

}  // namespace cuop::kernels::gemm
