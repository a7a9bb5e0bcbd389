// The driver's cuTensorMapEncodeTiled, for the host code of the TMA-fed kernels (depthwise
// mma_tma and mma_seg, GEMM wgmma): found at run time through the runtime's driver entry point,
// so the library does not link libcuda.
#pragma once

#include <cudaTypedefs.h>

namespace cuop::kernels::common {

// Null where the driver has no such entry point (it predates TMA).
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder();

}  // namespace cuop::kernels::common
