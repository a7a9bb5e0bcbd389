// Memory utilities for measurement: reading a buffer end to end, which leaves the L2 cache holding
// only clean lines of that buffer.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cuop::reference {

// Reads `bytes` of `data` (16-byte aligned) with every SM; `sink` (one unsigned on the device)
// receives a value only in the impossible case the data XORs to a magic, so nothing is written.
cudaError_t read_sweep(const void* data, std::size_t bytes, unsigned* sink, cudaStream_t s);

}  // namespace cuop::reference
