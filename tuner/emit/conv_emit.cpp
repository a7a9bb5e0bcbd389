#include "tuner/emit/conv_emit.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/ops/conv_library.hpp"
#include "tuner/ops/conv_op.hpp"

namespace cuop::emit {

namespace kc = kernels::conv;

namespace {

struct entry {
  int arch = 0;
  std::string gpu;
  dtype type = dtype::f16;
  kc::conv_shape shape;
  bool is_default = false;
  std::string kind;  // kernel, cudnn, cudnn_heuristic, fft
  kc::depthwise_config config;
  std::string lib_id;
  std::string instance;
  std::string source;  // tuned, nearest_arch, fallback
  double median_us = 0;
  std::string provenance;
};

bool is_library(const result_trial& t) { return t.family == ops::cudnn_family || t.family == ops::fft_family; }

// "conv2d_f16_cudnn_<id>" -> "<id>" ("heuristic" for the heuristic's first plan);
// "conv2d_f32_fft_..." -> "fft_...".
std::string library_id(const result_trial& t) {
  const auto prefix = t.family == ops::cudnn_family ? fmt::format("conv2d_{}_cudnn_", t.dtype)
                                                    : fmt::format("conv2d_{}_", t.dtype);
  if (t.instance.rfind(prefix, 0) != 0)
    throw error(fmt::format("{} instance \"{}\" does not start with \"{}\"", t.family, t.instance, prefix));
  return t.instance.substr(prefix.size());
}

bool is_reference(const result_trial& t) {
  return t.family == ops::cudnn_family && library_id(t) == "heuristic";
}

kc::conv_shape shape_of(const result_trial& t) {
  return ops::conv_shape_of(ops::dim_values(t.dims.begin(), t.dims.end()));
}

kc::depthwise_config config_of(const result_trial& t) {
  if (t.family != ops::conv_depthwise_family) throw error(fmt::format("unknown conv2d family \"{}\"", t.family));
  kc::depthwise_config c = kc::for_shape({}, *parse_dtype(t.dtype), shape_of(t));
  for (const auto& [name, v] : t.params)
    if (!kc::set_param(c, name, v)) throw error(fmt::format("unknown depthwise parameter \"{}\"", name));
  return c;
}

// Designated initializers: a field the library renames or reorders fails to compile.
std::string cxx_config(const kc::depthwise_config& c) {
  std::string out = fmt::format("{{.t = dtype::{}, .lay = kernels::conv::layout::{}, .r = {}, .s = {}, .stride = {}",
                                name_of(c.t), kc::name_of(c.lay), c.r, c.s, c.stride);
  for (const auto name : kc::depthwise_param_names())
    out += fmt::format(", .{} = {}", name, kc::get_param(c, name));
  return out + "}";
}

std::string heuristic_instance(dtype t) { return ops::conv_library_instance(t, "heuristic"); }

std::string shape_comment(const entry& e) {
  if (e.is_default) return "default";
  return fmt::format("{} {}", e.source, ops::conv_problem_key(e.shape));
}

}  // namespace

emitted emit_conv(const std::vector<result_file>& results, const std::vector<std::string>& raw_targets) {
  const auto targets = normalize_targets(raw_targets);
  emitted out;
  std::vector<entry> entries;
  std::set<std::string> provenance_lines;
  for (const auto& target : targets) {
    const int cc = compile::find_target(target)->cc;
    const auto chosen = results_for_target(results, "conv2d", target);
    std::size_t count = 0;
    // A configuration measured on a newer architecture is borrowed only where it can run.
    const auto runs_on = [cc](const result_trial& t) { return kc::check_target(config_of(t), cc).empty(); };
    for (const auto [f, t] : choose_for_target(chosen, target, is_library, is_reference, runs_on)) {
      entry e;
      e.arch = cc;
      e.gpu = f->gpu;
      e.type = *parse_dtype(t->dtype);
      e.shape = shape_of(*t);
      e.source = chosen.tuned ? "tuned" : "nearest_arch";
      e.median_us = t->median_us;
      e.provenance = run_provenance(*f, t->run);
      if (t->family == ops::conv_depthwise_family) {
        e.kind = "kernel";
        e.config = config_of(*t);
        e.instance = kc::instance_name(e.config);
      } else if (t->family == ops::fft_family) {
        e.kind = "fft";
        e.lib_id = library_id(*t);
        e.instance = t->instance;
      } else if (const auto id = library_id(*t); id != "heuristic" && chosen.tuned) {
        e.kind = "cudnn";
        e.lib_id = id;
        e.instance = t->instance;
      } else {  // the heuristic's plan, or a configuration measured on another architecture
        e.kind = "cudnn_heuristic";
        e.instance = heuristic_instance(e.type);
      }
      provenance_lines.insert(fmt::format("{} (measured on sm_{})", e.provenance, f->cc));
      out.cited.insert({f, t->run});
      out.chosen.emplace_back(f, t);
      entries.push_back(std::move(e));
      ++count;
    }
    // Defaults: cuDNN's heuristic for every type and layout.
    std::size_t defaults = 0;
    for (const dtype t : {dtype::f16, dtype::bf16, dtype::f32})
      for (const kc::layout l : {kc::layout::nhwc, kc::layout::nchw}) {
        entry e;
        e.arch = cc;
        e.type = t;
        e.shape.lay = l;
        e.is_default = true;
        e.kind = "cudnn_heuristic";
        e.instance = heuristic_instance(t);
        e.source = "fallback";
        entries.push_back(std::move(e));
        ++defaults;
      }
    out.report.push_back(target_report("conv2d " + target, count, chosen.tuned, defaults));
  }

  std::map<std::string, kc::depthwise_config> kernels_by_name;
  for (const auto& e : entries)
    if (e.kind == "kernel") kernels_by_name.emplace(e.instance, e.config);
  const auto kernel_index = kernel_indices(kernels_by_name);

  const std::string banner = emit_banner(targets, provenance_lines);
  std::string& h = out.header;
  h += banner;
  h += "//\n// Dispatch rule: an exact (arch, type, layout, shape) entry measured on the running GPU wins,\n"
       "// then one measured on another GPU of the same architecture; an untuned shape takes the\n"
       "// nearest tuned shape with the same filter, stride, dilation and kind of grouping (sum of\n"
       "// |log ratio| of n, h * w, c and k) whose choice can run it; otherwise cuDNN's heuristic. A\n"
       "// cuDNN configuration the installed library rejects falls back to the heuristic, said once.\n"
       "#pragma once\n\n#include \"cuop/detail/conv_table.hpp\"\n\n"
       "namespace cuop::generated {\n\n"
       "inline constexpr detail::conv_entry conv_table[] = {\n";
  for (const auto& e : entries) {
    const auto& sh = e.shape;
    const bool d = e.is_default;
    h += fmt::format(
        "    // {}{}\n    {{{}, {}, dtype::{}, kernels::conv::layout::{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
        "{}, {}, {}, detail::conv_kind::{},\n     {},\n     {}, {}, detail::entry_source::{}, {:.4g}, {}}},\n",
        shape_comment(e), e.provenance.empty() ? "" : " <- " + e.provenance, e.arch, cxx_string_literal(e.gpu), name_of(e.type),
        kc::name_of(sh.lay), d ? 0 : sh.n, d ? 0 : sh.h, d ? 0 : sh.w, d ? 0 : sh.c, d ? 0 : sh.k, d ? 0 : sh.r,
        d ? 0 : sh.s, d ? 0 : sh.stride_h, d ? 0 : sh.pad_h, d ? 0 : sh.dil_h, d ? 0 : sh.groups,
        sh.allow_tf32 ? 1 : 0, e.kind,
        e.kind == "kernel" ? cxx_config(e.config) : "{}", cxx_string_literal(e.lib_id),
        e.kind == "kernel" ? kernel_index.at(e.instance) : -1, e.source, e.median_us, cxx_string_literal(e.instance));
  }
  std::vector<unit_kernel> kernels;
  for (const auto& [name, c] : kernels_by_name)
    kernels.push_back({name, {std::string(kc::depthwise_header())}, ops::conv_entry_definition(c)});
  finish_files("conv", banner, entries.size(), kernels, h, out.instantiation);
  return out;
}

}  // namespace cuop::emit
