// The cuFFT back end of conv2d (forward, groups 1, stride 1): plans the batched 2-D transforms of
// one problem and configuration (fft_conv.hpp) once, and runs gather -> R2C -> per-bin product
// summed over channels -> C2R -> crop on a stream. Every byte of scratch, cuFFT's work area
// included, lives in one workspace the caller passes to run(), of workspace_bytes(). Status
// codes, no exceptions.
#pragma once

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <string>

#include "cuop/backends/fft_conv.hpp"
#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/family.hpp"
#include "cuop/status.hpp"

namespace cuop::backends {

// An owned cufftHandle.
class fft_plan {
 public:
  fft_plan() = default;
  ~fft_plan();
  fft_plan(fft_plan&& o) noexcept : m_h(o.m_h), m_live(o.m_live) { o.m_live = false; }
  fft_plan& operator=(fft_plan&& o) noexcept;
  fft_plan(const fft_plan&) = delete;
  fft_plan& operator=(const fft_plan&) = delete;

  // A fresh handle whose work area the caller provides (cufftSetAutoAllocation 0).
  cufftResult create();
  cufftHandle get() const noexcept { return m_h; }
  bool live() const noexcept { return m_live; }

 private:
  cufftHandle m_h = 0;
  bool m_live = false;
};

// "CUFFT_INVALID_SIZE": a cufftResult's name, for messages.
const char* fft_result_name(cufftResult r) noexcept;

// Movable (the plans move with it), not copyable.
class fft_conv {
 public:
  // Plans the problem: data of type `t` (f32, f16 or bf16; the transforms are f32) in the
  // shape's layout, the filter following it (args.cuh). Returns
  //   success           ready to run;
  //   invalid_argument  the shape is not a convolution (check_shape);
  //   unsupported       this back end or configuration does not run it (check_fft_conv);
  //   out_of_memory     cuFFT could not allocate while planning;
  //   cuda_error        cuFFT refused a plan (no device, an unsupported size, ...).
  // Anything but success sets *why (when non-null) and leaves the object not ready.
  status init(dtype t, const kernels::conv::conv_shape& sh, const fft_conv_config& c, std::string* why);
  bool ready() const noexcept { return m_y_plan.live(); }  // planned last; moved-from: false

  // Exact once ready: plan_fft_conv's buffers and cuFFT's reported work area.
  std::size_t workspace_bytes() const noexcept { return m_workspace_bytes; }
  const fft_conv_sizes& sizes() const noexcept { return m_sizes; }

  // y = alpha * conv(x, w) + beta * y on `stream` (y is not read when beta == 0). `workspace`
  // holds workspace_bytes() bytes, 16-byte aligned (cudaMalloc's 256 is best), and must not be
  // used by anything else until the work queued here is done. Returns cudaErrorInvalidValue when
  // not ready or given a missing or misaligned pointer, a launch's error, or a cuFFT failure
  // mapped to the nearest cudaError_t; *why (when non-null) names the failing step. Sets the
  // plans' stream and work area: one run at a time per object, on the device current at init.
  // The filter is transformed on every call (nothing is cached between calls).
  cudaError_t run(const void* x, const void* w, void* y, float alpha, float beta, void* workspace, cudaStream_t stream,
                  std::string* why = nullptr) const;

 private:
  dtype m_type = dtype::f32;
  kernels::conv::conv_shape m_shape;
  fft_conv_config m_config;
  fft_conv_sizes m_sizes;
  fft_plan m_x_plan;             // R2C of the input tiles: x_batch transforms
  fft_plan m_w_plan;             // R2C of the padded filter: w_batch transforms
  fft_plan m_y_plan;             // C2R of the products: y_batch transforms
  std::size_t m_work_bytes = 0;  // cuFFT's work area, shared by the three plans
  std::size_t m_workspace_bytes = 0;
};

}  // namespace cuop::backends
