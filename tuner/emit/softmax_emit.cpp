#include "tuner/emit/softmax_emit.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/emit/softmax_defaults.hpp"
#include "tuner/ops/custom_softmax.hpp"
#include "tuner/ops/softmax_source.hpp"

namespace cuop::emit {

namespace ks = kernels::softmax;

namespace {

struct entry {
  int arch = 0;
  std::string gpu;
  dtype type = dtype::f32;
  long long rows = 0, cols = 0;
  ks::softmax_config config;
  std::string source;  // tuned, nearest_arch, fallback
  double median_us = 0;
  std::string provenance;
};

ks::softmax_config config_of(const result_trial& t) {
  ks::softmax_config c;
  if (!ks::parse_family(t.family, c.fam)) throw error(fmt::format("unknown family \"{}\"", t.family));
  c.type = *parse_dtype(t.dtype);
  for (const auto& [k, v] : t.params) ks::set_param(c, k, v);
  return c;
}

std::string cxx_config(const ks::softmax_config& c) {
  return fmt::format(
      "{{kernels::softmax::family::{}, dtype::{}, {}, {}, {}, {}, {}, {}, {}, {}}}", ks::name_of(c.fam),
      name_of(c.type), c.vec, c.threads_per_row, c.rows_per_block, c.block_threads, c.chunks,
      c.cluster, c.persistent, c.smem_chunks);
}

}  // namespace

emitted emit_softmax(const std::vector<result_file>& results, const std::vector<std::string>& raw_targets) {
  const auto targets = normalize_targets(raw_targets);

  emitted out;
  std::vector<entry> entries;
  std::set<std::string> provenance_lines;
  for (const auto& target : targets) {
    const int cc = compile::find_target(target)->cc;
    const auto chosen = results_for_target(results, "softmax", target);
    std::size_t count = 0;
    const bool tuned = chosen.tuned;
    for (const auto* f : chosen.files) {
      // Compiled and fit there, and the family runs there (cluster_row compiles to a trap below
      // sm_90: its build succeeds but it is not legal).
      // A custom kernel (the sweep file's own source, tuner/ops/custom_softmax.hpp) is not part of
      // the library: it never ships.
      const auto legal = [&](const result_trial& t) {
        if (t.family == ops::custom_family) return false;
        return legal_on(*f, t.instance, target) && ks::min_sm(config_of(t).fam) <= cc;
      };
      for (const auto& [problem, t] : best_per_problem(*f, legal)) {
        entry e;
        e.arch = cc;
        e.gpu = f->gpu;
        e.config = config_of(*t);
        e.type = e.config.type;
        e.rows = t->dims.at("rows");
        e.cols = t->dims.at("cols");
        e.source = tuned ? "tuned" : "nearest_arch";
        e.median_us = t->median_us;
        e.provenance = run_provenance(*f, t->run);
        provenance_lines.insert(fmt::format("{} (measured on sm_{})", e.provenance, f->cc));
      out.cited.insert({f, t->run});
      out.chosen.emplace_back(f, t);
        entries.push_back(std::move(e));
        ++count;
      }
    }
    for (const auto& c : softmax_default_configs()) {
      entry e;
      e.arch = cc;
      e.config = c;
      e.type = c.type;
      e.source = "fallback";
      entries.push_back(std::move(e));
    }
    out.report.push_back(target_report(target, count, tuned, softmax_default_configs().size()));
  }

  // Kernels: each distinct instance once, sorted by name.
  std::map<std::string, ks::softmax_config> kernels_by_name;
  for (const auto& e : entries) kernels_by_name.emplace(ks::instance_name(e.config), e.config);
  const auto kernel_index = kernel_indices(kernels_by_name);

  const std::string banner = emit_banner(targets, provenance_lines);

  std::string& h = out.header;
  h += banner;
  h += "//\n// Dispatch rule: an exact (arch, dtype, rows, cols) entry measured on the running GPU wins,\n"
       "// then one measured on another GPU of the same architecture; an untuned shape takes the\n"
       "// nearest tuned shape in log space (|log rows ratio| + |log cols ratio|) whose configuration\n"
       "// can run it; if none can, the first default (in table order) that can.\n"
       "#pragma once\n\n#include \"cuop/detail/softmax_table.hpp\"\n\n"
       "namespace cuop::generated {\n\n"
       "inline constexpr detail::softmax_entry softmax_table[] = {\n";
  for (const auto& e : entries) {
    const auto name = ks::instance_name(e.config);
    h += fmt::format(
        "    // {}{}\n    {{{}, {}, dtype::{}, {}, {}, {},\n     {}, detail::entry_source::{}, {:.4g}, {}}},\n",
        e.source == "fallback" ? "default" : fmt::format("{} {}x{}", e.source, e.rows, e.cols),
        e.provenance.empty() ? "" : " <- " + e.provenance, e.arch, cxx_string_literal(e.gpu), name_of(e.type), e.rows,
        e.cols, cxx_config(e.config), kernel_index.at(name), e.source, e.median_us, cxx_string_literal(name));
  }
  std::vector<unit_kernel> kernels;
  for (const auto& [name, c] : kernels_by_name)
    kernels.push_back({name, ops::softmax_entry_includes(c), ops::softmax_entry_definition(c)});
  finish_files("softmax", banner, entries.size(), kernels, h, out.instantiation);
  return out;
}

}  // namespace cuop::emit
