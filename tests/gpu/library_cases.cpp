#include "library_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cuop/reference/conv_reference.hpp"
#include "cuop/reference/gemm_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "gpu_test_support.hpp"

namespace cuop::test {

namespace {

namespace kc = kernels::conv;
namespace kg = kernels::gemm;

std::string failed(const char* what, cudaError_t e) { return std::string(what) + ": " + cudaGetErrorString(e); }

std::string bad_elements(const reference::compare_result& r) {
  if (r.bad == 0 && r.nan_count == 0) return {};
  char text[256];
  std::snprintf(text, sizeof text, "%lld bad elements (%lld NaN), first at row %lld col %lld, max abs error %g", r.bad,
                r.nan_count, r.first_bad_row, r.first_bad_col, r.max_abs_err);
  return text;
}

class softmax_op final : public op_case {
 public:
  softmax_op(dtype t, long long rows, long long cols, int misalign, long long pad)
      : m_p{t, rows, cols, cols + pad, cols + pad}, m_misalign(misalign) {}

  std::string name() const override {
    return "softmax " + std::string(name_of(m_p.type)) + " " + std::to_string(m_p.rows) + "x" +
           std::to_string(m_p.cols) + (m_misalign ? " misaligned" : "") + (m_p.in_stride != m_p.cols ? " padded" : "");
  }

  std::string prepare() override {
    const std::size_t e = size_of(m_p.type);
    m_count = m_p.rows * m_p.in_stride + m_misalign + 8;
    m_in = device_buffer(static_cast<std::size_t>(m_count) * e);
    m_out = device_buffer(static_cast<std::size_t>(m_count) * e);
    m_ref = device_buffer(static_cast<std::size_t>(m_p.rows * m_p.cols) * sizeof(float));
    if (!m_in.get() || !m_out.get() || !m_ref.get()) return "softmax operands: out of device memory";
    if (auto r = reference::fill_random(m_p.type, m_in.get(), m_count, 11, -8.f, 8.f, nullptr); r != cudaSuccess)
      return failed("fill_random", r);
    if (auto r = reference::softmax_reference(m_p.type, in(), m_p.rows, m_p.cols, m_p.in_stride,
                                              static_cast<float*>(m_ref.get()), nullptr);
        r != cudaSuccess)
      return failed("softmax_reference", r);
    if (auto r = cudaDeviceSynchronize(); r != cudaSuccess) return failed("reference", r);
    return {};
  }

  cudaError_t poison(cudaStream_t s) override { return reference::fill_nan(m_p.type, m_out.get(), m_count, s); }

  status call(cudaStream_t s) override { return softmax(m_p, in(), out(), s); }

  std::string check(cudaStream_t s) override {
    reference::compare_result r{};
    if (auto e = reference::compare_softmax(
            m_p.type, out(), m_p.rows, m_p.cols, m_p.out_stride, static_cast<const float*>(m_ref.get()),
            reference::softmax_tolerance(m_p.type, m_p.cols), reference::softmax_rtol(m_p.type), &r, s);
        e != cudaSuccess)
      return failed("compare_softmax", e);
    return bad_elements(r);
  }

  std::string choice() const override {
    softmax_choice c;
    if (softmax_which(m_p, c) != status::success) return "(no choice)";
    return std::string(c.instance) + " (" + c.source + ")";
  }

 private:
  void* in() const { return m_in.bytes() + m_misalign * size_of(m_p.type); }
  void* out() const { return m_out.bytes() + m_misalign * size_of(m_p.type); }

  softmax_problem m_p;
  int m_misalign;
  long long m_count = 0;
  device_buffer m_in, m_out, m_ref;
};

class gemm_op final : public op_case {
 public:
  gemm_op(dtype in, dtype out, kg::b_layout b, int m, int n, int k, int pad, float beta, int misalign)
      : m_misalign(misalign) {
    m_p.in = in;
    m_p.out = out;
    m_p.b = b;
    m_p.m = m;
    m_p.n = n;
    m_p.k = k;
    m_p.lda = k + pad;
    m_p.ldb = (b == kg::b_layout::col ? k : n) + pad;
    m_p.ldc = n + pad;
    m_p.ldd = n + pad;
    m_p.beta = beta;
  }

  std::string name() const override {
    return "gemm " + std::string(name_of(m_p.in)) + "->" + std::string(name_of(m_p.out)) + " " + std::to_string(m_p.m) +
           "x" + std::to_string(m_p.n) + "x" + std::to_string(m_p.k) + (m_p.beta != 0.f ? " beta" : "") +
           (m_misalign ? " misaligned" : "");
  }

