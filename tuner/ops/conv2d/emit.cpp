#include "tuner/ops/conv2d/emit.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "cuop/detail/shape_features.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/emit/dispatch_emit.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/emit/model_build.hpp"
#include "tuner/emit/table_entry.hpp"
#include "tuner/ops/conv2d/conv2d_op.hpp"
#include "tuner/ops/conv2d/library.hpp"

namespace cuop::ops {

namespace kc = kernels::conv;

namespace {

struct entry : emit::table_entry {
  dtype type = dtype::f16;
  kc::conv_shape shape;  // the shape its timing is from
  bool is_default = false;
  std::string kind;  // kernel, cudnn, cudnn_heuristic, fft
  kc::depthwise_config config;
  std::string lib_id;
  std::string instance;
};

// "conv2d_f16_cudnn_<id>" -> "<id>" ("heuristic" for the heuristic's first plan);
// "conv2d_f32_fft_..." -> "fft_...". Results files are validated: the prefixes hold.
std::string library_id(const results::result_trial& t) {
  const auto prefix =
      t.family == ops::cudnn_family ? fmt::format("conv2d_{}_cudnn_", t.dtype) : fmt::format("conv2d_{}_", t.dtype);
  return t.instance.substr(prefix.size());
}

bool is_baseline(const results::result_trial& t) {
  return t.family == ops::cudnn_family && library_id(t) == "heuristic";
}

kc::conv_shape shape_of(const results::result_trial& t) {
  return ops::conv_shape_of(catalog::dim_values(t.dims.begin(), t.dims.end()));
}

kc::depthwise_config config_of(const results::result_trial& t) {
  kc::depthwise_config c = kc::for_shape({}, *parse_dtype(t.dtype), shape_of(t));
  for (const auto& [name, v] : t.params) kc::set_param(c, name, v);
  return c;
}

// Designated initializers: a field the library renames or reorders fails to compile.
std::string cxx_config(const kc::depthwise_config& c) {
  std::string out = fmt::format("{{.t = dtype::{}, .lay = kernels::conv::layout::{}, .r = {}, .s = {}, .stride = {}",
                                name_of(c.t), kc::name_of(c.lay), c.r, c.s, c.stride);
  for (const auto name : kc::depthwise_param_names())
    if (name != "algo") out += fmt::format(", .{} = {}", name, kc::get_param(c, name));
  for (const auto name : kc::depthwise_optional_param_names())
    out += fmt::format(", .{} = {}", name, kc::get_param(c, name));
  return out + fmt::format(", .algo = kernels::conv::depthwise_algo::{}}}", kc::name_of(c.algo));
}

std::string group_fields(const results::result_trial& t) {
  const auto g = detail::group_of(shape_of(t));
  return fmt::format("dtype::{}, {{kernels::conv::layout::{}, {}, {}, {}, {}, {}, detail::conv_grouping::{}, {}}}",
                     t.dtype, kc::name_of(g.lay), g.r, g.s, g.stride, g.pad, g.dilation, grouping_name(g.grouping),
                     g.tf32);
}

emit::model_traits traits_for(const std::string& target, int cc, bool tuned) {
  emit::model_traits t;
  t.is_baseline = is_baseline;
  // Our depthwise kernels where they compiled, fit and can run (TMA stages need sm_90); our cuFFT
  // convolution anywhere; a cuDNN engine configuration on the architecture it was measured on.
  t.ships = [target, cc, tuned](const results::result_file& f, const results::result_trial& r) {
    if (r.family == ops::conv_depthwise_family)
      return emit::legal_on(f, r.instance, target) && kc::check_target(config_of(r), cc).empty();
    return r.family == ops::fft_family || tuned;
  };
  return t;
}

entry entry_of(const emit::built_model& m, const results::result_trial& t, int cc) {
  entry e;
  emit::set_measured(e, m, t, cc);
  e.type = *parse_dtype(t.dtype);
  e.shape = shape_of(t);
  e.instance = t.instance;
  if (t.family == ops::conv_depthwise_family) {
    e.kind = "kernel";
    e.config = config_of(t);
    e.instance = kc::instance_name(e.config);
  } else {
    e.kind = t.family == ops::fft_family ? "fft" : "cudnn";
    e.lib_id = library_id(t);
  }
  return e;
}

// The baseline: cuDNN's heuristic for every type and layout.
std::vector<entry> defaults(int cc) {
  std::vector<entry> out;
  for (const dtype t : {dtype::f16, dtype::bf16, dtype::f32})
    for (const kc::layout l : {kc::layout::nhwc, kc::layout::nchw}) {
      entry e = emit::default_entry<entry>(cc);
      e.type = t;
      e.shape.lay = l;
      e.is_default = true;
      e.kind = "cudnn_heuristic";
      e.instance = ops::conv_library_instance(t, "heuristic");
      out.push_back(std::move(e));
    }
  return out;
}

std::string row(const entry& e, int kernel_index) {
  const auto& sh = e.shape;
  const bool d = e.is_default;
  return fmt::format(
      "    // {}\n    {{{}, {}, dtype::{}, kernels::conv::layout::{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
      "{}, {}, {}, detail::conv_kind::{},\n     {},\n     {}, {}, detail::entry_source::{}, {:.4g}, {}}},\n",
      emit::row_comment(e, "default", d ? "" : ops::conv_problem_key(e.shape)), e.arch, emit::cxx_string_literal(e.gpu),
      name_of(e.type), kc::name_of(sh.lay), d ? 0 : sh.n, d ? 0 : sh.h, d ? 0 : sh.w, d ? 0 : sh.c, d ? 0 : sh.k,
      d ? 0 : sh.r, d ? 0 : sh.s, d ? 0 : sh.stride_h, d ? 0 : sh.pad_h, d ? 0 : sh.dil_h, d ? 0 : sh.groups,
      sh.allow_tf32 ? 1 : 0, e.kind, e.kind == "kernel" ? cxx_config(e.config) : "{}",
      emit::cxx_string_literal(e.lib_id), kernel_index, e.source, e.median_us, emit::cxx_string_literal(e.instance));
}

}  // namespace

emit::emitted emit_conv(const std::vector<results::result_file>& results, const std::vector<std::string>& targets) {
  emit::dispatch_parts<entry, kc::depthwise_config> op;
  op.desc = &conv2d_op().desc();
  op.stem = "conv";
  op.feature_count = detail::conv_feature_count;
  op.preamble =
      "//\n// Dispatch (docs/dispatch.md): the model of the running GPU's architecture, the call's type and\n"
      "// its group (layout, filter, stride, padding, dilation, kind of grouping; one measured on the\n"
      "// running GPU first) chooses among its candidates by the tuned shapes nearest the call's\n"
      "// (cuop/detail/nearest_choice.hpp), else the model's group default among its tuned shapes;\n"
      "// without either, and for groups never tuned, cuDNN's heuristic runs. A cuDNN configuration\n"
      "// the installed library rejects is not chosen (at a tuned shape: the heuristic, said once).\n"
      "#pragma once\n\n#include \"cuop/detail/conv_table.hpp\"\n";
  op.traits = traits_for;
  op.group_fields = [](const emit::built_model& m) { return group_fields(*m.fit.anchors.front().baseline); };
  op.entry_of = entry_of;
  op.defaults = defaults;
  op.defaults_noun = "cuDNN heuristic defaults";
  op.kernel_of = emit::kernel_kind_is_kernel<entry, kc::depthwise_config>;
  op.unit_kernel_of = [](const std::string& name, const kc::depthwise_config& c) {
    return emit::unit_kernel{name, {std::string(kc::depthwise_header())}, ops::conv_entry_definition(c)};
  };
  op.row = row;
  return emit::emit_dispatch(op, results, targets);
}

}  // namespace cuop::ops
