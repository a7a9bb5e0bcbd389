#include "cuop/reference/softmax_reference.hpp"

#include "by_dtype.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

namespace cuop::reference {

namespace {

constexpr int threads = 256;
constexpr long long max_blocks = 65535;

__device__ float to_float(float v) { return v; }
__device__ float to_float(__half v) { return __half2float(v); }
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

__device__ unsigned long long mix(unsigned long long x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <typename T>
__global__ void fill_random_kernel(T* data, long long count, unsigned long long seed, float lo, float hi) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float u = static_cast<float>(mix(seed * 0x100000001b3ull ^ mix(i)) >> 40) * 0x1p-24f;
    data[i] = from_float<T>(lo + (hi - lo) * u);
  }
}

template <typename T>
__global__ void fill_nan_kernel(T* data, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    data[i] = from_float<T>(__int_as_float(0x7fc00000));
}

// One block per row: max in float, sum of exp in double, output as float.
template <typename T>
__global__ void reference_kernel(const T* in, long long rows, long long cols, long long stride, float* out) {
  __shared__ double red[threads];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = in + r * stride;
    double m = -INFINITY;
    for (long long c = threadIdx.x; c < cols; c += threads) m = fmax(m, (double)to_float(x[c]));
    red[threadIdx.x] = m;
    __syncthreads();
    for (int w = threads / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + w]);
      __syncthreads();
    }
    m = red[0];
    __syncthreads();
    double s = 0;
    for (long long c = threadIdx.x; c < cols; c += threads) s += exp((double)to_float(x[c]) - m);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int w = threads / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
      __syncthreads();
    }
    s = red[0];
    __syncthreads();
    for (long long c = threadIdx.x; c < cols; c += threads)
      out[r * cols + c] = static_cast<float>(exp((double)to_float(x[c]) - m) / s);
  }
}

struct device_result {
  unsigned long long abs_bits, rel_bits, bad, nan, first;
};

template <typename T>
__global__ void compare_kernel(const T* out, long long rows, long long cols, long long stride, const float* ref,
                               double atol, double rtol, device_result* res) {
  double max_abs = 0, max_rel = 0;
  unsigned long long bad = 0, nan = 0, first = ~0ull;
  const long long n = rows * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = i / cols, c = i % cols;
    const double o = to_float(out[r * stride + c]);
    const double e = ref[i];
    const double err = fabs(o - e);
    if (isnan(o)) ++nan;
    if (!(err <= atol + rtol * fabs(e))) {
      ++bad;
      if (static_cast<unsigned long long>(i) < first) first = i;
    }
    if (err > max_abs) max_abs = err;  // NaN never raises the maximum; nan_count says it
    if (e != 0 && err / fabs(e) > max_rel) max_rel = err / fabs(e);
  }
  // Non-negative doubles order like their bit patterns.
  if (max_abs > 0) atomicMax(&res->abs_bits, static_cast<unsigned long long>(__double_as_longlong(max_abs)));
  if (max_rel > 0) atomicMax(&res->rel_bits, static_cast<unsigned long long>(__double_as_longlong(max_rel)));
  if (bad) atomicAdd(&res->bad, bad);
  if (nan) atomicAdd(&res->nan, nan);
  if (first != ~0ull) atomicMin(&res->first, first);
}

double bits_to_double(unsigned long long b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

unsigned blocks_for(long long work) {
  const long long b = (work + threads - 1) / threads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > max_blocks ? max_blocks : b));
}

}  // namespace

cudaError_t fill_random(dtype t, void* data, long long count, unsigned long long seed, float lo, float hi,
                        cudaStream_t s) {
  if (count <= 0) return cudaSuccess;
  return detail::by_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    fill_random_kernel<T><<<blocks_for(count), threads, 0, s>>>(static_cast<T*>(data), count, seed, lo, hi);
    return cudaGetLastError();
  });
}

cudaError_t fill_nan(dtype t, void* data, long long count, cudaStream_t s) {
  if (count <= 0) return cudaSuccess;
  return detail::by_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    fill_nan_kernel<T><<<blocks_for(count), threads, 0, s>>>(static_cast<T*>(data), count);
    return cudaGetLastError();
  });
}

cudaError_t softmax_reference(dtype t, const void* in, long long rows, long long cols, long long in_stride,
                              float* out_f32, cudaStream_t s) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  const unsigned grid = static_cast<unsigned>(rows < max_blocks ? rows : max_blocks);
  return detail::by_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    reference_kernel<T><<<grid, threads, 0, s>>>(static_cast<const T*>(in), rows, cols, in_stride, out_f32);
    return cudaGetLastError();
  });
}

cudaError_t compare_softmax(dtype t, const void* out, long long rows, long long cols, long long out_stride,
                            const float* ref, double atol, double rtol, compare_result* result_host, cudaStream_t s) {
  device_result init{0, 0, 0, 0, ~0ull}, got{};
  device_result* d = nullptr;
  cudaError_t e = cudaMallocAsync(&d, sizeof(device_result), s);
  if (e != cudaSuccess) return e;
  e = cudaMemcpyAsync(d, &init, sizeof init, cudaMemcpyHostToDevice, s);
  if (e == cudaSuccess && rows > 0 && cols > 0) {
    e = detail::by_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      compare_kernel<T><<<blocks_for(rows * cols), threads, 0, s>>>(static_cast<const T*>(out), rows, cols, out_stride,
                                                                    ref, atol, rtol, d);
      return cudaGetLastError();
    });
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&got, d, sizeof got, cudaMemcpyDeviceToHost, s);
  const cudaError_t f = cudaFreeAsync(d, s);
  if (e == cudaSuccess) e = f;
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) return e;
  compare_result r;
  r.max_abs_err = bits_to_double(got.abs_bits);
  r.max_rel_err = bits_to_double(got.rel_bits);
  r.bad = static_cast<long long>(got.bad);
  r.nan_count = static_cast<long long>(got.nan);
  if (got.first != ~0ull) {
    r.first_bad_row = static_cast<long long>(got.first) / cols;
    r.first_bad_col = static_cast<long long>(got.first) % cols;
  }
  *result_host = r;
  return cudaSuccess;
}

double softmax_rtol(dtype t) {
  switch (t) {
    case dtype::f32: return 1e-5;
    case dtype::f16: return 2e-3;
    case dtype::bf16: return 8e-3;
  }
  return 0;
}

double softmax_tolerance(dtype t, long long cols) {
  const double floor = t == dtype::f32 ? 1e-9 : (t == dtype::f16 ? 1e-7 : 1e-8);
  return softmax_rtol(t) / static_cast<double>(cols < 1 ? 1 : cols) + floor;
}

}  // namespace cuop::reference
