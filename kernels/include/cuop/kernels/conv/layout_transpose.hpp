// The layout changes of a via_nhwc configuration (family.hpp): one tensor between NCHW and NHWC,
// queued on a stream. Compiled by nvcc into the core library, which the tuner links as well.
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"

namespace cuop::kernels::conv {

// dst[n][i][ch] = src[n][ch][i] for n images of c channels of hw pixels each.
cudaError_t nchw_to_nhwc(dtype t, const void* src, void* dst, int n, int c, long long hw, cudaStream_t stream);

// dst[n][ch][i] = src[n][i][ch].
cudaError_t nhwc_to_nchw(dtype t, const void* src, void* dst, int n, int c, long long hw, cudaStream_t stream);

}  // namespace cuop::kernels::conv
