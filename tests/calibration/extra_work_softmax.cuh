// The calibration kernel of the gate (docs/measurement.md, calibration): a correct softmax whose
// running time the sweep file sets. Each thread runs a dependent chain of
// WORK + WORK * EXTRA_PERMILLE / 1000 fused multiply-adds per row, which dominates the time, so
// EXTRA_PERMILLE = 20 makes the kernel about 2% slower, whatever the problem. A custom-family
// kernel (docs/configs.md): the tuner compiles it from this file with the sweep's parameters.
namespace cuop_test {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void from_float(float v, float& out) { out = v; }
__device__ __forceinline__ void from_float(float v, __half& out) { out = __float2half_rn(v); }
__device__ __forceinline__ void from_float(float v, __nv_bfloat16& out) { out = __float2bfloat16_rn(v); }

template <int BLOCK_THREADS, bool MAX>
__device__ __forceinline__ float block_reduce(float v, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, v, offset);
    v = MAX ? fmaxf(v, other) : v + other;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // the previous reduction's readers are done with scratch
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < BLOCK_THREADS / 32; ++w) v = MAX ? fmaxf(v, scratch[w]) : v + scratch[w];
  return v;
}

template <typename T, int BLOCK_THREADS, int WORK, int EXTRA_PERMILLE>
struct extra_work_softmax {
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps");
  static constexpr int iterations = WORK + WORK * EXTRA_PERMILLE / 1000;

  static __device__ void run(const cuop::kernels::softmax::softmax_args& a) {
    __shared__ float scratch[BLOCK_THREADS / 32];
    // Zero at run time, unknown to the compiler: the chain must be computed, and adds nothing.
    const float zero = a.rows < 0 ? 1.f : 0.f;
    for (long long row = blockIdx.x; row < a.rows; row += gridDim.x) {
      const T* x = static_cast<const T*>(a.in) + row * a.in_stride;
      T* y = static_cast<T*>(a.out) + row * a.out_stride;
      float m = __uint_as_float(0xff800000u);  // -infinity
      for (long long c = threadIdx.x; c < a.cols; c += BLOCK_THREADS) m = fmaxf(m, to_float(x[c]));
      m = block_reduce<BLOCK_THREADS, true>(m, scratch);
      float s = 0.f;
      for (long long c = threadIdx.x; c < a.cols; c += BLOCK_THREADS) s += __expf(to_float(x[c]) - m);
      s = block_reduce<BLOCK_THREADS, false>(s, scratch);

      float chain = static_cast<float>(threadIdx.x) * 1e-6f + static_cast<float>(row & 7) * 1e-7f;
#pragma unroll 16
      for (int i = 0; i < iterations; ++i) chain = fmaf(chain, 0.9999f, 1e-7f);

      const float inv = 1.f / s;
      for (long long c = threadIdx.x; c < a.cols; c += BLOCK_THREADS)
        from_float(__expf(to_float(x[c]) - m) * inv + chain * zero, y[c]);
    }
  }
};

}  // namespace cuop_test
