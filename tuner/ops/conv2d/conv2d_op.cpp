#include "tuner/ops/conv2d/conv2d_op.hpp"

#include <fmt/format.h>

#include <limits>

#include "cuop/detail/shape_features.hpp"
#include "tuner/core/error.hpp"
#include "tuner/ops/conv2d/emit.hpp"
#include "tuner/ops/conv2d/library.hpp"
#include "tuner/ops/conv2d/trial.hpp"
#include "tuner/ops/dims.hpp"
#include "tuner/ops/entry_source.hpp"
#include "tuner/ops/params.hpp"

namespace cuop::ops {

namespace kc = kernels::conv;

namespace {

int dim_of(const catalog::dim_values& dims, const char* name) { return static_cast<int>(dim_or_zero(dims, name)); }

}  // namespace

kc::conv_shape conv_shape_of(const catalog::dim_values& dims) {
  kc::conv_shape sh;
  sh.n = dim_of(dims, "n");
  sh.h = dim_of(dims, "h");
  sh.w = dim_of(dims, "w");
  sh.c = dim_of(dims, "c");
  sh.k = dim_of(dims, "k");
  sh.r = dim_of(dims, "r");
  sh.s = dim_of(dims, "s");
  sh.stride_h = sh.stride_w = dim_of(dims, "stride");
  sh.pad_h = sh.pad_w = dim_of(dims, "pad");
  sh.dil_h = sh.dil_w = dim_of(dims, "dilation");
  sh.groups = dim_of(dims, "groups");
  sh.lay = dim_of(dims, "layout") == 1 ? kc::layout::nchw : kc::layout::nhwc;
  sh.allow_tf32 = dim_of(dims, "tf32") == 1;
  return sh;
}

std::string conv_problem_key(const catalog::dim_values& dims) { return conv_problem_key(conv_shape_of(dims)); }

std::string conv_problem_key(const kc::conv_shape& sh) {
  return fmt::format("{}_{}x{}x{}x{}_k{}_filter{}x{}_stride{}_pad{}_dil{}_groups{}{}", kc::name_of(sh.lay), sh.n, sh.h,
                     sh.w, sh.c, sh.k, sh.r, sh.s, sh.stride_h, sh.pad_h, sh.dil_h, sh.groups,
                     sh.allow_tf32 ? "_tf32" : "");
}

kc::depthwise_config depthwise_config_of(const space::point& p, const spec::problem& problem) {
  if (p.family != conv_depthwise_family) throw error(fmt::format("unknown conv2d family \"{}\"", p.family));
  const auto t = parse_dtype(problem.dtype);
  if (!t) throw error(fmt::format("unknown dtype \"{}\"", problem.dtype));
  kc::depthwise_config c = kc::for_shape({}, *t, conv_shape_of(problem.dims));
  set_point_params(c, p, [](auto& cfg, const std::string& name, long long v) { return kc::set_param(cfg, name, v); });
  return c;
}

namespace {

// The entry of an algorithm that loads through TMA: its tensor map(s) after conv_args, as a
// __grid_constant__ parameter, and shared memory aligned as its boxes want (`name`: "seg", "tma").
std::string tma_entry_definition(const kc::depthwise_config& c, int align, const char* name) {
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({0}, {1}) {2}(cuop::kernels::conv::conv_args a,\n"
      "    const __grid_constant__ cuop::kernels::conv::tma_input in) {{\n"
      "  extern __shared__ __align__({4}) unsigned char smem_{5}[];\n"
      "  {3}::run_{5}(a, in, smem_{5});\n"
      "}}\n",
      kc::threads_per_block(c), kc::min_blocks_per_sm(c), kc::instance_name(c), kc::template_name(c), align, name);
}

}  // namespace

std::string conv_entry_definition(const kc::depthwise_config& c) {
  // mma_seg's swizzled boxes want 1024-byte alignment; mma_tma's TMA writes 128-byte aligned.
  if (c.algo == kc::depthwise_algo::mma_seg) return tma_entry_definition(c, 1024, "seg");
  if (c.algo == kc::depthwise_algo::mma_tma) return tma_entry_definition(c, 128, "tma");
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}, {}) {}(cuop::kernels::conv::conv_args a) {{\n"
      "  extern __shared__ __align__(16) unsigned char smem[];\n"
      "  {}::run(a, smem);\n"
      "}}\n",
      kc::threads_per_block(c), kc::min_blocks_per_sm(c), kc::instance_name(c), kc::template_name(c));
}

std::string conv_entry_source(const kc::depthwise_config& c) {
  return fmt::format("#include <{}>\n{}", kc::depthwise_header(), conv_entry_definition(c));
}

const char* grouping_name(detail::conv_grouping g) {
  switch (g) {
    case detail::conv_grouping::dense: return "dense";
    case detail::conv_grouping::depthwise: return "depthwise";
    case detail::conv_grouping::grouped: return "grouped";
  }
  return "?";
}

