// Memory utilities for measurement: reading a buffer end to end, which leaves the L2 cache holding
// only clean lines of that buffer, and streaming reads that measure how fast a buffer can be read
// at all (the floor under any kernel that must read it once, such as a decode GEMM's weights).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cuop::reference {

// Reads `bytes` of `data` (16-byte aligned) with every SM; `sink` (one unsigned on the device)
// receives a value only in the impossible case the data XORs to a magic, so nothing is written.
cudaError_t read_sweep(const void* data, std::size_t bytes, unsigned* sink, cudaStream_t s);

// A launch shape of the streaming read: blocks per SM, threads per block, independent 16-byte
// loads each thread keeps in flight, and whether each block reads one contiguous slice (sliced)
// or the grid strides over the buffer together.
struct read_shape {
  int blocks_per_sm = 4;
  int threads = 512;
  int unroll = 4;
  bool sliced = false;
};

// The shapes worth trying (at most 2048 threads per SM); the floor is the fastest of them.
std::vector<read_shape> read_shapes();

// Reads `bytes` (a multiple of 16, 16-byte aligned) once with `shape`, writing nothing (as
// read_sweep); `b4_t512_u4_stride` style names for reports.
cudaError_t read_stream(const void* data, std::size_t bytes, unsigned* sink, const read_shape& shape, cudaStream_t s);
std::string read_shape_name(const read_shape& shape);

}  // namespace cuop::reference
