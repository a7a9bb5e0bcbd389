// GroupNorm: the group_loop, group_cluster and group_span families instantiated directly (vectors
// and the element-by-element path; cluster kernels on sm_90 and newer) and the library's call
// (cuop::groupnorm), NCHW and NHWC, with and without SiLU, every dtype, on awkward shapes,
// misaligned and in place, against the double-precision reference: outputs and statistics; bad
// arguments as statuses.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "cuop/groupnorm.hpp"
#include "cuop/kernels/groupnorm/group_cluster.cuh"
#include "cuop/kernels/groupnorm/group_loop.cuh"
#include "cuop/kernels/groupnorm/group_span.cuh"
#include "cuop/kernels/groupnorm/launch.hpp"
#include "cuop/kernels/norm/launch.hpp"
#include "cuop/reference/groupnorm_reference.hpp"
#include "cuop/reference/norm_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "gpu_test_support.hpp"

namespace {

namespace kg = cuop::kernels::groupnorm;
using cuop::dtype;

template <class Family>
__global__ void __launch_bounds__(Family::block_threads) family_entry(kg::groupnorm_args a) {
  Family::run(a);
}

using cuop::test::device_buffer;

struct gn_case {
  dtype type;
  kg::layout lay;
  bool silu;
  long long n, c, hw, groups;
  int misalign = 0;  // elements added to every tensor's pointer
  bool in_place = false;
  bool params = true;
};

std::string describe(const gn_case& c) {
  return std::string(cuop::name_of(c.type)) + " " + std::string(kg::name_of(c.lay)) + (c.silu ? " silu " : " ") +
         std::to_string(c.n) + "x" + std::to_string(c.c) + "x" + std::to_string(c.hw) + " g" +
         std::to_string(c.groups) + " misalign " + std::to_string(c.misalign) + (c.in_place ? " in place" : "") +
         (c.params ? "" : " no params");
}

// Runs `launch` on the case's operands and checks y and the statistics against the reference.
void check_case(const gn_case& c, const std::function<cudaError_t(const kg::groupnorm_args&)>& launch) {
  SCOPED_TRACE(describe(c));
  const auto elem = cuop::size_of(c.type);
  const long long elements = c.n * c.c * c.hw, stats = c.n * c.groups;
  const std::size_t off = static_cast<std::size_t>(c.misalign) * elem;
  const std::size_t bytes = static_cast<std::size_t>(elements + c.misalign + 8) * elem;
  device_buffer x(bytes), y(bytes), w(c.c * elem + off), b(c.c * elem + off);
  device_buffer ref_y(elements * sizeof(float)), ref_mean(stats * 4), ref_rstd(stats * 4), mean(stats * 4),
      rstd(stats * 4);
  const long long n_all = static_cast<long long>(bytes / elem);
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.type, x.get(), n_all, 5, -3.f, 5.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.type, w.get(), c.c + c.misalign, 7, 0.5f, 1.5f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.type, b.get(), c.c + c.misalign, 8, -0.5f, 0.5f, nullptr));
  if (!c.in_place) CUOP_CUDA_ASSERT(cuop::reference::fill_nan(c.type, y.get(), n_all, nullptr));
  CUOP_CUDA_ASSERT(cudaMemset(mean.get(), 0xff, stats * 4));
  CUOP_CUDA_ASSERT(cudaMemset(rstd.get(), 0xff, stats * 4));
  const void* weight = c.params ? w.at(off) : nullptr;
  const void* bias = c.params ? b.at(off) : nullptr;
  const cuop::reference::groupnorm_reference_args ra{
      c.type, c.lay == kg::layout::nhwc, c.silu, x.at(off), weight, bias, c.n, c.c, c.hw, c.groups, 1e-5f};
  CUOP_CUDA_ASSERT(
      cuop::reference::groupnorm_reference(ra, ref_y.at<float>(), ref_mean.at<float>(), ref_rstd.at<float>(), nullptr));
  void* y_p = c.in_place ? x.at(off) : y.at(off);
  const kg::groupnorm_args a{
      x.at(off), y_p, weight, bias, mean.at<float>(), rstd.at<float>(), c.n, c.c, c.hw, static_cast<int>(c.groups),
      1e-5f};
  CUOP_CUDA_ASSERT(launch(a));
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  const double tol = cuop::reference::norm_tolerance(c.type, c.c / c.groups * c.hw);
  cuop::reference::compare_result r{};
  CUOP_CUDA_ASSERT(
      cuop::reference::compare_softmax(c.type, y_p, 1, elements, elements, ref_y.at<float>(), tol, tol, &r, nullptr));
  EXPECT_EQ(r.bad, 0) << "y: first bad at " << r.first_bad_col << ", max abs error " << r.max_abs_err;
  for (const auto& [out, ref, what] : {std::tuple{mean.at<float>(), ref_mean.at<float>(), "mean"},
                                       std::tuple{rstd.at<float>(), ref_rstd.at<float>(), "rstd"}}) {
    cuop::reference::compare_result s{};
    CUOP_CUDA_ASSERT(cuop::reference::compare_softmax(dtype::f32, out, 1, stats, stats, ref, 1e-4, 1e-4, &s, nullptr));
    EXPECT_EQ(s.bad, 0) << what << ": first bad at " << s.first_bad_col << ", max abs error " << s.max_abs_err;
  }
}

