// The one emitter of every op's dispatch files: for each target, the models of the results chosen
// for it (model_build.hpp), a table entry for each candidate the models name and each of the
// baseline's defaults, then the header (banner, the op's preamble, the model arrays, the table)
// and the instantiation unit of the chosen kernels (finish_files). An op gives its parts: what an
// entry holds and how it is written, and which of its configurations are kernels to ship.
// Deterministic: the same results and targets give byte-identical files.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tuner/catalog/op_desc.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/emit/arch_map.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/emit/model_build.hpp"

namespace cuop::emit {

// `traits` with the features and group of each trial from the op's description.
model_traits traits_with_desc(model_traits traits, const catalog::op_desc& desc, int feature_count);

// Entry: the op's table entry; it has `int arch` and `std::string provenance` (set by entry_of).
// Config: the configuration of one of the op's kernels.
template <class Entry, class Config>
struct dispatch_parts {
  const catalog::op_desc* desc = nullptr;  // its features and groups: the dispatch model's view of a shape
  std::string stem;                        // of its arrays and files ("conv": conv_model, conv_table, conv_kernels)
  int feature_count = 0;
  // After the banner: the dispatch rule's comment, `#pragma once` and the includes.
  std::string preamble;
  // Which trial is the baseline's, and which may ship on the target (features and groups: desc's).
  std::function<model_traits(const std::string& target, int cc, bool tuned)> traits;
  std::function<std::string(const built_model&)> group_fields;  // emitted_model::group_fields
  std::function<Entry(const built_model&, const results::result_trial&, int cc)> entry_of;
  std::function<std::vector<Entry>(int cc)> defaults;  // the baseline's entries on an architecture
  std::string defaults_noun;                           // "cuDNN heuristic defaults"
  // The entry's kernel (its instance name and configuration), or false for a library's entry.
  std::function<bool(const Entry&, std::string& name, Config& config)> kernel_of;
  std::function<unit_kernel(const std::string& name, const Config&)> unit_kernel_of;
  // Whether the kernel can run where a table of compute capability `cc` serves (null: wherever a
  // table names it). Where it cannot, its body is not compiled: the dispatch never launches it
  // there (the softmax default rule's entries on sm_75, whose families need sm_80).
  std::function<bool(const Config&, int cc)> runs_on;
  // One table row (with its comment line), given the index of its kernel (-1: none).
  std::function<std::string(const Entry&, int kernel_index)> row;
};

template <class Entry, class Config>
emitted emit_dispatch(const dispatch_parts<Entry, Config>& op, const std::vector<results::result_file>& results,
                      const std::vector<std::string>& raw_targets) {
  const auto archs = serve_all(raw_targets);
  emitted out;
  std::vector<Entry> entries;
  std::map<std::pair<int, std::string>, int> entry_index;  // (arch, instance)
  std::vector<std::vector<built_model>> built(archs.size());
  std::map<int, int> table_ccs;  // of each architecture's table
  std::vector<emitted_model> models;
  std::set<std::string> provenance_lines;
  for (std::size_t ai = 0; ai < archs.size(); ++ai) {
    // The table's target decides what ships; the entries carry the architecture they serve.
    const auto& arch = archs[ai];
    const int table_cc = compile::find_target(arch.table)->cc;
    table_ccs[arch.cc] = table_cc;
    const auto chosen = results_for_target(results, op.desc->name, arch.table);
    built[ai] = build_models(
        chosen, traits_with_desc(op.traits(arch.table, table_cc, chosen.tuned), *op.desc, op.feature_count));
    for (const auto& m : built[ai]) {
      emitted_model em{arch.cc, &m, op.group_fields(m), {}};
      for (const auto* t : m.fit.examples) {
        const auto [it, added] = entry_index.emplace(std::pair{arch.cc, t->instance}, static_cast<int>(entries.size()));
        if (added) {
          entries.push_back(op.entry_of(m, *t, table_cc));
          entries.back().arch = arch.cc;
          provenance_lines.insert(fmt::format("{} (measured on sm_{})", entries.back().provenance, m.file->cc));
          out.cited.insert({m.file, t->run});
          out.chosen.emplace_back(m.file, t);
        }
        em.columns.push_back(it->second);
      }
      models.push_back(std::move(em));
    }
    auto defaults = op.defaults(table_cc);
    out.report.push_back(
        model_report(fmt::format("{} {} ({} table)", op.desc->name, arch.name, arch.table), built[ai]) +
        fmt::format("; {} {}", defaults.size(), op.defaults_noun));
    for (auto& e : defaults) {
      e.arch = arch.cc;
      entries.push_back(std::move(e));
    }
  }

  std::map<std::string, Config> kernels_by_name;  // each distinct kernel once, sorted by name
  std::map<std::string, std::set<int>> archs_by_name;
  std::string name;
  Config config{};
  for (const auto& e : entries)
    if (op.kernel_of(e, name, config)) {
      kernels_by_name.emplace(name, config);
      auto& kernel_archs = archs_by_name[name];
      if (!op.runs_on || op.runs_on(config, table_ccs.at(e.arch))) kernel_archs.insert(e.arch);
    }
  const auto kernel_index = kernel_indices(kernels_by_name);

  const std::string banner = emit_banner(archs, provenance_lines);
  std::string& h = out.header;
  h += banner;
  h += op.preamble;
  h += "\nnamespace cuop::generated {\n\n";
  h += arch_specific_function(op.stem, archs);
  h += model_arrays(op.stem, op.stem + "_model", op.feature_count, models);
  h += fmt::format("\ninline constexpr detail::{0}_entry {0}_table[] = {{\n", op.stem);
  for (const auto& e : entries) h += op.row(e, op.kernel_of(e, name, config) ? kernel_index.at(name) : -1);
  std::vector<unit_kernel> kernels;
  std::set<int> every_arch;
  for (const auto& a : archs) every_arch.insert(a.cc);
  for (const auto& [kernel_name, c] : kernels_by_name) {
    kernels.push_back(op.unit_kernel_of(kernel_name, c));
    if (archs_by_name[kernel_name] != every_arch) {
      kernels.back().archs = archs_by_name[kernel_name];
      kernels.back().restricted = true;
    }
  }
  finish_files(op.stem, banner, entries.size(), kernels, h, out.instantiation, out.kernel_units);
  return out;
}

}  // namespace cuop::emit
