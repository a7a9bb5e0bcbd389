#include "tuner/emit/softmax_emit.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "cuop/detail/shape_features.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/emit/model_build.hpp"
#include "tuner/ops/custom_softmax.hpp"
#include "tuner/ops/softmax_source.hpp"

namespace cuop::emit {

namespace ks = kernels::softmax;

namespace {

struct entry {
  int arch = 0;
  std::string gpu;
  long long rows = 0, cols = 0;  // the shape its timing is from (0 for defaults)
  ks::softmax_config config;
  std::string source;  // tuned, nearest_arch, fallback
  double median_us = 0;
  std::string provenance;
};

// A verified trial's configuration (results files are validated: its family and parameters are).
ks::softmax_config config_of(const result_trial& t) {
  ks::softmax_config c;
  ks::parse_family(t.family, c.fam);
  c.type = *parse_dtype(t.dtype);
  for (const auto& [k, v] : t.params) ks::set_param(c, k, v);
  return c;
}

std::string cxx_config(const ks::softmax_config& c) {
  return fmt::format("{{kernels::softmax::family::{}, dtype::{}, {}, {}, {}, {}, {}, {}, {}, {}}}", ks::name_of(c.fam),
                     name_of(c.type), c.vec, c.threads_per_row, c.rows_per_block, c.block_threads, c.chunks, c.cluster,
                     c.persistent, c.smem_chunks);
}

model_traits traits_for(const std::string& target, int cc) {
  model_traits t;
  t.feature_count = detail::softmax_feature_count;
  t.features = [](const result_trial& r) {
    std::vector<double> f(detail::softmax_feature_count);
    detail::softmax_features(r.dims.at("rows"), r.dims.at("cols"), f.data());
    return f;
  };
  t.group = [](const result_trial& r) { return r.dtype; };
  t.is_baseline = [](const result_trial& r) {
    return r.instance == ks::instance_name(ks::default_config(*parse_dtype(r.dtype), r.dims.at("cols")));
  };
  // Compiled and fit there, and the family runs there (cluster_row compiles to a trap below
  // sm_90). A custom kernel (the sweep file's own source) is not part of the library.
  t.ships = [target, cc](const result_file& f, const result_trial& r) {
    return r.family != ops::custom_family && legal_on(f, r.instance, target) && ks::min_sm(config_of(r).fam) <= cc;
  };
  return t;
}

}  // namespace

emitted emit_softmax(const std::vector<result_file>& results, const std::vector<std::string>& raw_targets) {
  const auto targets = normalize_targets(raw_targets);
  emitted out;
  std::vector<entry> entries;
  std::map<std::pair<int, std::string>, int> entry_of;  // (arch, instance) -> index
  std::vector<std::vector<built_model>> built(targets.size());
  std::vector<emitted_model> models;
  std::set<std::string> provenance_lines;
  for (std::size_t ti = 0; ti < targets.size(); ++ti) {
    const auto& target = targets[ti];
    const int cc = compile::find_target(target)->cc;
    const auto chosen = results_for_target(results, "softmax", target);
    built[ti] = build_models(chosen, traits_for(target, cc));
    for (const auto& m : built[ti]) {
      emitted_model em{cc, &m, fmt::format("dtype::{}", m.group), {}};
      for (std::size_t c = 0; c < m.fit.candidates.size(); ++c) {
        const result_trial& t = *m.fit.examples[c];
        const auto [it, added] = entry_of.emplace(std::pair{cc, t.instance}, static_cast<int>(entries.size()));
        if (added) {
          entry e;
          e.arch = cc;
          e.gpu = m.file->gpu;
          e.config = config_of(t);
          e.rows = t.dims.at("rows");
          e.cols = t.dims.at("cols");
          e.source = m.tuned ? "tuned" : "nearest_arch";
          e.median_us = t.median_us;
          e.provenance = run_provenance(*m.file, t.run);
          provenance_lines.insert(fmt::format("{} (measured on sm_{})", e.provenance, m.file->cc));
          out.cited.insert({m.file, t.run});
          out.chosen.emplace_back(m.file, &t);
          entries.push_back(std::move(e));
        }
        em.columns.push_back(it->second);
      }
      models.push_back(std::move(em));
    }
    // The default rule's configurations: the baseline, for every dtype.
    std::size_t defaults = 0;
    for (const dtype d : {dtype::f32, dtype::f16, dtype::bf16})
      for (const auto& c : ks::default_configs(d)) {
        entry e;
        e.arch = cc;
        e.config = c;
        e.source = "fallback";
        entries.push_back(std::move(e));
        ++defaults;
      }
    out.report.push_back(model_report(target, built[ti]) + fmt::format("; {} default-rule configurations", defaults));
  }

  // Kernels: each distinct instance once, sorted by name.
  std::map<std::string, ks::softmax_config> kernels_by_name;
  for (const auto& e : entries) kernels_by_name.emplace(ks::instance_name(e.config), e.config);
  const auto kernel_index = kernel_indices(kernels_by_name);

  const std::string banner = emit_banner(targets, provenance_lines);
  std::string& h = out.header;
  h += banner;
  h += "//\n// Dispatch (docs/dispatch.md): the model of the running GPU's architecture and the call's\n"
       "// dtype (one measured on the running GPU first) chooses among its candidates by the tuned\n"
       "// shapes nearest the call's (cuop/detail/nearest_choice.hpp); without a confident choice,\n"
       "// the default rule's configuration (kernels::softmax::default_config) runs, or the first\n"
       "// default-rule configuration of the dtype that can.\n"
       "#pragma once\n\n#include \"cuop/detail/dispatch_model.hpp\"\n#include \"cuop/detail/softmax_table.hpp\"\n\n"
       "namespace cuop::generated {\n\n";
  h += model_arrays("softmax", "softmax_model", detail::softmax_feature_count, models);
  h += "\ninline constexpr detail::softmax_entry softmax_table[] = {\n";
  for (const auto& e : entries) {
    const auto name = ks::instance_name(e.config);
    h += fmt::format(
        "    // {}{}\n    {{{}, {}, dtype::{}, {}, {}, {},\n     {}, detail::entry_source::{}, {:.4g}, {}}},\n",
        e.source == "fallback" ? "default rule" : fmt::format("{} {}x{}", e.source, e.rows, e.cols),
        e.provenance.empty() ? "" : " <- " + e.provenance, e.arch, cxx_string_literal(e.gpu), name_of(e.config.type),
        e.rows, e.cols, cxx_config(e.config), kernel_index.at(name), e.source, e.median_us, cxx_string_literal(name));
  }
  std::vector<unit_kernel> kernels;
  for (const auto& [name, c] : kernels_by_name)
    kernels.push_back({name, ops::softmax_entry_includes(c), ops::softmax_entry_definition(c)});
  finish_files("softmax", banner, entries.size(), kernels, h, out.instantiation);
  return out;
}

}  // namespace cuop::emit