// Configurations of each family for the case's dtype, layout and SiLU: 16-byte vectors on 256
// threads, and 2 elements a vector on 64; clusters of 4 and 16 blocks (16: non-portable); in NHWC,
// spans of 2 to 8 groups, alone and in clusters.
template <class T, int LAYOUT, int SILU>
std::vector<std::pair<kg::groupnorm_config, const void*>> kernels_for(const gn_case& c) {
  constexpr int V = 16 / sizeof(T);
  std::vector<std::pair<kg::groupnorm_config, const void*>> out = {
      {{kg::family::group_loop, c.type, c.lay, c.silu, V, 256},
       reinterpret_cast<const void*>(family_entry<kg::group_loop<T, V, 256, LAYOUT, SILU>>)},
      {{kg::family::group_loop, c.type, c.lay, c.silu, 2, 64},
       reinterpret_cast<const void*>(family_entry<kg::group_loop<T, 2, 64, LAYOUT, SILU>>)},
      {{kg::family::group_cluster, c.type, c.lay, c.silu, V, 256, 4},
       reinterpret_cast<const void*>(family_entry<kg::group_cluster<T, V, 256, LAYOUT, SILU, 4>>)},
      {{kg::family::group_cluster, c.type, c.lay, c.silu, 2, 64, 16},
       reinterpret_cast<const void*>(family_entry<kg::group_cluster<T, 2, 64, LAYOUT, SILU, 16>>)}};
  if constexpr (LAYOUT == kg::nhwc_layout) {
    const auto span = [&](int vec, int threads, int groups, int cluster, const void* fn) {
      out.push_back({{kg::family::group_span, c.type, c.lay, c.silu, vec, threads, cluster, groups}, fn});
    };
    span(V, 256, 2, 1, reinterpret_cast<const void*>(family_entry<kg::group_span<T, V, 256, LAYOUT, SILU, 2, 1>>));
    span(V, 256, 8, 1, reinterpret_cast<const void*>(family_entry<kg::group_span<T, V, 256, LAYOUT, SILU, 8, 1>>));
    span(2, 64, 4, 2, reinterpret_cast<const void*>(family_entry<kg::group_span<T, 2, 64, LAYOUT, SILU, 4, 2>>));
    span(V, 128, 4, 16, reinterpret_cast<const void*>(family_entry<kg::group_span<T, V, 128, LAYOUT, SILU, 4, 16>>));
  }
  return out;
}

template <class T>
std::vector<std::pair<kg::groupnorm_config, const void*>> kernels_of_type(const gn_case& c) {
  const bool nhwc = c.lay == kg::layout::nhwc;
  if (nhwc) return c.silu ? kernels_for<T, kg::nhwc_layout, 1>(c) : kernels_for<T, kg::nhwc_layout, 0>(c);
  return c.silu ? kernels_for<T, kg::nchw_layout, 1>(c) : kernels_for<T, kg::nchw_layout, 0>(c);
}

void check_family(const gn_case& c) {
  kg::device_limits limits;
  CUOP_CUDA_ASSERT(cuop::kernels::norm::query_limits(0, limits));
  const auto kernels = c.type == dtype::f32   ? kernels_of_type<float>(c)
                       : c.type == dtype::f16 ? kernels_of_type<__half>(c)
                                              : kernels_of_type<__nv_bfloat16>(c);
  for (const auto& [config, fn] : kernels) {
    if (kg::min_sm(config) > limits.sm) continue;  // cluster kernels below sm_90
    kg::launch_plan plan;
    const std::string refused = kg::plan_launch(config, {c.n, c.c, c.hw, c.groups}, limits, plan);
    if (config.fam == kg::family::group_span && !refused.empty()) continue;  // a span off the groups
    ASSERT_EQ(refused, "");
    SCOPED_TRACE(kg::instance_name(config));
    check_case(c, [&, fn = fn](const kg::groupnorm_args& a) { return kg::launch(fn, plan, a, nullptr); });
  }
}

// Shapes: one channel a group, groups of odd sizes, spatial sizes off every vector (and below a
// vector, so one vector crosses channels in NCHW), NHWC channels off the vector width, a U-Net
// block.
std::vector<gn_case> shapes(dtype t, kg::layout l, bool silu) {
  std::vector<gn_case> out;
  for (const auto& [n, c, hw, g] :
       std::vector<std::tuple<long long, long long, long long, long long>>{{1, 1, 1, 1},
                                                                           {2, 6, 7, 3},
                                                                           {3, 32, 64, 32},
                                                                           {2, 24, 4097, 4},
                                                                           {1, 320, 256, 32},
                                                                           {2, 40, 9, 8},
                                                                           {2, 64, 3, 16},
                                                                           {2, 36, 5, 12}})
    out.push_back({t, l, silu, n, c, hw, g});
  return out;
}

}  // namespace

