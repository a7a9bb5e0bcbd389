#include "tuner/cli/validate_results.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <map>
#include <set>

#include "tuner/catalog/catalog.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/ops/family_sources.hpp"
#include "tuner/results/freshness.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::cli {

namespace fs = std::filesystem;

bool is_results_path(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) || fs::path(path).extension() == ".json";
}

namespace {

// The family hashes of the kernel sources now, per op.
const std::map<std::string, std::string>& current_hashes(const std::string& op) {
  static std::map<std::string, std::map<std::string, std::string>> cache;
  auto it = cache.find(op);
  if (it == cache.end()) {
    const auto* desc = catalog::find_op(op);
    it = cache.emplace(op, desc ? ops::family_source_hashes(*desc) : std::map<std::string, std::string>{}).first;
  }
  return it->second;
}

}  // namespace

int validate_results(const std::string& path) {
  const bool folder = fs::is_directory(path);
  // A folder's files are checked for their schema and place; a single file only for its schema.
  const auto files = results::read_results_path(path);
  const auto root = folder ? fs::path(path) : fs::path(path).parent_path().parent_path();
  const auto ack_path = (root / "stale.txt").string();
  const auto acks = results::read_acknowledgements(ack_path);
  std::set<int> used;
  std::vector<std::string> problems;
  for (const auto& f : files) {
    const auto full = folder ? (fs::path(path) / f.path).string() : f.path;
    if (core::read_file(full).value_or("") != results::render_results(f))
      problems.push_back(fmt::format("{}: not in the form export writes (edited by hand? export it again)", full));
    std::size_t acknowledged = 0;
    for (const auto& g : results::stale_groups(f, current_hashes(f.op))) {
      bool ok = false;
      for (const auto& a : acks)
        if (a.op == f.op && a.family == g.family && a.measured == g.measured && a.current == g.current) {
          ok = true;
          used.insert(a.line);
        }
      if (ok) {
        ++acknowledged;
        continue;
      }
      problems.push_back(fmt::format(
          "{}: measure them again (cuop-tune sweep, then export --update) or acknowledge the change in {}: "
          "\"{} {} {} {} <why>\"",
          results::describe(full, g), ack_path, f.op, g.family, g.measured.empty() ? "-" : g.measured, g.current));
    }
    fmt::print("{}: ok ({} op, {} trials, {} builds){}\n", full, f.op, f.trials.size(), f.builds.size(),
               acknowledged ? fmt::format("; {} stale group{} acknowledged in {}", acknowledged,
                                          acknowledged == 1 ? "" : "s", ack_path)
                            : "");
  }
  for (const auto& a : acks)
    if (!used.contains(a.line) && folder)
      problems.push_back(
          fmt::format("{}:{}: acknowledges a change no results file has ({} {} {} -> {}): remove the line", ack_path,
                      a.line, a.op, a.family, a.measured.empty() ? "-" : a.measured, a.current));
  if (!problems.empty()) throw error(fmt::format("{}", fmt::join(problems, "\n")));
  return 0;
}

}  // namespace cuop::cli