  std::string prepare() override {
    const long long b_rows = m_p.b == kg::b_layout::col ? m_p.n : m_p.k;
    m_a_count = m_p.m * m_p.lda + m_misalign;
    m_b_count = b_rows * m_p.ldb + m_misalign;
    m_d_count = m_p.m * m_p.ldd + m_misalign;
    const std::size_t ei = size_of(m_p.in), eo = size_of(m_p.out);
    m_a = device_buffer(static_cast<std::size_t>(m_a_count) * ei);
    m_b = device_buffer(static_cast<std::size_t>(m_b_count) * ei);
    m_c = device_buffer(static_cast<std::size_t>(m_d_count) * eo);
    m_d = device_buffer(static_cast<std::size_t>(m_d_count) * eo);
    m_ref = device_buffer(static_cast<std::size_t>(m_p.m) * m_p.n * sizeof(float));
    if (!m_a.get() || !m_b.get() || !m_c.get() || !m_d.get() || !m_ref.get())
      return "gemm operands: out of device memory";
    cudaError_t r = reference::fill_random(m_p.in, m_a.get(), m_a_count, 1, -1.f, 1.f, nullptr);
    if (r == cudaSuccess) r = reference::fill_random(m_p.in, m_b.get(), m_b_count, 2, -1.f, 1.f, nullptr);
    if (r == cudaSuccess) r = reference::fill_random(m_p.out, m_c.get(), m_d_count, 3, -1.f, 1.f, nullptr);
    if (r == cudaSuccess)
      r = reference::gemm_reference(m_p.in, m_p.out, m_p.b == kg::b_layout::col, a(), m_p.lda, b(), m_p.ldb, c(),
                                    m_p.ldc, m_p.m, m_p.n, m_p.k, 1.f, m_p.beta, static_cast<float*>(m_ref.get()),
                                    nullptr);
    if (r == cudaSuccess) r = cudaDeviceSynchronize();
    return r == cudaSuccess ? std::string() : failed("gemm operands and reference", r);
  }

  cudaError_t poison(cudaStream_t s) override { return reference::fill_nan(m_p.out, m_d.get(), m_d_count, s); }

  status call(cudaStream_t s) override { return gemm(m_p, a(), b(), c(), d(), s); }

  std::string check(cudaStream_t s) override {
    reference::compare_result r{};
    if (auto e = reference::compare_gemm(m_p.out, d(), m_p.ldd, m_p.m, m_p.n, static_cast<const float*>(m_ref.get()),
                                         reference::gemm_atol(m_p.in, m_p.out, m_p.k) * 2,
                                         reference::gemm_rtol(m_p.out), &r, s);
        e != cudaSuccess)
      return failed("compare_gemm", e);
    return bad_elements(r);
  }

  std::string choice() const override {
    gemm_choice c;
    if (gemm_which(m_p, c) != status::success) return "(no choice)";
    return std::string(c.instance) + " (" + c.kind + ", " + c.source + ")";
  }

 private:
  void* a() const { return m_a.bytes() + m_misalign * size_of(m_p.in); }
  void* b() const { return m_b.bytes() + m_misalign * size_of(m_p.in); }
  void* c() const { return m_c.bytes() + m_misalign * size_of(m_p.out); }
  void* d() const { return m_d.bytes() + m_misalign * size_of(m_p.out); }

  gemm_problem m_p;
  int m_misalign;
  long long m_a_count = 0, m_b_count = 0, m_d_count = 0;
  device_buffer m_a, m_b, m_c, m_d, m_ref;
};

class conv_op final : public op_case {
 public:
  conv_op(dtype t, const kc::conv_shape& sh, float alpha, float beta, int offset)
      : m_p{t, sh, alpha, beta}, m_offset(offset) {}

  std::string name() const override {
    const auto& sh = m_p.shape;
    return "conv2d " + std::string(name_of(m_p.type)) + " " + std::string(kc::name_of(sh.lay)) + " n" +
           std::to_string(sh.n) + " " + std::to_string(sh.h) + "x" + std::to_string(sh.w) + " c" +
           std::to_string(sh.c) + " k" + std::to_string(sh.k) + " " + std::to_string(sh.r) + "x" +
           std::to_string(sh.s) + " g" + std::to_string(sh.groups) + (m_p.beta != 0.f ? " beta" : "") +
           (m_offset ? " misaligned" : "");
  }

  std::string prepare() override {
    const auto& sh = m_p.shape;
    m_xn = 1LL * sh.n * sh.c * sh.h * sh.w;
    m_wn = 1LL * sh.k * (sh.c / sh.groups) * sh.r * sh.s;
    m_yn = 1LL * sh.n * sh.k * sh.p() * sh.q();
    const std::size_t e = size_of(m_p.type);
    m_x = device_buffer((m_xn + m_offset) * e);
    m_w = device_buffer((m_wn + m_offset) * e);
    m_y = device_buffer((m_yn + m_offset) * e);
    m_y0 = device_buffer(m_yn * e);
    m_ref = device_buffer(m_yn * sizeof(float));
    if (!m_x.get() || !m_w.get() || !m_y.get() || !m_y0.get() || !m_ref.get())
      return "conv operands: out of device memory";
    cudaError_t r = reference::fill_random(m_p.type, x(), m_xn, 1, -1.f, 1.f, nullptr);
    if (r == cudaSuccess) r = reference::fill_random(m_p.type, w(), m_wn, 2, -1.f, 1.f, nullptr);
    if (r == cudaSuccess) r = reference::fill_random(m_p.type, m_y0.get(), m_yn, 3, -1.f, 1.f, nullptr);
    if (r == cudaSuccess)
      r = reference::conv2d_reference(m_p.type, sh, x(), w(), static_cast<float*>(m_ref.get()), nullptr);
    if (r == cudaSuccess) r = cudaDeviceSynchronize();
    if (r != cudaSuccess) return failed("conv operands and reference", r);
    m_before = to_host(m_p.type, m_y0.get(), m_yn);
    m_reference.resize(static_cast<std::size_t>(m_yn));
    r = cudaMemcpy(m_reference.data(), m_ref.get(), m_yn * sizeof(float), cudaMemcpyDeviceToHost);
    return r == cudaSuccess ? std::string() : failed("reference to host", r);
  }

