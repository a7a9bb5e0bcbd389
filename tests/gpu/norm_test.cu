// The row normalizations: each kernel family instantiated directly and the library's dispatch
// (cuop::layernorm, rmsnorm, add_rmsnorm), on awkward shapes, misaligned and strided operands and
// in place, against the double-precision reference: outputs, the written-back residual and the
// statistics.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "cuop/kernels/norm/block_loop.cuh"
#include "cuop/kernels/norm/block_row.cuh"
#include "cuop/kernels/norm/launch.hpp"
#include "cuop/kernels/norm/warp_row.cuh"
#include "cuop/norm.hpp"
#include "cuop/reference/norm_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace kn = cuop::kernels::norm;
using cuop::dtype;

template <class Family>
__global__ void __launch_bounds__(Family::block_threads) family_entry(kn::norm_args a) {
  Family::run(a);
}

using cuop::test::device_buffer;

enum class form { layernorm, rmsnorm, add_rmsnorm };

const char* name_of(form f) {
  return f == form::layernorm ? "layernorm" : (f == form::rmsnorm ? "rmsnorm" : "add_rmsnorm");
}

struct norm_case {
  form what;
  dtype type;
  long long rows, cols;
  int misalign = 0;   // elements added to every tensor's pointer
  long long pad = 0;  // extra elements between rows
  bool in_place = false;
  bool params = true;  // weight (and bias): else null
};

// Runs `launch` on the case's operands and checks every output against the reference.
void check_case(const norm_case& c, const std::function<cudaError_t(const kn::norm_args&)>& launch) {
  const auto elem = cuop::size_of(c.type);
  const long long stride = c.cols + c.pad;
  const std::size_t tensor = static_cast<std::size_t>(c.rows * stride + c.misalign + 8) * elem;
  const std::size_t off = static_cast<std::size_t>(c.misalign) * elem;
  device_buffer x(tensor), y(tensor), res(tensor), res_init(tensor), w(c.cols * elem + off), b(c.cols * elem + off);
  device_buffer ref_y(c.rows * c.cols * sizeof(float)), ref_res(c.rows * c.cols * sizeof(float));
  device_buffer ref_mean(c.rows * sizeof(float)), ref_rstd(c.rows * sizeof(float));
  device_buffer mean(c.rows * sizeof(float)), rstd(c.rows * sizeof(float));
  const long long n = static_cast<long long>(tensor / elem);
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.type, x.get(), n, 5, -3.f, 5.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.type, res_init.get(), n, 6, -2.f, 2.f, nullptr));
  CUOP_CUDA_ASSERT(cudaMemcpy(res.get(), res_init.get(), tensor, cudaMemcpyDeviceToDevice));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.type, w.get(), c.cols + c.misalign, 7, 0.5f, 1.5f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.type, b.get(), c.cols + c.misalign, 8, -0.5f, 0.5f, nullptr));
  if (!c.in_place) CUOP_CUDA_ASSERT(cuop::reference::fill_nan(c.type, y.get(), n, nullptr));
  CUOP_CUDA_ASSERT(cudaMemset(mean.get(), 0xff, c.rows * sizeof(float)));
  CUOP_CUDA_ASSERT(cudaMemset(rstd.get(), 0xff, c.rows * sizeof(float)));
  const bool layer = c.what == form::layernorm, fused = c.what == form::add_rmsnorm;
  const void* weight = c.params ? w.at(off) : nullptr;
  const void* bias = c.params && layer ? b.at(off) : nullptr;
  cuop::reference::norm_reference_args ra{layer,
                                          c.type,
                                          x.at(off),
                                          fused ? res_init.at(off) : nullptr,
                                          weight,
                                          bias,
                                          c.rows,
                                          c.cols,
                                          stride,
                                          stride,
                                          layer ? 1e-5f : 1e-6f};
  CUOP_CUDA_ASSERT(cuop::reference::norm_reference(ra, ref_y.at<float>(), ref_res.at<float>(), ref_mean.at<float>(),
                                                   ref_rstd.at<float>(), nullptr));
  void* y_p = c.in_place ? x.at(off) : y.at(off);
  const kn::norm_args a{x.at(off),
                        y_p,
                        weight,
                        bias,
                        fused ? res.at(off) : nullptr,
                        layer ? mean.at<float>() : nullptr,
                        rstd.at<float>(),
                        c.rows,
                        c.cols,
                        stride,
                        stride,
                        stride,
                        ra.eps};
  CUOP_CUDA_ASSERT(launch(a));
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  const auto compare = [&](const void* out, const float* ref, double tol, const char* what) {
    device_buffer dense(c.rows * c.cols * elem);
    CUOP_CUDA_ASSERT(
        cudaMemcpy2D(dense.get(), c.cols * elem, out, stride * elem, c.cols * elem, c.rows, cudaMemcpyDeviceToDevice));
    cuop::reference::compare_result r{};
    CUOP_CUDA_ASSERT(
        cuop::reference::compare_softmax(c.type, dense.get(), c.rows, c.cols, c.cols, ref, tol, tol, &r, nullptr));
    EXPECT_EQ(r.bad, 0) << what << ": first bad at row " << r.first_bad_row << " col " << r.first_bad_col
                        << ", max abs error " << r.max_abs_err;
  };
  compare(y_p, ref_y.at<float>(), cuop::reference::norm_tolerance(c.type, c.cols), "y");
  if (fused) compare(res.at(off), ref_res.at<float>(), 0.0, "residual");
  const auto stats = [&](const float* out, const float* ref, const char* what) {
    cuop::reference::compare_result r{};
    CUOP_CUDA_ASSERT(
        cuop::reference::compare_softmax(dtype::f32, out, 1, c.rows, c.rows, ref, 1e-4, 1e-4, &r, nullptr));
    EXPECT_EQ(r.bad, 0) << what << ": first bad at row " << r.first_bad_col << ", max abs error " << r.max_abs_err;
  };
  if (layer) stats(mean.at<float>(), ref_mean.at<float>(), "mean");
  stats(rstd.at<float>(), ref_rstd.at<float>(), "rstd");
}

