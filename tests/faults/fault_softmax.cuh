// The fault-injection family (docs/faults.md): a softmax whose
// FAULT parameter makes it fail in one way. A custom-family kernel (docs/configs.md), swept by
// tests/faults/faults.yaml; every configuration's status and message is checked.
//   0 healthy             a correct softmax (BLOCK_THREADS sets its speed)
//   1 illegal address     a store to address 16
//   2 trap                __trap()
//   3 infinite loop       spins until the input holds a value it never holds
//   4 too much shared     healthy code, launched with SMEM_BYTES of dynamic shared memory
//   5 too many registers  96 live accumulators and no __launch_bounds__ (LAUNCH_BOUNDS 0)
//   6 wrong answer        one element 1% too large
//   7 NaN                 one element NaN
namespace cuop_test {

__device__ __forceinline__ float fault_load(const float* p) { return *p; }
__device__ __forceinline__ float fault_load(const __half* p) { return __half2float(*p); }
__device__ __forceinline__ float fault_load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void fault_store(float* p, float v) { *p = v; }
__device__ __forceinline__ void fault_store(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void fault_store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

template <int BLOCK_THREADS, bool MAX>
__device__ __forceinline__ float fault_reduce(float v, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, v, offset);
    v = MAX ? fmaxf(v, other) : v + other;
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < BLOCK_THREADS / 32; ++w) v = MAX ? fmaxf(v, scratch[w]) : v + scratch[w];
  return v;
}

template <typename T, int BLOCK_THREADS, int FAULT, int SMEM_BYTES, int LAUNCH_BOUNDS>
struct fault_softmax {
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps");

  static __device__ void run(const cuop::kernels::softmax::softmax_args& a) {
    __shared__ float scratch[BLOCK_THREADS / 32];
    if (FAULT == 1) *reinterpret_cast<volatile int*>(16) = 1;
    if (FAULT == 2) __trap();
    if (FAULT == 3)  // inputs are in [-8, 8]: never the denormal with these bits
      while (*reinterpret_cast<const volatile unsigned*>(a.in) != 0x00bc614eu) {
      }
    for (long long row = blockIdx.x; row < a.rows; row += gridDim.x) {
      const T* x = static_cast<const T*>(a.in) + row * a.in_stride;
      T* y = static_cast<T*>(a.out) + row * a.out_stride;
      float m = __uint_as_float(0xff800000u);
      for (long long c = threadIdx.x; c < a.cols; c += BLOCK_THREADS) m = fmaxf(m, fault_load(x + c));
      m = fault_reduce<BLOCK_THREADS, true>(m, scratch);
      float s = 0.f;
      if (FAULT == 5) {
        // Many values live at once: more registers per thread than a 1024-thread block can have.
        float acc[96];
#pragma unroll
        for (int i = 0; i < 96; ++i) acc[i] = m * static_cast<float>(i + 1);
        for (long long c = threadIdx.x; c < a.cols; c += BLOCK_THREADS) {
          const float v = fault_load(x + c);
#pragma unroll
          for (int i = 0; i < 96; ++i) acc[i] = fmaf(acc[i], v, static_cast<float>(i));
        }
        float sink = 0.f;
#pragma unroll
        for (int i = 0; i < 96; ++i) sink += acc[i];
        s = sink * 0.f;  // the value adds nothing; the registers were needed all the same
      }
      for (long long c = threadIdx.x; c < a.cols; c += BLOCK_THREADS) s += __expf(fault_load(x + c) - m);
      s = fault_reduce<BLOCK_THREADS, false>(s, scratch);
      for (long long c = threadIdx.x; c < a.cols; c += BLOCK_THREADS) {
        float v = __expf(fault_load(x + c) - m) / s;
        if (FAULT == 6 && row == 0 && c == 0) v *= 1.01f;
        if (FAULT == 7 && row == 0 && c == 0) v = __int_as_float(0x7fc00000);
        fault_store(y + c, v);
      }
    }
  }
};

}  // namespace cuop_test
