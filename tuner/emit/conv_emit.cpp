#include "tuner/emit/conv_emit.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "cuop/detail/shape_features.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/emit/model_build.hpp"
#include "tuner/ops/conv_library.hpp"
#include "tuner/ops/conv_op.hpp"

namespace cuop::emit {

namespace kc = kernels::conv;

namespace {

struct entry {
  int arch = 0;
  std::string gpu;
  dtype type = dtype::f16;
  kc::conv_shape shape;  // the shape its timing is from
  bool is_default = false;
  std::string kind;  // kernel, cudnn, cudnn_heuristic, fft
  kc::depthwise_config config;
  std::string lib_id;
  std::string instance;
  std::string source;  // tuned, nearest_arch, fallback
  double median_us = 0;
  std::string provenance;
};

// "conv2d_f16_cudnn_<id>" -> "<id>" ("heuristic" for the heuristic's first plan);
// "conv2d_f32_fft_..." -> "fft_...". Results files are validated: the prefixes hold.
std::string library_id(const result_trial& t) {
  const auto prefix =
      t.family == ops::cudnn_family ? fmt::format("conv2d_{}_cudnn_", t.dtype) : fmt::format("conv2d_{}_", t.dtype);
  return t.instance.substr(prefix.size());
}

bool is_baseline(const result_trial& t) { return t.family == ops::cudnn_family && library_id(t) == "heuristic"; }

kc::conv_shape shape_of(const result_trial& t) {
  return ops::conv_shape_of(ops::dim_values(t.dims.begin(), t.dims.end()));
}

kc::depthwise_config config_of(const result_trial& t) {
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
  return out + fmt::format(", .algo = kernels::conv::depthwise_algo::{}}}", kc::name_of(c.algo));
}

const char* grouping_name(detail::conv_grouping g) {
  switch (g) {
    case detail::conv_grouping::dense: return "dense";
    case detail::conv_grouping::depthwise: return "depthwise";
    case detail::conv_grouping::grouped: return "grouped";
  }
  return "?";
}

// "f16_nhwc_filter7x7_stride1_pad3_dil1_depthwise": the dtype and the fields a model's shapes share.
std::string group_key(const result_trial& t) {
  const auto g = detail::group_of(shape_of(t));
  return fmt::format("{}_{}_filter{}x{}_stride{}_pad{}_dil{}_{}{}", t.dtype, kc::name_of(g.lay), g.r, g.s, g.stride,
                     g.pad, g.dilation, grouping_name(g.grouping), g.tf32 ? "_tf32" : "");
}

std::string group_fields(const result_trial& t) {
  const auto g = detail::group_of(shape_of(t));
  return fmt::format("dtype::{}, {{kernels::conv::layout::{}, {}, {}, {}, {}, {}, detail::conv_grouping::{}, {}}}",
                     t.dtype, kc::name_of(g.lay), g.r, g.s, g.stride, g.pad, g.dilation, grouping_name(g.grouping),
                     g.tf32);
}

model_traits traits_for(const std::string& target, int cc, bool tuned) {
  model_traits t;
  t.feature_count = detail::conv_feature_count;
  t.features = [](const result_trial& r) {
    std::vector<double> f(detail::conv_feature_count);
    detail::conv_features(shape_of(r), f.data());
    return f;
  };
  t.group = group_key;
  t.is_baseline = is_baseline;
  // Our depthwise kernels where they compiled, fit and can run (TMA stages need sm_90); our cuFFT
  // convolution anywhere; a cuDNN engine configuration on the architecture it was measured on.
  t.ships = [target, cc, tuned](const result_file& f, const result_trial& r) {
    if (r.family == ops::conv_depthwise_family)
      return legal_on(f, r.instance, target) && kc::check_target(config_of(r), cc).empty();
    return r.family == ops::fft_family || tuned;
  };
  return t;
}

entry entry_of(const built_model& m, const result_trial& t, int cc) {
  entry e;
  e.arch = cc;
  e.gpu = m.file->gpu;
  e.type = *parse_dtype(t.dtype);
  e.shape = shape_of(t);
  e.source = m.tuned ? "tuned" : "nearest_arch";
  e.median_us = t.median_us;
  e.provenance = run_provenance(*m.file, t.run);
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

}  // namespace

emitted emit_conv(const std::vector<result_file>& results, const std::vector<std::string>& raw_targets) {
  const auto targets = normalize_targets(raw_targets);
  emitted out;
  std::vector<entry> entries;
  std::map<std::pair<int, std::string>, int> entry_index;  // (arch, instance)
  std::vector<std::vector<built_model>> built(targets.size());
  std::vector<emitted_model> models;
  std::set<std::string> provenance_lines;
  for (std::size_t ti = 0; ti < targets.size(); ++ti) {
    const auto& target = targets[ti];
    const int cc = compile::find_target(target)->cc;
    const auto chosen = results_for_target(results, "conv2d", target);
    built[ti] = build_models(chosen, traits_for(target, cc, chosen.tuned));
    for (const auto& m : built[ti]) {
      emitted_model em{cc, &m, group_fields(*m.fit.anchors.front().baseline), {}};
      for (const auto* t : m.fit.examples) {
        const auto [it, added] = entry_index.emplace(std::pair{cc, t->instance}, static_cast<int>(entries.size()));
        if (added) {
          entries.push_back(entry_of(m, *t, cc));
          provenance_lines.insert(fmt::format("{} (measured on sm_{})", entries.back().provenance, m.file->cc));
          out.cited.insert({m.file, t->run});
          out.chosen.emplace_back(m.file, t);
        }
        em.columns.push_back(it->second);
      }
      models.push_back(std::move(em));
    }
    // The baseline: cuDNN's heuristic for every type and layout.
    std::size_t defaults = 0;
    for (const dtype t : {dtype::f16, dtype::bf16, dtype::f32})
      for (const kc::layout l : {kc::layout::nhwc, kc::layout::nchw}) {
        entry e;
        e.arch = cc;
        e.type = t;
        e.shape.lay = l;
        e.is_default = true;
        e.kind = "cudnn_heuristic";
        e.instance = ops::conv_library_instance(t, "heuristic");
        e.source = "fallback";
        entries.push_back(std::move(e));
        ++defaults;
      }
    out.report.push_back(model_report("conv2d " + target, built[ti]) +
                         fmt::format("; {} cuDNN heuristic defaults", defaults));
  }

  std::map<std::string, kc::depthwise_config> kernels_by_name;
  for (const auto& e : entries)
    if (e.kind == "kernel") kernels_by_name.emplace(e.instance, e.config);
  const auto kernel_index = kernel_indices(kernels_by_name);

  const std::string banner = emit_banner(targets, provenance_lines);
  std::string& h = out.header;
  h += banner;
  h += "//\n// Dispatch (docs/dispatch.md): the model of the running GPU's architecture, the call's type and\n"
       "// its group (layout, filter, stride, padding, dilation, kind of grouping; one measured on the\n"
       "// running GPU first) chooses among its candidates by the tuned shapes nearest the call's\n"
       "// (cuop/detail/nearest_choice.hpp); without a confident choice, and for groups never tuned,\n"
       "// cuDNN's heuristic runs. A cuDNN configuration the installed library rejects is not chosen (at\n"
       "// a tuned shape: the heuristic, said once).\n"
       "#pragma once\n\n#include \"cuop/detail/conv_table.hpp\"\n\n"
       "namespace cuop::generated {\n\n";
  h += model_arrays("conv", "conv_model", detail::conv_feature_count, models);
  h += "\ninline constexpr detail::conv_entry conv_table[] = {\n";
  for (const auto& e : entries) {
    const auto& sh = e.shape;
    const bool d = e.is_default;
    h += fmt::format(
        "    // {}{}\n    {{{}, {}, dtype::{}, kernels::conv::layout::{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
        "{}, {}, {}, detail::conv_kind::{},\n     {},\n     {}, {}, detail::entry_source::{}, {:.4g}, {}}},\n",
        d ? "default" : fmt::format("{} {}", e.source, ops::conv_problem_key(e.shape)),
        e.provenance.empty() ? "" : " <- " + e.provenance, e.arch, cxx_string_literal(e.gpu), name_of(e.type),
        kc::name_of(sh.lay), d ? 0 : sh.n, d ? 0 : sh.h, d ? 0 : sh.w, d ? 0 : sh.c, d ? 0 : sh.k, d ? 0 : sh.r,
        d ? 0 : sh.s, d ? 0 : sh.stride_h, d ? 0 : sh.pad_h, d ? 0 : sh.dil_h, d ? 0 : sh.groups, sh.allow_tf32 ? 1 : 0,
        e.kind, e.kind == "kernel" ? cxx_config(e.config) : "{}", cxx_string_literal(e.lib_id),
        e.kind == "kernel" ? kernel_index.at(e.instance) : -1, e.source, e.median_us, cxx_string_literal(e.instance));
  }
  std::vector<unit_kernel> kernels;
  for (const auto& [name, c] : kernels_by_name)
    kernels.push_back({name, {std::string(kc::depthwise_header())}, ops::conv_entry_definition(c)});
  finish_files("conv", banner, entries.size(), kernels, h, out.instantiation);
  return out;
}

}  // namespace cuop::emit