// One configuration of each family and shape class, as templates and as configurations.
template <int KIND, class T>
std::vector<std::pair<kn::norm_config, const void*>> family_kernels(dtype t) {
  const kn::norm_kind k = KIND == kn::layernorm_kind ? kn::norm_kind::layernorm : kn::norm_kind::rmsnorm;
  constexpr int V = 16 / sizeof(T);
  std::vector<std::pair<kn::norm_config, const void*>> out;
  const auto add = [&](kn::norm_config c, const void* f) {
    c.kind = k;
    c.type = t;
    out.emplace_back(c, f);
  };
  add({.fam = kn::family::warp_row, .vec = 1, .threads_per_row = 1, .rows_per_block = 32, .chunks = 4},
      reinterpret_cast<const void*>(family_entry<kn::warp_row<KIND, T, 1, 1, 32, 4>>));
  add({.fam = kn::family::warp_row, .vec = V, .threads_per_row = 8, .rows_per_block = 16, .chunks = 4},
      reinterpret_cast<const void*>(family_entry<kn::warp_row<KIND, T, V, 8, 16, 4>>));
  add({.fam = kn::family::warp_row, .vec = V / 2, .threads_per_row = 32, .rows_per_block = 2, .chunks = 8},
      reinterpret_cast<const void*>(family_entry<kn::warp_row<KIND, T, V / 2, 32, 2, 8>>));
  add({.fam = kn::family::block_row, .vec = V, .block_threads = 128, .chunks = 4},
      reinterpret_cast<const void*>(family_entry<kn::block_row<KIND, T, V, 128, 4>>));
  add({.fam = kn::family::block_row, .vec = V, .block_threads = 512, .chunks = 8},
      reinterpret_cast<const void*>(family_entry<kn::block_row<KIND, T, V, 512, 8>>));
  add({.fam = kn::family::block_loop, .vec = V, .block_threads = 256},
      reinterpret_cast<const void*>(family_entry<kn::block_loop<KIND, T, V, 256>>));
  add({.fam = kn::family::block_loop, .vec = 2, .block_threads = 32},
      reinterpret_cast<const void*>(family_entry<kn::block_loop<KIND, T, 2, 32>>));
  return out;
}

template <int KIND>
std::vector<std::pair<kn::norm_config, const void*>> kernels_of(dtype t) {
  if (t == dtype::f32) return family_kernels<KIND, float>(t);
  if (t == dtype::f16) return family_kernels<KIND, __half>(t);
  return family_kernels<KIND, __nv_bfloat16>(t);
}

// Every configuration that can run the case (plan_launch), launched directly.
void check_families(const norm_case& c) {
  kn::device_limits limits;
  CUOP_CUDA_ASSERT(kn::query_limits(0, limits));
  const auto kernels =
      c.what == form::layernorm ? kernels_of<kn::layernorm_kind>(c.type) : kernels_of<kn::rmsnorm_kind>(c.type);
  int ran = 0;
  for (const auto& [config, fn] : kernels) {
    kn::launch_plan plan;
    if (!kn::plan_launch(config, c.rows, c.cols, limits, plan).empty()) continue;
    SCOPED_TRACE(kn::instance_name(config));
    check_case(c, [&, fn = fn](const kn::norm_args& a) { return kn::launch(fn, plan, a, nullptr); });
    ++ran;
  }
  EXPECT_GT(ran, 0) << "no configuration runs the case";
}

