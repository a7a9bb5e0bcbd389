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
#include "tuner/emit/softmax_defaults.hpp"
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

// Legal on `target`: it compiled and fit there (compile validation), or it was measured there.
bool legal_on(const result_file& f, const std::string& instance, const std::string& target) {
  for (const auto& b : f.builds)
    if (b.instance == instance && b.target == target) return b.status == "ok";
  return false;
}

// The fastest ok trial per problem of one results file, keeping only configurations legal on
// `target`. Ties on the median break on the instance name, for determinism.
std::map<std::string, const result_trial*> best_per_problem(const result_file& f,
                                                            const std::string& target) {
  std::map<std::string, const result_trial*> best;
  for (const auto& t : f.trials) {
    if (t.status != "ok" || !legal_on(f, t.instance, target)) continue;
    auto& b = best[t.problem];
    if (!b || t.median_us < b->median_us ||
        (t.median_us == b->median_us && t.instance < b->instance))
      b = &t;
  }
  return best;
}

std::string run_provenance(const result_file& f, std::int64_t run) {
  for (const auto& r : f.runs)
    if (r.id == run) return fmt::format("run {} of {} ({})", r.id, r.spec_file, r.started_at);
  return fmt::format("run {}", run);
}

std::string cxx_config(const ks::softmax_config& c) {
  return fmt::format(
      "{{kernels::softmax::family::{}, dtype::{}, {}, {}, {}, {}, {}}}", ks::name_of(c.fam),
      name_of(c.type), c.vec, c.threads_per_row, c.rows_per_block, c.block_threads, c.chunks);
}

}  // namespace

std::string normalize_target(const std::string& raw) {
  std::string t = raw;
  if (const auto dash = t.find('-'); dash != std::string::npos) t = t.substr(0, dash);
  if (t.rfind("sm_", 0) != 0) t = "sm_" + t;
  if (!compile::find_target(t))
    throw error(fmt::format("unknown target \"{}\"{}", raw, suggest_suffix(raw, compile::target_names())));
  return t;
}

emitted emit_softmax(const std::vector<result_file>& results, const std::vector<std::string>& raw_targets) {
  std::vector<std::string> targets;
  for (const auto& t : raw_targets) targets.push_back(normalize_target(t));
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());

  std::vector<const result_file*> measured;
  for (const auto& f : results)
    if (f.op == "softmax" && !f.gpu.empty()) measured.push_back(&f);

  emitted out;
  std::vector<entry> entries;
  std::set<std::string> provenance_lines;
  for (const auto& target : targets) {
    const int cc = compile::find_target(target)->cc;
    // Link 1 and 2 of the chain: GPUs of this architecture (the dispatcher prefers the same GPU).
    std::vector<const result_file*> same_arch;
    for (const auto* f : measured)
      if (f->cc == cc) same_arch.push_back(f);
    // Link 3: the nearest measured architecture (ties: the older, more conservative one).
    std::vector<const result_file*> nearest;
    if (same_arch.empty() && !measured.empty()) {
      int best_cc = -1;
      for (const auto* f : measured)
        if (best_cc < 0 || std::abs(f->cc - cc) < std::abs(best_cc - cc) ||
            (std::abs(f->cc - cc) == std::abs(best_cc - cc) && f->cc < best_cc))
          best_cc = f->cc;
      for (const auto* f : measured)
        if (f->cc == best_cc) nearest.push_back(f);
    }
    const bool tuned = !same_arch.empty();
    std::size_t count = 0;
    for (const auto* f : tuned ? same_arch : nearest) {
      for (const auto& [problem, t] : best_per_problem(*f, target)) {
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
        provenance_lines.insert(fmt::format("{} on {} (sm_{}): {}", f->path, f->gpu, f->cc, e.provenance));
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
    out.report.push_back(fmt::format("{}: {} {} entries, {} defaults", target, count,
                                     tuned ? "tuned" : (count ? "nearest-arch" : "no measured"),
                                     softmax_default_configs().size()));
  }

  // Kernels: each distinct instance once, sorted by name.
  std::map<std::string, ks::softmax_config> kernels_by_name;
  for (const auto& e : entries) kernels_by_name.emplace(ks::instance_name(e.config), e.config);
  std::map<std::string, int> kernel_index;
  for (const auto& [name, c] : kernels_by_name) kernel_index.emplace(name, static_cast<int>(kernel_index.size()));

  std::string provenance;
  for (const auto& line : provenance_lines) provenance += "//   " + line + "\n";
  if (provenance.empty()) provenance = "//   (no measured results: every entry is a default)\n";
  const std::string banner = fmt::format(
      "// Generated by cuop-tune emit; do not edit. Targets: {}.\n// Measured results:\n{}",
      fmt::join(targets, ", "), provenance);

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
        "    // {}{}\n    {{{}, \"{}\", dtype::{}, {}, {}, {},\n     {}, detail::entry_source::{}, {:.4g}, \"{}\"}},\n",
        e.source == "fallback" ? "default" : fmt::format("{} {}x{}", e.source, e.rows, e.cols),
        e.provenance.empty() ? "" : " <- " + e.provenance, e.arch, e.gpu, name_of(e.type), e.rows,
        e.cols, cxx_config(e.config), kernel_index.at(name), e.source, e.median_us, name);
  }
  // Both files carry the same emit id: a header and a unit from different emits (an emit
  // interrupted between its two renames) fail to compile instead of dispatching wrong kernels.
  std::string kernel_list;
  for (const auto& [name, c] : kernels_by_name) kernel_list += name + "\n";
  const std::string emit_id = compile::hash_hex(h + kernel_list);
  h += fmt::format(
      "}};\n\ninline constexpr int softmax_table_size = {};\ninline constexpr int softmax_kernel_count = {};\n"
      "inline constexpr unsigned long long softmax_emit_id = 0x{}ull;\n\n}}  // namespace cuop::generated\n",
      entries.size(), kernel_index.size(), emit_id);

  std::string& u = out.instantiation;
  u += banner;
  u += "// The chosen kernels, from the same source text the tuner compiled with NVRTC.\n";
  std::set<std::string> includes;
  for (const auto& [name, c] : kernels_by_name)
    for (const auto& inc : ops::softmax_entry_includes(c)) includes.insert(inc);
  for (const auto& inc : includes) u += fmt::format("#include <{}>\n", inc);
  u += "\n";
  for (const auto& [name, c] : kernels_by_name) u += ops::softmax_entry_definition(c) + "\n";
  u += fmt::format(
      "#include \"cuop/generated/softmax_dispatch.hpp\"\n\n"
      "static_assert(cuop::generated::softmax_emit_id == 0x{}ull,\n"
      "              \"softmax_dispatch.hpp and softmax_instances.cu come from different emits\");\n\n",
      emit_id);
  u += "namespace cuop::generated {\n\nextern const void* const softmax_kernels[] = {\n";
  for (const auto& [name, c] : kernels_by_name) u += fmt::format("    reinterpret_cast<const void*>(&{}),\n", name);
  u += "};\n\n}  // namespace cuop::generated\n";
  return out;
}

}  // namespace cuop::emit