  cudaError_t poison(cudaStream_t s) override {
    if (m_p.beta != 0.f)  // y is an input too: the initial values back
      return cudaMemcpyAsync(y(), m_y0.get(), m_yn * size_of(m_p.type), cudaMemcpyDeviceToDevice, s);
    return reference::fill_nan(m_p.type, y(), m_yn, s);
  }

  status call(cudaStream_t s) override { return conv2d(m_p, x(), w(), y(), s); }

  std::string check(cudaStream_t s) override {
    if (auto e = cudaStreamSynchronize(s); e != cudaSuccess) return failed("conv2d", e);
    std::vector<float> got(static_cast<std::size_t>(m_yn));
    {
      std::vector<unsigned char> raw(static_cast<std::size_t>(m_yn) * size_of(m_p.type));
      if (auto e = cudaMemcpyAsync(raw.data(), y(), raw.size(), cudaMemcpyDeviceToHost, s); e != cudaSuccess)
        return failed("y to host", e);
      if (auto e = cudaStreamSynchronize(s); e != cudaSuccess) return failed("y to host", e);
      for (long long i = 0; i < m_yn; ++i) got[i] = host_float(m_p.type, &raw[i * size_of(m_p.type)]);
    }
    const double atol = reference::conv_atol(m_p.type, m_p.shape) * std::fabs(m_p.alpha) * 2,
                 rtol = reference::conv_rtol(m_p.type);
    long long bad = 0, first = -1;
    double worst = 0;
    for (long long i = 0; i < m_yn; ++i) {
      const double expect =
          m_p.alpha * static_cast<double>(m_reference[i]) + (m_p.beta != 0.f ? m_p.beta * m_before[i] : 0.0);
      const double err = std::isfinite(got[i]) ? std::fabs(got[i] - expect) : INFINITY;
      if (!(err <= atol + rtol * std::fabs(expect) + (m_p.beta != 0.f ? rtol : 0.0))) {
        if (first < 0) first = i;
        ++bad;
      }
      worst = std::max(worst, err);
    }
    if (bad == 0) return {};
    return std::to_string(bad) + " bad elements, first " + std::to_string(first) + ", max abs error " +
           std::to_string(worst);
  }

  std::string choice() const override {
    conv2d_choice c;
    if (conv2d_which(m_p, c) != status::success) return "(no choice)";
    return std::string(c.instance) + " (" + c.kind + ", " + c.source + ")";
  }

 private:
  void* x() const { return m_x.bytes() + m_offset * size_of(m_p.type); }
  void* w() const { return m_w.bytes() + m_offset * size_of(m_p.type); }
  void* y() const { return m_y.bytes() + m_offset * size_of(m_p.type); }

  conv2d_problem m_p;
  int m_offset;
  long long m_xn = 0, m_wn = 0, m_yn = 0;
  device_buffer m_x, m_w, m_y, m_y0, m_ref;
  std::vector<float> m_before, m_reference;
};

}  // namespace

std::unique_ptr<op_case> softmax_case(dtype t, long long rows, long long cols, int misalign, long long pad) {
  return std::make_unique<softmax_op>(t, rows, cols, misalign, pad);
}

std::unique_ptr<op_case> gemm_case(dtype in, dtype out, kg::b_layout b, int m, int n, int k, int pad, float beta,
                                   int misalign) {
  return std::make_unique<gemm_op>(in, out, b, m, n, k, pad, beta, misalign);
}

std::unique_ptr<op_case> conv_case(dtype t, const kc::conv_shape& sh, float alpha, float beta, int offset) {
  return std::make_unique<conv_op>(t, sh, alpha, beta, offset);
}

kc::conv_shape conv_shape_of(kc::layout l, int n, int h, int w, int c, int k, int r, int stride, int pad, int groups) {
  kc::conv_shape sh;
  sh.lay = l;
  sh.n = n;
  sh.h = h;
  sh.w = w;
  sh.c = c;
  sh.k = k;
  sh.r = sh.s = r;
  sh.stride_h = sh.stride_w = stride;
  sh.pad_h = sh.pad_w = pad;
  sh.groups = groups;
  return sh;
}

}  // namespace cuop::test