std::vector<norm_case> awkward_cases(form f, dtype t) {
  std::vector<norm_case> out;
  for (const auto& [rows, cols] : std::vector<std::pair<long long, long long>>{
           {1, 1}, {3, 3}, {65537, 3}, {5, 1000}, {7, 4097}, {2, 100003}, {300, 256}})
    out.push_back({f, t, rows, cols});
  return out;
}

}  // namespace

TEST(sm80_norm_families, awkward_shapes_every_form_and_dtype) {
  CUOP_REQUIRE_GPU();
  for (const form f : {form::layernorm, form::rmsnorm, form::add_rmsnorm})
    for (const dtype t : {dtype::f32, dtype::f16, dtype::bf16})
      for (const auto& c : awkward_cases(f, t)) {
        SCOPED_TRACE(testing::Message() << name_of(f) << " " << cuop::name_of(t) << " " << c.rows << "x" << c.cols);
        check_families(c);
      }
}

TEST(sm80_norm_families, misaligned_strided_in_place_and_without_parameters) {
  CUOP_REQUIRE_GPU();
  for (const form f : {form::layernorm, form::add_rmsnorm})
    for (const dtype t : {dtype::f32, dtype::bf16})
      for (const long long cols : {1000LL, 4096LL}) {
        SCOPED_TRACE(testing::Message() << name_of(f) << " " << cuop::name_of(t) << " cols " << cols);
        check_families({f, t, 9, cols, 1, 0});
        check_families({f, t, 9, cols, 0, 3});
        check_families({f, t, 9, cols, 3, 5, true});
        check_families({f, t, 9, cols, 0, 0, false, false});
      }
}

// A LayerNorm whose mean dwarfs its spread, and one whose first column is an outlier: every
// family's merged moments keep the variance in both (a row of each length class, so that each
// family_kernels configuration that holds it runs).
class sm80_norm_statistics : public testing::TestWithParam<bool> {};

TEST_P(sm80_norm_statistics, keep_the_variance) {
  CUOP_REQUIRE_GPU();
  const bool outlier = GetParam();
  kn::device_limits limits;
  CUOP_CUDA_ASSERT(kn::query_limits(0, limits));
  for (const long long cols : {200LL, 1000LL, 16000LL, 100003LL}) {
    const long long rows = 4;
    device_buffer x(rows * cols * 4), y(rows * cols * 4), ref(rows * cols * 4);
    CUOP_CUDA_ASSERT(cuop::reference::fill_random(dtype::f32, x.get(), rows * cols, 3, outlier ? -1.f : 1000.f,
                                                  outlier ? 1.f : 1001.f, nullptr));
    for (long long r = 0; outlier && r < rows; ++r) {
      const float big = 1000.f;
      CUOP_CUDA_ASSERT(cudaMemcpy(x.at<float>(r * cols * 4), &big, 4, cudaMemcpyHostToDevice));
    }
    cuop::reference::norm_reference_args ra{true, dtype::f32, x.get(), nullptr, nullptr, nullptr,
                                            rows, cols,       cols,    cols,    1e-5f};
    CUOP_CUDA_ASSERT(cuop::reference::norm_reference(ra, ref.at<float>(), nullptr, nullptr, nullptr, nullptr));
    int ran = 0;
    for (const auto& [config, fn] : kernels_of<kn::layernorm_kind>(dtype::f32)) {
      kn::launch_plan plan;
      if (!kn::plan_launch(config, rows, cols, limits, plan).empty()) continue;
      SCOPED_TRACE(kn::instance_name(config) + " cols " + std::to_string(cols));
      CUOP_CUDA_ASSERT(cudaMemset(y.get(), 0xff, rows * cols * 4));
      const kn::norm_args a{x.get(), y.get(), nullptr, nullptr, nullptr, nullptr, nullptr,
                            rows,    cols,    cols,    cols,    cols,    1e-5f};
      CUOP_CUDA_ASSERT(kn::launch(fn, plan, a, nullptr));
      cuop::reference::compare_result r{};
      const double tol = outlier ? cuop::reference::norm_tolerance(dtype::f32, cols) : 2e-3;
      CUOP_CUDA_ASSERT(cuop::reference::compare_softmax(dtype::f32, y.get(), rows, cols, cols, ref.at<float>(), tol,
                                                        tol, &r, nullptr));
      EXPECT_EQ(r.bad, 0) << "max abs error " << r.max_abs_err;
      ++ran;
    }
    EXPECT_GT(ran, 0) << "cols " << cols;
  }
}

INSTANTIATE_TEST_SUITE_P(large_mean_or_outlier, sm80_norm_statistics, testing::Bool());