TEST(sm80_groupnorm_family, every_layout_dtype_and_silu_on_awkward_shapes) {
  CUOP_REQUIRE_GPU();
  for (const dtype t : {dtype::f32, dtype::f16, dtype::bf16})
    for (const kg::layout l : {kg::layout::nchw, kg::layout::nhwc})
      for (const bool silu : {false, true})
        for (auto c : shapes(t, l, silu)) {
          check_family(c);
          c.misalign = 1;  // every pointer off its vector: the element-by-element path
          check_family(c);
        }
}

TEST(sm80_groupnorm_dispatch, in_place_without_parameters_and_statistics) {
  CUOP_REQUIRE_GPU();
  const auto library = [](const gn_case& c) {
    return [c](const kg::groupnorm_args& a) {
      const long long h = c.hw % 2 == 0 ? 2 : 1;
      cuop::groupnorm_problem p{c.type, c.n, c.c, h, c.hw / h, c.groups, c.lay, c.silu};
      const auto s = cuop::groupnorm(p, a.x, a.weight, a.bias, a.y, a.mean, a.rstd);
      return s == cuop::status::success ? cudaSuccess : cudaErrorUnknown;
    };
  };
  for (const dtype t : {dtype::f32, dtype::bf16})
    for (const kg::layout l : {kg::layout::nchw, kg::layout::nhwc})
      for (const bool silu : {false, true}) {
        for (const auto& c : shapes(t, l, silu)) check_case(c, library(c));
        check_case({t, l, silu, 2, 64, 100, 32, 0, true}, library({t, l, silu, 2, 64, 100, 32}));
        check_case({t, l, silu, 2, 64, 100, 32, 0, false, false}, library({t, l, silu, 2, 64, 100, 32}));
      }
  // The baseline policy runs the default rule's configuration of the table's architecture,
  // whatever the table holds; the tuned one names a configuration of the call's dtype, layout and
  // SiLU.
  cuop::norm_choice choice;
  cuop::groupnorm_problem p{dtype::bf16, 2, 320, 64, 64, 32, kg::layout::nhwc, true};
  p.policy = cuop::choice_policy::baseline;
  ASSERT_EQ(cuop::groupnorm_which(p, choice), cuop::status::success);
  const auto rule = kg::default_config(dtype::bf16, kg::layout::nhwc, true, {2, 320, 64 * 64, 32}, choice.table_arch);
  EXPECT_EQ(std::string(choice.instance), kg::instance_name(rule));
  EXPECT_STREQ(choice.source, "default");
  p.policy = cuop::choice_policy::tuned;
  ASSERT_EQ(cuop::groupnorm_which(p, choice), cuop::status::success);
  EXPECT_EQ(std::string(choice.instance).rfind("groupnorm_bf16_nhwc_silu_", 0), 0u) << choice.instance;
}

TEST(sm80_groupnorm_dispatch, bad_arguments_are_statuses) {
  CUOP_REQUIRE_GPU();
  device_buffer x(4096 * 4), y(4096 * 4), w(64 * 4);
  const cuop::groupnorm_problem p{dtype::f32, 2, 64, 4, 8, 32};
  const auto bad = cuop::status::invalid_argument;
  EXPECT_EQ(cuop::groupnorm(p, nullptr, nullptr, nullptr, y.get()), bad);
  EXPECT_EQ(cuop::groupnorm(p, x.get(), nullptr, nullptr, nullptr), bad);
  EXPECT_EQ(cuop::groupnorm({dtype::f32, 2, 64, 4, 8, 30}, x.get(), nullptr, nullptr, y.get()), bad);  // 64 % 30
  EXPECT_EQ(cuop::groupnorm({dtype::f32, 2, 64, 4, 8, 0}, x.get(), nullptr, nullptr, y.get()), bad);
  EXPECT_EQ(cuop::groupnorm({dtype::f32, -1, 64, 4, 8, 32}, x.get(), nullptr, nullptr, y.get()), bad);
  EXPECT_EQ(
      cuop::groupnorm({dtype::f32, 2, 64, 4, 8, 32, kg::layout::nchw, false, -1.f}, x.get(), nullptr, nullptr, y.get()),
      bad);
  EXPECT_EQ(cuop::groupnorm(p, x.at(2), nullptr, nullptr, y.get()), bad);                    // off the element size
  EXPECT_EQ(cuop::groupnorm(p, x.get(), nullptr, nullptr, x.at(4)), bad);                    // overlap, not in place
  EXPECT_EQ(cuop::groupnorm(p, x.get(), nullptr, nullptr, y.get(), y.at<float>()), bad);     // mean inside y
  EXPECT_EQ(cuop::groupnorm(p, x.get(), w.get(), w.get(), y.get()), cuop::status::success);  // weight = bias: both read
  EXPECT_EQ(cuop::groupnorm(p, x.get(), nullptr, nullptr, x.get()), cuop::status::success);  // in place
  EXPECT_EQ(cuop::groupnorm({dtype::f32, 0, 64, 4, 8, 32}, x.get(), nullptr, nullptr, y.get()), cuop::status::success);
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
}
