// cuFFT calls of the conv2d FFT back end (fft_conv_backend.hpp): three batched 2-D plans made once
// at init with caller-provided work areas, and the per-call sequence around them. The workspace
// layout is plan_fft_conv's (config.cpp).
#include "cuop/backends/fft_conv_backend.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "kernels.hpp"

namespace cuop::backends {

namespace {

namespace kc = kernels::conv;

std::string str(long long v) { return std::to_string(v); }

status refuse(status s, std::string* why, std::string text) {
  if (why != nullptr) *why = std::move(text);
  return s;
}

// The nearest runtime error to a cuFFT failure, so that run() speaks cudaError_t like a launch.
cudaError_t to_cuda(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return cudaSuccess;
    case CUFFT_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    case CUFFT_INVALID_PLAN:
    case CUFFT_INVALID_TYPE:
    case CUFFT_INVALID_VALUE:
    case CUFFT_INVALID_SIZE:
    case CUFFT_UNALIGNED_DATA: return cudaErrorInvalidValue;
    case CUFFT_INVALID_DEVICE: return cudaErrorInvalidDevice;
    case CUFFT_EXEC_FAILED: return cudaErrorLaunchFailure;
    case CUFFT_NOT_IMPLEMENTED:
    case CUFFT_NOT_SUPPORTED: return cudaErrorNotSupported;
    default: return cudaErrorUnknown;
  }
}

cudaError_t step_failed(cudaError_t e, std::string* why, const char* step, const std::string& detail) {
  if (why != nullptr && e != cudaSuccess) *why = std::string(step) + ": " + detail;
  return e;
}

cudaError_t check_launch(cudaError_t e, std::string* why, const char* step) {
  return step_failed(e, why, step, e == cudaSuccess ? std::string() : cudaGetErrorName(e));
}

cudaError_t check_fft(cufftResult r, std::string* why, const char* step) {
  return step_failed(to_cuda(r), why, step, fft_result_name(r));
}

long long round_up(long long bytes) {
  return (bytes + fft_conv_alignment - 1) / fft_conv_alignment * fft_conv_alignment;
}

// `batch` 2-D transforms of lh x lw reals in cuFFT's basic layout: real[batch][lh][lw] and
// complex[batch][lh][lw / 2 + 1], out of place.
cufftResult make_plan(fft_plan& plan, int lh, int lw, cufftType type, long long batch, std::size_t& work) {
  if (const cufftResult r = plan.create(); r != CUFFT_SUCCESS) return r;
  long long n[2] = {lh, lw};
  return cufftMakePlanMany64(plan.get(), 2, n, nullptr, 1, 0, nullptr, 1, 0, type, batch, &work);
}

}  // namespace

fft_plan::~fft_plan() {
  if (m_live) cufftDestroy(m_h);
}

fft_plan& fft_plan::operator=(fft_plan&& o) noexcept {
  if (this != &o) {
    if (m_live) cufftDestroy(m_h);
    m_h = o.m_h;
    m_live = o.m_live;
    o.m_live = false;
  }
  return *this;
}

cufftResult fft_plan::create() {
  *this = fft_plan();
  cufftHandle h = 0;
  if (const cufftResult r = cufftCreate(&h); r != CUFFT_SUCCESS) return r;
  m_h = h;
  m_live = true;
  return cufftSetAutoAllocation(h, 0);  // the work area comes from the caller's workspace
}

const char* fft_result_name(cufftResult r) noexcept {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    case CUFFT_MISSING_DEPENDENCY: return "CUFFT_MISSING_DEPENDENCY";
    case CUFFT_NVRTC_FAILURE: return "CUFFT_NVRTC_FAILURE";
    case CUFFT_NVJITLINK_FAILURE: return "CUFFT_NVJITLINK_FAILURE";
    case CUFFT_NVSHMEM_FAILURE: return "CUFFT_NVSHMEM_FAILURE";
  }
  return "unknown cufftResult";
}