namespace {

std::string instance_of(const catalog::stored_config& stored, std::string& why) {
  if (stored.family == cudnn_family) return cudnn_instance_of(stored.type, stored.params, why);
  if (stored.family == fft_family) return fft_instance_of(stored.type, stored.params, why);
  if (stored.family != conv_depthwise_family) {
    why = fmt::format("unknown conv2d family \"{}\"", stored.family);
    return {};
  }
  catalog::dim_values dims;
  for (const auto& [name, v] : stored.dims) dims[name] = v;
  kc::depthwise_config c = kc::for_shape({}, stored.type, conv_shape_of(dims));
  why = set_stored_params(c, stored.family, kc::depthwise_param_names(), stored.params,
                          [](auto& cfg, const std::string& name, long long v) { return kc::set_param(cfg, name, v); });
  if (!why.empty()) return {};
  if (stored.ran && !(why = kc::check_config(c)).empty()) return {};
  return kc::instance_name(c);
}

double bytes_of(const std::string& dtype, const catalog::dim_values& dims) {
  return kc::conv_bytes(parse_dtype(dtype).value_or(dtype::f32), conv_shape_of(dims));
}

double flops_of(const std::string&, const catalog::dim_values& dims) { return kc::conv_flops(conv_shape_of(dims)); }

// Depthwise layers move a lot for little arithmetic: memory-bound; the others compute-bound.
bool compute_bound(const catalog::dim_values& dims) {
  const auto groups = dims.find("groups"), channels = dims.find("c");
  return !(groups != dims.end() && channels != dims.end() && groups->second == channels->second);
}

std::vector<double> features_of(const catalog::dim_values& dims) {
  std::vector<double> f(detail::conv_feature_count);
  detail::conv_features(conv_shape_of(dims), f.data());
  return f;
}

// "f16_nhwc_filter7x7_stride1_pad3_dil1_depthwise": the dtype, layout, filter, stride, padding, dilation, kind
// of grouping and tf32, as emit names its models.
std::string group_of(const std::string& dtype, const catalog::dim_values& dims) {
  const auto g = detail::group_of(conv_shape_of(dims));
  return fmt::format("{}_{}_filter{}x{}_stride{}_pad{}_dil{}_{}{}", dtype, kc::name_of(g.lay), g.r, g.s, g.stride,
                     g.pad, g.dilation, grouping_name(g.grouping), g.tf32 ? "_tf32" : "");
}

std::string baseline_of(const std::string& dtype, const catalog::dim_values&, int) {
  return conv_library_instance(dtype_of(dtype), "heuristic");
}

catalog::op_desc describe() {
  catalog::op_desc op{.name = "conv2d",
                      .key_of = conv_problem_key,
                      .instance_of = instance_of,
                      .features_of = features_of,
                      .group_of = group_of,
                      .baseline_of = baseline_of,
                      .bytes_of = bytes_of,
                      .flops_of = flops_of,
                      .compute_bound = compute_bound,
                      // batch and output pixels: the smallest calls (one image of few pixels) are
                      // launch-bound, where the library's heuristic holds its own
                      .default_floor_features = 2};
  op.dims = {
      {"n", 1, {}, {}},
      {"h", 1, {}, {}},
      {"w", 1, {}, {}},
      {"c", 1, {}, {}},
      {"k", 1, {}, {}},
      {"r", 1, {}, {}},
      {"s", 1, {}, {}},
      {"stride", 1, 1, {}},
      {"pad", 0, 0, {}},
      {"dilation", 1, 1, {}},
      {"groups", 1, 1, {}},
      {"tf32", 0, 0, {}},
      {"layout", 0, 0, {std::string(kc::name_of(kc::layout::nhwc)), std::string(kc::name_of(kc::layout::nchw))}}};
  for (auto& d : op.dims) {
    d.max = std::numeric_limits<int>::max();  // kernels::conv::conv_shape holds ints
    op.problem_dims.push_back(d.name);
  }
  catalog::family_desc d{std::string(conv_depthwise_family), {}, "kernel"};
  d.headers = {std::string(kc::depthwise_header())};
  for (std::string_view p : kc::depthwise_param_names()) d.params.emplace_back(p);
  for (std::string_view p : kc::depthwise_optional_param_names()) d.optional_params.emplace_back(p);
  for (std::string_view a : kc::depthwise_algo_names()) d.choices["algo"].emplace_back(a);
  op.families.push_back(std::move(d));
  op.families.push_back({std::string(cudnn_family), cudnn_param_names(), "library"});
  op.families.push_back({std::string(fft_family), fft_param_names(), "library"});
  return op;
}

kernel_candidate kernel_of(const space::point& point, const spec::problem& p) {
  // A malformed configuration is not an error here: it is refused (stored as rejected, with the
  // reason).
  const auto c = depthwise_config_of(point, p);
  std::string refused = kc::check_config(c);
  const long long smem = refused.empty() ? kc::smem_bytes(c) : 0;
  return {kc::instance_name(c), conv_entry_source(c), std::string(name_of(c.t)), kc::threads_per_block(c), smem,
          std::move(refused)};
}

}  // namespace

const op& conv2d_op() {
  static const op instance({describe(), kernel_of, make_runner<conv_trial_runner>, "conv", emit_conv});
  return instance;
}

}  // namespace cuop::ops
