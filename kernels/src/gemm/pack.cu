// The operand packing of the mma family's `pack: 1` configurations and the output staging of
// cuBLASLt's `pack: 2` ones (pack.hpp). Packing: one thread writes one 16-byte chunk (8 elements)
// of a packed row. Its source is 2-byte aligned at worst: where the 32 bytes around it lie inside
// the operand it takes two aligned 16-byte loads and shifts them into place (funnel shifts), else
// it reads element by element, so no byte outside the operand is read.
#include "cuop/kernels/gemm/pack.hpp"

#include <cstdint>

namespace cuop::kernels::gemm {

namespace {

struct pack_job {
  const unsigned short* src;  // rows x cols, leading dimension ld
  long long ld;
  long long rows, cols;
  unsigned short* dst;  // dst_rows x dst_cols, dense; dst_cols a multiple of 8
  long long dst_rows, dst_cols;
  long long chunks;  // dst_rows * dst_cols / 8
};

__device__ __forceinline__ uint4 ld_nc16(const void* p) { return __ldg(static_cast<const uint4*>(p)); }

// Words [WI, WI + 4) of the 8-word window w, shifted right by `bits` (0 or 16).
template <int WI>
__device__ __forceinline__ void take(const unsigned (&w)[8], unsigned bits, unsigned (&o)[4]) {
  static_assert(WI >= 0 && WI <= 3, "a 16-byte chunk starts in the first 16 bytes of the window");
#pragma unroll
  for (int i = 0; i < 4; ++i) o[i] = __funnelshift_r(w[WI + i], w[WI + i + 1], bits);
}

// Chunk idx (row-major, dst_cols / 8 per row) of the packed copy of j. Arrays are indexed with
// constants only, and j is used where it lies (kernel parameters): no stack frame.
__device__ __forceinline__ void pack_chunk(const pack_job& j, long long idx) {
  const long long per_row = j.dst_cols / 8;
  const long long r = idx / per_row, c0 = (idx % per_row) * 8;
  unsigned o[4] = {0u, 0u, 0u, 0u};
  if (r < j.rows && c0 < j.cols) {  // else padding: zeros
    const long long valid = j.cols - c0 < 8 ? j.cols - c0 : 8;
    const unsigned short* p = j.src + r * j.ld + c0;
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    const auto lo = reinterpret_cast<std::uintptr_t>(j.src);
    const auto hi = reinterpret_cast<std::uintptr_t>(j.src + (j.rows - 1) * j.ld + j.cols);  // end
    const std::uintptr_t q = addr & ~static_cast<std::uintptr_t>(15);
    const unsigned shift = static_cast<unsigned>(addr - q);  // bytes, even
    if (q >= lo && q + (shift == 0 ? 16 : 32) <= hi) {
      const uint4 v0 = ld_nc16(reinterpret_cast<const void*>(q));
      if (shift == 0) {
        o[0] = v0.x;
        o[1] = v0.y;
        o[2] = v0.z;
        o[3] = v0.w;
      } else {
        const uint4 v1 = ld_nc16(reinterpret_cast<const void*>(q + 16));
        const unsigned w[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
        const unsigned bits = (shift & 2u) * 8u;
        switch (shift >> 2) {
          case 0: take<0>(w, bits, o); break;
          case 1: take<1>(w, bits, o); break;
          case 2: take<2>(w, bits, o); break;
          default: take<3>(w, bits, o); break;
        }
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {  // the elements past the row's end are zeros
        if (2 * i >= valid) o[i] = 0u;
        else if (2 * i + 1 >= valid) o[i] &= 0xffffu;
      }
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i)
        if (i < valid) o[i / 2] |= static_cast<unsigned>(__ldg(p + i)) << (16 * (i % 2));
    }
  }
  reinterpret_cast<uint4*>(j.dst)[idx] = make_uint4(o[0], o[1], o[2], o[3]);
}

__global__ void pack_kernel(pack_job a, pack_job b) {
  const long long total = a.chunks + b.chunks;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    if (i < a.chunks) pack_chunk(a, i);
    else pack_chunk(b, i - a.chunks);
  }
}

// Copies rows x cols elements between two row-major matrices. Blocks along y step over the rows,
// threads along x over the columns: each warp reads and writes consecutive elements of one row.
template <typename T>
__global__ void copy_rows_kernel(const T* src, long long src_ld, T* dst, long long dst_ld, int rows, int cols) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (col >= cols) return;
  for (int r = static_cast<int>(blockIdx.y); r < rows; r += static_cast<int>(gridDim.y))
    dst[r * dst_ld + col] = src[r * src_ld + col];
}

cudaError_t copy_rows(int element_bytes, const void* src, long long src_ld, void* dst, long long dst_ld, int rows,
                      int cols, cudaStream_t stream) {
  constexpr int threads = 256;
  const dim3 grid(static_cast<unsigned>((cols + threads - 1) / threads),
                  static_cast<unsigned>(rows < 65535 ? rows : 65535));
  if (element_bytes == 4)
    copy_rows_kernel<<<grid, threads, 0, stream>>>(static_cast<const unsigned*>(src), src_ld,
                                                   static_cast<unsigned*>(dst), dst_ld, rows, cols);
  else
    copy_rows_kernel<<<grid, threads, 0, stream>>>(static_cast<const unsigned short*>(src), src_ld,
                                                   static_cast<unsigned short*>(dst), dst_ld, rows, cols);
  return cudaGetLastError();
}

}  // namespace

