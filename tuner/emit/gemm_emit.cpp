#include "tuner/emit/gemm_emit.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/ops/gemm_op.hpp"

namespace cuop::emit {

namespace kg = kernels::gemm;

namespace {

struct entry {
  int arch = 0;
  std::string gpu;
  dtype in = dtype::bf16, out = dtype::bf16;
  kg::b_layout b = kg::b_layout::col;
  long long m = 0, n = 0, k = 0;
  std::string kind;  // kernel, cublaslt, cublaslt_heuristic
  kg::gemm_config config;
  std::string lt_id;
  std::string instance;
  std::string source;  // tuned, nearest_arch, fallback
  double median_us = 0;
  std::string provenance;
};

bool is_library(const result_trial& t) { return t.family == ops::cublaslt_family; }

// "gemm_bf16_cublaslt_<id>" -> "<id>" ("heuristic" for the heuristic's choice).
std::string library_id(const result_trial& t) {
  const auto prefix = fmt::format("gemm_{}_cublaslt_", t.dtype);
  if (t.instance.rfind(prefix, 0) != 0)
    throw error(fmt::format("cuBLASLt instance \"{}\" does not start with \"{}\"", t.instance, prefix));
  return t.instance.substr(prefix.size());
}

kg::gemm_config config_of(const result_trial& t) {
  kg::gemm_config c;
  if (!kg::parse_family(t.family, c.fam)) throw error(fmt::format("unknown gemm family \"{}\"", t.family));
  c.in = *parse_dtype(t.dtype);
  c.out = c.in;
  c.b = kg::b_layout::col;
  for (const auto& [name, v] : t.params) kg::set_param(c, name, v);
  return c;
}

std::string cxx_config(const kg::gemm_config& c) {
  return fmt::format(
      "{{kernels::gemm::family::{}, dtype::{}, dtype::{}, kernels::gemm::b_layout::{}, {}, {}, {}, "
      "{}, {}, {}, {}, {}, {}, {}, {}, {}}}",
      kg::name_of(c.fam), name_of(c.in), name_of(c.out), kg::name_of(c.b), c.block_m, c.block_n,
      c.block_k, c.warp_m, c.warp_n, c.stages, c.group_m, c.threads, c.m_tile, c.k_chunk, c.split_k,
      c.pack);
}

std::string heuristic_instance(dtype in, dtype out, kg::b_layout b) {
  return fmt::format("gemm_{}_{}_{}_cublaslt_heuristic", name_of(in), name_of(out), kg::name_of(b));
}

}  // namespace

emitted emit_gemm(const std::vector<result_file>& results, const std::vector<std::string>& raw_targets) {
  const auto targets = normalize_targets(raw_targets);
  emitted out;
  std::vector<entry> entries;
  std::set<std::string> provenance_lines;
  for (const auto& target : targets) {
    const int cc = compile::find_target(target)->cc;
    const auto chosen = results_for_target(results, "gemm", target);
    std::size_t count = 0;
    const auto is_reference = [](const result_trial& t) { return is_library(t) && library_id(t) == "heuristic"; };
    for (const auto [f, t] : choose_for_target(chosen, target, is_library, is_reference)) {
      entry e;
      e.arch = cc;
      e.gpu = f->gpu;
      e.in = e.out = *parse_dtype(t->dtype);
      e.m = t->dims.at("m");
      e.n = t->dims.at("n");
      e.k = t->dims.at("k");
      e.source = chosen.tuned ? "tuned" : "nearest_arch";
      e.median_us = t->median_us;
      e.provenance = run_provenance(*f, t->run);
      if (!is_library(*t)) {
        e.kind = "kernel";
        e.config = config_of(*t);
        e.instance = kg::instance_name(e.config);
      } else if (const auto id = library_id(*t); id != "heuristic" && chosen.tuned) {
        e.kind = "cublaslt";
        e.lt_id = id;
        e.instance = t->instance;
      } else {  // the heuristic's choice, or a configuration measured on another architecture
        e.kind = "cublaslt_heuristic";
        e.instance = heuristic_instance(e.in, e.out, e.b);
      }
      provenance_lines.insert(fmt::format("{} (measured on sm_{})", e.provenance, f->cc));
      out.cited.insert({f, t->run});
      out.chosen.emplace_back(f, t);
      entries.push_back(std::move(e));
      ++count;
    }
    // Defaults: cuBLASLt's heuristic for every type and layout the API accepts.
    std::size_t defaults = 0;
    for (const dtype in : {dtype::f16, dtype::bf16})
      for (const dtype o : {in, dtype::f32})
        for (const kg::b_layout b : {kg::b_layout::col, kg::b_layout::row}) {
          entry e;
          e.arch = cc;
          e.in = in;
          e.out = o;
          e.b = b;
          e.kind = "cublaslt_heuristic";
          e.instance = heuristic_instance(in, o, b);
          e.source = "fallback";
          entries.push_back(std::move(e));
          ++defaults;
        }
    out.report.push_back(target_report("gemm " + target, count, chosen.tuned, defaults));
  }

  std::map<std::string, kg::gemm_config> kernels_by_name;
  for (const auto& e : entries)
    if (e.kind == "kernel") kernels_by_name.emplace(e.instance, e.config);
  const auto kernel_index = kernel_indices(kernels_by_name);

  const std::string banner = emit_banner(targets, provenance_lines);

  std::string& h = out.header;
  h += banner;
  h += "//\n// Dispatch rule: an exact (arch, types, layout, m, n, k) entry measured on the running GPU\n"
       "// wins, then one measured on another GPU of the same architecture; an untuned shape takes\n"
       "// the nearest tuned shape in log space (sum of |log ratio| of m, n and k) whose choice can\n"
       "// run it; otherwise, and for types or layouts never tuned, cuBLASLt's heuristic. A cuBLASLt\n"
       "// configuration the installed library rejects falls back to the heuristic, said once.\n"
       "#pragma once\n\n#include \"cuop/detail/gemm_table.hpp\"\n\n"
       "namespace cuop::generated {\n\n"
       "inline constexpr detail::gemm_entry gemm_table[] = {\n";
  for (const auto& e : entries) {
    h += fmt::format(
        "    // {}{}\n    {{{}, {}, dtype::{}, dtype::{}, kernels::gemm::b_layout::{}, {}, {}, {}, "
        "detail::gemm_kind::{},\n     {},\n     {}, {}, detail::entry_source::{}, {:.4g}, {}}},\n",
        e.source == "fallback" ? "default" : fmt::format("{} {}x{}x{}", e.source, e.m, e.n, e.k),
        e.provenance.empty() ? "" : " <- " + e.provenance, e.arch, cxx_string_literal(e.gpu), name_of(e.in),
        name_of(e.out), kg::name_of(e.b), e.m, e.n, e.k, e.kind,
        e.kind == "kernel" ? cxx_config(e.config) : "{}", cxx_string_literal(e.lt_id),
        e.kind == "kernel" ? kernel_index.at(e.instance) : -1, e.source, e.median_us, cxx_string_literal(e.instance));
  }
  std::vector<unit_kernel> kernels;
  for (const auto& [name, c] : kernels_by_name)
    kernels.push_back({name, ops::gemm_entry_includes(c), ops::gemm_entry_definition(c)});
  finish_files("gemm", banner, entries.size(), kernels, h, out.instantiation);
  return out;
}

}  // namespace cuop::emit
