#include "cuop/kernels/common/tensor_map.hpp"

#include <cuda_runtime_api.h>

namespace cuop::kernels::common {

PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  // Looked up once: the runtime's driver does not change under a process.
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      p = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

}  // namespace cuop::kernels::common
