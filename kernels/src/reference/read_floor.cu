#include "cuop/reference/memory.hpp"

namespace cuop::reference {

namespace {

// One 16-byte load through the read-only path, not kept in L1 (each byte is read once).
__device__ __forceinline__ uint4 load_streaming(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Every thread keeps UNROLL independent loads in flight per step. Grid-stride: consecutive
// threads read consecutive 16-byte pieces; sliced: each block owns one contiguous slice.
template <int UNROLL>
__global__ void read_stream_kernel(const uint4* data, std::size_t count, bool sliced, unsigned* sink) {
  std::size_t begin = 0, end = count;
  if (sliced) {
    const std::size_t per_block = (count + gridDim.x - 1) / gridDim.x;
    begin = per_block * blockIdx.x;
    end = begin + per_block < count ? begin + per_block : count;
  }
  const std::size_t threads = sliced ? blockDim.x : static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = begin + (sliced ? threadIdx.x : blockIdx.x * blockDim.x + threadIdx.x);
  unsigned acc = 0;
  for (; i + (UNROLL - 1) * threads < end; i += UNROLL * threads) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = load_streaming(data + i + u * threads);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < end; i += threads) {
    const uint4 v = load_streaming(data + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads alive; practically never taken
}

}  // namespace

std::vector<read_shape> read_shapes() {
  std::vector<read_shape> out;
  for (int blocks : {1, 2, 4, 8})
    for (int threads : {256, 512, 1024})
      for (int unroll : {1, 4, 8})
        for (bool sliced : {false, true})
          if (blocks * threads <= 2048) out.push_back({blocks, threads, unroll, sliced});
  return out;
}

cudaError_t read_stream(const void* data, std::size_t bytes, unsigned* sink, const read_shape& shape, cudaStream_t s) {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const auto* p = static_cast<const uint4*>(data);
  const dim3 grid(sms * shape.blocks_per_sm), block(shape.threads);
  switch (shape.unroll) {
    case 1: read_stream_kernel<1><<<grid, block, 0, s>>>(p, bytes / 16, shape.sliced, sink); break;
    case 4: read_stream_kernel<4><<<grid, block, 0, s>>>(p, bytes / 16, shape.sliced, sink); break;
    case 8: read_stream_kernel<8><<<grid, block, 0, s>>>(p, bytes / 16, shape.sliced, sink); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

std::string read_shape_name(const read_shape& shape) {
  return "b" + std::to_string(shape.blocks_per_sm) + "_t" + std::to_string(shape.threads) + "_u" +
         std::to_string(shape.unroll) + (shape.sliced ? "_sliced" : "_stride");
}

}  // namespace cuop::reference
