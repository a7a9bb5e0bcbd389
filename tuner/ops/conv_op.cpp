#include "tuner/ops/conv_op.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/ops/conv_library.hpp"

namespace cuop::ops {

namespace kc = kernels::conv;

namespace {

int dim_of(const dim_values& dims, const char* name) {
  const auto it = dims.find(name);
  return it == dims.end() ? 0 : static_cast<int>(it->second);
}

}  // namespace

kc::conv_shape conv_shape_of(const dim_values& dims) {
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

std::string conv_problem_key(const dim_values& dims) { return conv_problem_key(conv_shape_of(dims)); }

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
  for (const auto& [name, value] : p.params)
    if (!kc::set_param(c, name, value))
      throw error(fmt::format("unknown parameter \"{}\" of family \"{}\"", name, p.family));
  return c;
}

std::string conv_instance_of(const stored_config& stored, std::string& why) {
  if (stored.family == cudnn_family) return cudnn_instance_of(stored.type, stored.params, why);
  if (stored.family == fft_family) return fft_instance_of(stored.type, stored.params, why);
  if (stored.family != conv_depthwise_family) {
    why = fmt::format("unknown conv2d family \"{}\"", stored.family);
    return {};
  }
  dim_values dims;
  for (const auto& [name, v] : stored.dims) dims[name] = v;
  kc::depthwise_config c = kc::for_shape({}, stored.type, conv_shape_of(dims));
  for (const auto name : kc::depthwise_param_names())
    if (!stored.params.contains(std::string(name))) {
      why = fmt::format("missing parameter \"{}\" of family \"{}\"", name, stored.family);
      return {};
    }
  for (const auto& [name, value] : stored.params)
    if (!kc::set_param(c, name, value)) {
      why = fmt::format("parameter \"{}\" = {} is not one of family \"{}\"", name, value, stored.family);
      return {};
    }
  if (stored.ran && !(why = kc::check_config(c)).empty()) return {};
  return kc::instance_name(c);
}

std::string conv_entry_definition(const kc::depthwise_config& c) {
  if (c.algo ==
      kc::depthwise_algo::mma_seg)  // its tensor maps after conv_args; the swizzled boxes want 1024-byte alignment
    return fmt::format(
        "extern \"C\" __global__ void __launch_bounds__({}, {}) {}(cuop::kernels::conv::conv_args a,\n"
        "    const __grid_constant__ cuop::kernels::conv::tma_input in) {{\n"
        "  extern __shared__ __align__(1024) unsigned char smem_seg[];\n"
        "  {}::run_seg(a, in, smem_seg);\n"
        "}}\n",
        kc::threads_per_block(c), kc::min_blocks_per_sm(c), kc::instance_name(c), kc::template_name(c));
  if (c.algo ==
      kc::depthwise_algo::mma_tma)  // its tensor map as a __grid_constant__ parameter; TMA writes 128-byte aligned
    return fmt::format(
        "extern \"C\" __global__ void __launch_bounds__({}, {}) {}(cuop::kernels::conv::conv_args a,\n"
        "    const __grid_constant__ cuop::kernels::conv::tma_input in) {{\n"
        "  extern __shared__ __align__(128) unsigned char smem_tma[];\n"
        "  {}::run_tma(a, in, smem_tma);\n"
        "}}\n",
        kc::threads_per_block(c), kc::min_blocks_per_sm(c), kc::instance_name(c), kc::template_name(c));
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

namespace {

class conv_ops final : public op_adapter {
 public:
  double bytes(const spec::problem& p) const override {
    return kc::conv_bytes(parse_dtype(p.dtype).value_or(dtype::f32), conv_shape_of(p.dims));
  }
  double flops(const spec::problem& p) const override { return kc::conv_flops(conv_shape_of(p.dims)); }
  bool is_library(std::string_view family) const override { return family == cudnn_family || family == fft_family; }
  kernel_candidate kernel(const space::point& point, const spec::problem& p) const override {
    // A malformed configuration is not an error here (it fails to compile, with the reason).
    const auto c = depthwise_config_of(point, p);
    return {kc::instance_name(c), conv_entry_source(c), std::string(name_of(c.t)), kc::threads_per_block(c),
            kc::check_config(c).empty() ? kc::smem_bytes(c) : 0};
  }
};

}  // namespace

const op_adapter& conv_adapter() {
  static const conv_ops ops;
  return ops;
}

}  // namespace cuop::ops
