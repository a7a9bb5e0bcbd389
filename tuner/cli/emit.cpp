// cuop-tune emit: the dispatch header and instantiation unit from committed results (or a db).
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "tuner/catalog/catalog.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/cli/validators.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"
#include "tuner/emit/arch_map.hpp"
#include "tuner/ops/family_sources.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/results/freshness.hpp"

namespace cuop::cli {

namespace {

struct emit_options {
  std::string results_dir = "results";
  std::string out_dir = "generated";
  std::string targets = "80,90a,100a";
  bool quiet = false;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, s.find(';') != std::string::npos ? ';' : ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// --targets, checked on the command line (a usage error, exit 2) before anything is read: each
// item names a CUDA architecture as CMake does ("86", "sm_90a", "90a-real"), one per compute
// capability (emit::serve_all).
std::string check_targets(const std::string& text) {
  const auto items = split_list(text);
  if (items.empty()) return "expected target architectures such as 80,90a,100a, got " + core::quoted(text);
  try {
    emit::serve_all(items);
  } catch (const error& e) {
    return e.what();
  }
  return {};
}

// Entries measured on kernel sources other than today's (docs/cli.md, "Freshness"): listed in the
// report; one warning line under --quiet (the build's emit), which CI's validate turns into a
// failure unless results/stale.txt acknowledges them.
template <typename Outputs>
void report_stale(const Outputs& outputs, bool quiet) {
  std::size_t stale = 0;
  for (const auto& [op, out] : outputs) {
    // Each trial once, however many targets' tables it entered.
    std::map<const results::result_file*, std::set<const results::result_trial*>> chosen;
    for (const auto& [f, t] : out.chosen) chosen[f].insert(t);
    std::map<const results::result_file*, std::vector<const results::result_trial*>> by_file;
    for (const auto& [f, trials] : chosen) by_file[f].assign(trials.begin(), trials.end());
    for (const auto& [f, trials] : by_file) {
      const auto* desc = catalog::find_op(f->op);
      if (!desc) continue;
      for (const auto& g : results::stale_groups(*f, ops::family_source_hashes(*desc), &trials)) {
        stale += g.trials;
        if (!quiet) fmt::print("stale: {}\n", results::describe(f->path, g));
      }
    }
  }
  if (stale && quiet)
    fmt::print(stderr,
               "cuop-tune: warning: {} dispatch entries were measured on other kernel sources (emit without "
               "--quiet lists them)\n",
               stale);
}

int run_emit(const emit_options& o) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(o.results_dir)) throw error(fmt::format("{}: results directory not found", o.results_dir));
  const auto results = results::read_results(o.results_dir);
  const auto targets = split_list(o.targets);
  // Always, --quiet too: the build log says which table serves which architecture.
  for (const auto& a : emit::serve_all(targets)) fmt::print("cuop-tune emit: {}\n", emit::describe(a));
  struct op_output {
    std::string op;
    emit::emitted files;
  };
  std::vector<op_output> outputs;
  for (const ops::op* op : ops::all_ops())
    outputs.push_back({std::string(op->emit_stem()), op->emit(results, targets)});
  // Each file is written to a temporary first: an interrupted emit leaves the old file intact,
  // and a header and unit from different emits refuse to compile together (emit id).
  const auto header_of = [&](const std::string& op) {
    return (fs::path(o.out_dir) / "cuop" / "generated" / (op + "_dispatch.hpp")).string();
  };
  const auto unit_of = [&](const std::string& op) { return (fs::path(o.out_dir) / (op + "_instances.cu")).string(); };
  const auto kernel_unit_of = [&](const std::string& op, int i) {
    return (fs::path(o.out_dir) / fmt::format("{}_kernels_{}.cu", op, i)).string();
  };
  // Every path checked before any file is replaced: a folder in the way of the last file must not
  // leave the first ones from this emit and the rest from the last.
  // Where the entries were measured, with the runs' free text (spec files, times): data beside
  // the code, never in it (docs/cli.md, "Results files are untrusted").
  const auto provenance = (fs::path(o.out_dir) / "dispatch_provenance.json").string();
  std::set<emit::cited_run> cited;
  for (const auto& [op, out] : outputs) {
    results::require_writable_file(header_of(op));
    results::require_writable_file(unit_of(op));
    for (int i = 0; i < emit::kernel_unit_count; ++i) results::require_writable_file(kernel_unit_of(op, i));
    cited.insert(out.cited.begin(), out.cited.end());
  }
  results::require_writable_file(provenance);
  for (const auto& [op, out] : outputs) {
    const auto header = header_of(op);
    const auto unit = unit_of(op);
    const bool h = results::write_if_changed(header, out.header);
    for (int i = 0; i < emit::kernel_unit_count; ++i)
      results::write_if_changed(kernel_unit_of(op, i), out.kernel_units[static_cast<std::size_t>(i)]);
    const bool u = results::write_if_changed(unit, out.instantiation);
    if (!o.quiet) {
      for (const auto& line : out.report) fmt::print("{}\n", line);
      fmt::print("{} {}\n{} {}\n", header, h ? "written" : "unchanged", unit, u ? "written" : "unchanged");
    }
  }
  report_stale(outputs, o.quiet);
  const bool p = results::write_if_changed(
      provenance, emit::provenance_json(cited).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!o.quiet) fmt::print("{} {}\n", provenance, p ? "written" : "unchanged");
  return 0;
}

}  // namespace

void add_emit(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("emit", "Write the dispatch header and instantiation unit");
  auto o = std::make_shared<emit_options>();
  cmd->add_option("--results", o->results_dir, "Folder of exported results (default: results)")
      ->check(non_empty_path());
  cmd->add_option("--out", o->out_dir, "Output folder (default: generated)")->check(non_empty_path());
  cmd->add_option("--targets", o->targets, "Target architectures, e.g. 80,90a,100a")
      ->check(CLI::Validator([](std::string& text) { return check_targets(text); }, ""));
  cmd->add_flag("-q,--quiet", o->quiet, "Print only which table serves each architecture");
  cmd->callback([&run, o] { run = [o] { return run_emit(*o); }; });
}

}  // namespace cuop::cli