status fft_conv::init(dtype t, const kc::conv_shape& sh, const fft_conv_config& c, std::string* why) {
  m_x_plan = fft_plan();
  m_w_plan = fft_plan();
  m_y_plan = fft_plan();
  m_sizes = {};
  m_work_bytes = m_workspace_bytes = 0;
  if (std::string bad = kc::check_shape(sh); !bad.empty()) return refuse(status::invalid_argument, why, bad);
  if (std::string bad = check_fft_conv(t, sh, c); !bad.empty()) return refuse(status::unsupported, why, bad);
  m_type = t;
  m_shape = sh;
  m_config = c;
  m_sizes = plan_fft_conv(t, sh, c);
  const fft_conv_sizes& z = m_sizes;
  struct wanted {
    fft_plan* plan;
    cufftType type;
    long long batch;
    const char* what;
  };
  // The C2R plan last: ready() is "it exists".
  for (const wanted& p : {wanted{&m_x_plan, CUFFT_R2C, z.x_batch, "R2C (input tiles)"},
                          wanted{&m_w_plan, CUFFT_R2C, z.w_batch, "R2C (filter)"},
                          wanted{&m_y_plan, CUFFT_C2R, z.y_batch, "C2R (outputs)"}}) {
    std::size_t work = 0;
    if (const cufftResult r = make_plan(*p.plan, z.lh, z.lw, p.type, p.batch, work); r != CUFFT_SUCCESS) {
      m_x_plan = fft_plan();
      m_w_plan = fft_plan();
      m_y_plan = fft_plan();
      return refuse(r == CUFFT_ALLOC_FAILED ? status::out_of_memory : status::cuda_error, why,
                    std::string("cuFFT ") + p.what + " plan of " + str(p.batch) + " transforms of " + str(z.lh) + "x" +
                        str(z.lw) + ": " + fft_result_name(r));
    }
    m_work_bytes = std::max(m_work_bytes, work);
  }
  m_sizes.fft_work_bytes = round_up(static_cast<long long>(m_work_bytes));
  m_sizes.workspace_bytes = m_sizes.buffer_bytes + m_sizes.fft_work_bytes;
  m_workspace_bytes = static_cast<std::size_t>(m_sizes.workspace_bytes);
  return status::success;
}

cudaError_t fft_conv::run(const void* x, const void* w, void* y, float alpha, float beta, void* workspace,
                          cudaStream_t stream, std::string* why) const {
  const auto invalid = [&](const char* what) {
    if (why != nullptr) *why = what;
    return cudaErrorInvalidValue;
  };
  if (!ready()) return invalid("fft_conv::run before a successful init");
  if (x == nullptr || w == nullptr || y == nullptr) return invalid("x, w and y must not be null");
  if (workspace == nullptr) return invalid("no workspace: fft convolution needs workspace_bytes() of it");
  if (reinterpret_cast<std::uintptr_t>(workspace) % 16 != 0) return invalid("workspace not 16-byte aligned");
  const fft_conv_sizes& z = m_sizes;
  auto* base = static_cast<unsigned char*>(workspace);
  auto* real = reinterpret_cast<float*>(base);
  auto* xs = reinterpret_cast<float*>(base + z.real_bytes);
  auto* ws = reinterpret_cast<float*>(base + z.real_bytes + z.x_spectra_bytes);
  auto* ys = reinterpret_cast<float*>(base + z.real_bytes + z.x_spectra_bytes + z.w_spectra_bytes);
  // Set even when cuFFT asked for none: without auto-allocation, a plan may insist on having one.
  void* work = m_work_bytes > 0 ? base + z.buffer_bytes : workspace;
  for (const fft_plan* p : {&m_x_plan, &m_w_plan, &m_y_plan}) {
    if (auto e = check_fft(cufftSetStream(p->get(), stream), why, "cufftSetStream"); e != cudaSuccess) return e;
    if (auto e = check_fft(cufftSetWorkArea(p->get(), work), why, "cufftSetWorkArea"); e != cudaSuccess) return e;
  }
  // `real` holds the padded filter, then the input tiles, then the C2R output: stream order
  // makes each transform finish reading it before the next kernel writes it.
  cudaError_t e = check_launch(fft_detail::pad_filter(m_type, m_shape, z, w, real, stream), why, "filter padding");
  if (e == cudaSuccess)
    e = check_fft(cufftExecR2C(m_w_plan.get(), real, reinterpret_cast<cufftComplex*>(ws)), why, "R2C (filter)");
  if (e == cudaSuccess)
    e = check_launch(fft_detail::gather_input(m_type, m_shape, z, x, real, stream), why, "input gather");
  if (e == cudaSuccess)
    e = check_fft(cufftExecR2C(m_x_plan.get(), real, reinterpret_cast<cufftComplex*>(xs)), why, "R2C (input tiles)");
  if (e == cudaSuccess)
    e = check_launch(fft_detail::multiply_spectra(m_config.kb, m_shape, z, xs, ws, ys, stream), why, "spectra product");
  if (e == cudaSuccess)  // C2R overwrites its input: ys is scratch
    e = check_fft(cufftExecC2R(m_y_plan.get(), reinterpret_cast<cufftComplex*>(ys), real), why, "C2R (outputs)");
  if (e == cudaSuccess)
    e = check_launch(fft_detail::crop_output(m_type, m_shape, z, real, y, alpha, beta, stream), why, "output crop");
  return e;
}

}  // namespace cuop::backends