void* staged_rows(const stage_plan& plan, void* workspace) {
  return static_cast<unsigned char*>(workspace) + plan.offset;
}

const void* staged_rows(const stage_plan& plan, const void* workspace) {
  return static_cast<const unsigned char*>(workspace) + plan.offset;
}

cudaError_t stage_in(const stage_plan& plan, const void* c, long long ldc, int m, int n, void* workspace,
                     cudaStream_t stream) {
  return copy_rows(plan.element_bytes, c, ldc, staged_rows(plan, workspace), plan.ld, m, n, stream);
}

cudaError_t stage_out(const stage_plan& plan, const void* workspace, void* d, long long ldd, int m, int n,
                      cudaStream_t stream) {
  return copy_rows(plan.element_bytes, staged_rows(plan, workspace), plan.ld, d, ldd, m, n, stream);
}

cudaError_t pack_operands(const pack_plan& plan, const gemm_args& args, gemm_args& packed, cudaStream_t stream) {
  auto* ws = static_cast<unsigned char*>(args.workspace);
  pack_job a{static_cast<const unsigned short*>(args.a),
             args.lda,
             args.m,
             args.k,
             reinterpret_cast<unsigned short*>(ws + plan.a_offset),
             args.m,
             plan.k,
             0};
  pack_job b{static_cast<const unsigned short*>(args.b),
             args.ldb,
             0,
             0,
             reinterpret_cast<unsigned short*>(ws + plan.b_offset),
             0,
             plan.ldb,
             0};
  if (plan.b_col) {  // n x k, padded with zero rows to the packed N
    b.rows = args.n;
    b.cols = args.k;
  } else {  // k x n, padded with zero rows to the packed K
    b.rows = args.k;
    b.cols = args.n;
  }
  b.dst_rows = plan.b_rows;
  a.chunks = a.dst_rows * a.dst_cols / 8;
  b.chunks = b.dst_rows * b.dst_cols / 8;
  constexpr int threads = 256;
  const long long blocks_needed = (a.chunks + b.chunks + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(blocks_needed < (1ll << 20) ? blocks_needed : (1ll << 20));
  pack_kernel<<<blocks, threads, 0, stream>>>(a, b);
  packed = args;
  packed.a = a.dst;
  packed.b = b.dst;
  packed.k = plan.k;
  packed.n = plan.n;
  packed.lda = plan.k;
  packed.ldb = plan.ldb;
  return cudaGetLastError();
}

}  // namespace cuop::kernels::gemm