namespace {

cudaError_t status_as_error(cuop::status s) { return s == cuop::status::success ? cudaSuccess : cudaErrorUnknown; }

// The library's entry point of the case's form, with its strides and statistics.
cudaError_t call_library(const norm_case& c, const kn::norm_args& a) {
  if (c.what == form::layernorm) {
    const cuop::layernorm_problem p{c.type, c.rows, c.cols, a.x_stride, a.y_stride, a.eps};
    return status_as_error(cuop::layernorm(p, a.x, a.weight, a.bias, a.y, a.mean, a.rstd));
  }
  const cuop::rmsnorm_problem p{c.type, c.rows, c.cols, a.x_stride, a.y_stride, a.residual_stride, a.eps};
  if (c.what == form::rmsnorm) return status_as_error(cuop::rmsnorm(p, a.x, a.weight, a.y, a.rstd));
  return status_as_error(cuop::add_rmsnorm(p, a.x, a.residual, a.weight, a.y, a.rstd));
}

}  // namespace

TEST(sm80_norm_dispatch, awkward_shapes_misaligned_and_in_place) {
  CUOP_REQUIRE_GPU();
  for (const form f : {form::layernorm, form::rmsnorm, form::add_rmsnorm})
    for (const dtype t : {dtype::f32, dtype::f16, dtype::bf16}) {
      std::vector<norm_case> cases = awkward_cases(f, t);
      cases.push_back({f, t, 4096, 4096});
      cases.push_back({f, t, 3, 32768});
      cases.push_back({f, t, 5, 1000, 1, 3});
      cases.push_back({f, t, 5, 4097, 0, 0, true});
      for (const auto& c : cases) {
        SCOPED_TRACE(testing::Message() << name_of(f) << " " << cuop::name_of(t) << " " << c.rows << "x" << c.cols
                                        << " misalign " << c.misalign << " pad " << c.pad);
        cuop::norm_choice choice;
        const cuop::rmsnorm_problem rp{t, c.rows, c.cols};
        const auto s = f == form::layernorm ? cuop::layernorm_which({t, c.rows, c.cols}, choice)
                                            : cuop::rmsnorm_which(rp, f == form::add_rmsnorm, choice);
        ASSERT_EQ(s, cuop::status::success);
        SCOPED_TRACE(choice.instance);
        check_case(c, [&](const kn::norm_args& a) { return call_library(c, a); });
      }
    }
}

TEST(sm80_norm_dispatch, bad_arguments_are_statuses) {
  CUOP_REQUIRE_GPU();
  device_buffer x(4096 * 4), y(4096 * 4), w(64 * 4);
  const cuop::layernorm_problem p{dtype::f32, 16, 64};
  const auto bad = cuop::status::invalid_argument;
  EXPECT_EQ(cuop::layernorm(p, nullptr, nullptr, nullptr, y.get()), bad);
  EXPECT_EQ(cuop::layernorm(p, x.get(), nullptr, nullptr, nullptr), bad);
  EXPECT_EQ(cuop::layernorm({dtype::f32, 16, 64, 32}, x.get(), nullptr, nullptr, y.get()), bad);  // stride < cols
  EXPECT_EQ(cuop::layernorm({dtype::f32, 16, 64, 0, 0, -1.f}, x.get(), nullptr, nullptr, y.get()), bad);
  EXPECT_EQ(cuop::layernorm({dtype::f32, 16, 64, 0, 0, NAN}, x.get(), nullptr, nullptr, y.get()), bad);
  EXPECT_EQ(cuop::layernorm(p, x.at(2), nullptr, nullptr, y.get()), bad);                    // off the element size
  EXPECT_EQ(cuop::layernorm(p, x.get(), nullptr, nullptr, x.at(4)), bad);                    // overlap, not in place
  EXPECT_EQ(cuop::layernorm(p, x.get(), nullptr, nullptr, y.get(), y.at<float>()), bad);     // mean inside y
  EXPECT_EQ(cuop::layernorm(p, x.get(), w.get(), w.get(), y.get()), cuop::status::success);  // weight = bias: both read
  const cuop::rmsnorm_problem r{dtype::f32, 16, 64};
  EXPECT_EQ(cuop::add_rmsnorm(r, x.get(), nullptr, nullptr, y.get()), bad);
  EXPECT_EQ(cuop::add_rmsnorm(r, x.get(), x.get(), nullptr, y.get()), bad);       // the residual is written
  EXPECT_EQ(cuop::add_rmsnorm(r, x.get(), y.get(), nullptr, y.get()), bad);       // the residual is y
  EXPECT_EQ(cuop::rmsnorm(r, x.get(), nullptr, x.get()), cuop::status::success);  // in place
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
}
