// cuop-tune emit: the dispatch header and instantiation unit from committed results (or a db).
#include <fmt/format.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "tuner/cli/commands.hpp"
#include "tuner/core/error.hpp"
#include "tuner/emit/conv_emit.hpp"
#include "tuner/emit/gemm_emit.hpp"
#include "tuner/emit/softmax_emit.hpp"

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

int run_emit(const emit_options& o) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(o.results_dir))
    throw error(fmt::format("{}: results directory not found", o.results_dir));
  const auto results = emit::read_results(o.results_dir);
  const auto targets = split_list(o.targets);
  if (targets.empty()) throw usage_error("--targets is empty");
  struct op_output {
    std::string op;
    emit::emitted files;
  };
  const op_output outputs[] = {{"softmax", emit::emit_softmax(results, targets)},
                               {"gemm", emit::emit_gemm(results, targets)},
                               {"conv", emit::emit_conv(results, targets)}};
  // Each file is written to a temporary first: an interrupted emit leaves the old file intact,
  // and a header and unit from different emits refuse to compile together (emit id).
  const auto header_of = [&](const std::string& op) {
    return (fs::path(o.out_dir) / "cuop" / "generated" / (op + "_dispatch.hpp")).string();
  };
  const auto unit_of = [&](const std::string& op) { return (fs::path(o.out_dir) / (op + "_instances.cu")).string(); };
  // Every path checked before any file is replaced: a folder in the way of the last file must not
  // leave the first ones from this emit and the rest from the last.
  // Where the entries were measured, with the runs' free text (spec files, times): data beside
  // the code, never in it (docs/cli.md, "Results files are untrusted").
  const auto provenance = (fs::path(o.out_dir) / "dispatch_provenance.json").string();
  std::set<emit::cited_run> cited;
  for (const auto& [op, out] : outputs) {
    emit::require_writable_file(header_of(op));
    emit::require_writable_file(unit_of(op));
    cited.insert(out.cited.begin(), out.cited.end());
  }
  emit::require_writable_file(provenance);
  for (const auto& [op, out] : outputs) {
    const auto header = header_of(op);
    const auto unit = unit_of(op);
    const bool h = emit::write_if_changed(header, out.header);
    const bool u = emit::write_if_changed(unit, out.instantiation);
    if (!o.quiet) {
      for (const auto& line : out.report) fmt::print("{}\n", line);
      fmt::print("{} {}\n{} {}\n", header, h ? "written" : "unchanged", unit, u ? "written" : "unchanged");
    }
  }
  const bool p = emit::write_if_changed(
      provenance, emit::provenance_json(cited).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!o.quiet) fmt::print("{} {}\n", provenance, p ? "written" : "unchanged");
  return 0;
}

}  // namespace

void add_emit(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("emit", "Write the dispatch header and instantiation unit");
  auto o = std::make_shared<emit_options>();
  cmd->add_option("--results", o->results_dir, "Folder of exported results (default: results)");
  cmd->add_option("--out", o->out_dir, "Output folder (default: generated)");
  cmd->add_option("--targets", o->targets, "Target architectures, e.g. 80,90a,100a");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing on success");
  cmd->callback([&run, o] { run = [o] { return run_emit(*o); }; });
}

}  // namespace cuop::cli
