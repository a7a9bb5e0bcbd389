#include "tuner/results/freshness.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/text.hpp"

namespace cuop::results {

std::vector<stale_group> stale_groups(const result_file& f, const std::map<std::string, std::string>& current,
                                      const std::vector<const result_trial*>* only) {
  std::map<std::int64_t, const result_run*> runs;
  for (const auto& r : f.runs) runs[r.id] = &r;
  std::map<std::pair<std::int64_t, std::string>, stale_group> groups;
  const auto count = [&](const result_trial& t) {
    const auto now = current.find(t.family);
    if (now == current.end()) return;  // a library back end, or a custom kernel: no sources of ours
    const auto run = runs.find(t.run);
    std::string measured;
    if (run != runs.end())
      if (const auto h = run->second->family_hashes.find(t.family); h != run->second->family_hashes.end())
        measured = h->second;
    if (measured == now->second) return;
    auto& g = groups[{t.run, t.family}];
    g = {t.family, t.run, measured, now->second, g.trials + 1};
  };
  if (only)
    for (const auto* t : *only) count(*t);
  else
    for (const auto& t : f.trials) count(t);
  std::vector<stale_group> out;
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  return out;
}

std::vector<acknowledgement> read_acknowledgements(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  const auto text = core::read_regular_file(path, core::max_sweep_file_bytes, "acknowledgements file");
  std::vector<acknowledgement> out;
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    acknowledgement a;
    a.line = n;
    words >> a.op >> a.family >> a.measured >> a.current;
    std::getline(words >> std::ws, a.reason);
    if (a.reason.empty())
      throw error(fmt::format("{}:{}: expected OP FAMILY MEASURED CURRENT REASON (a hash \"-\" when none was recorded)",
                              core::printable(path), n));
    if (a.measured == "-") a.measured.clear();
    out.push_back(std::move(a));
  }
  return out;
}

std::string describe(const std::string& path, const stale_group& g) {
  return fmt::format("{}: {} trial{} of family \"{}\" (run {}) {} measured on kernel sources {} (now {})", path,
                     g.trials, g.trials == 1 ? "" : "s", g.family, g.run, g.trials == 1 ? "was" : "were",
                     g.measured.empty() ? "that were not recorded" : g.measured, g.current);
}

}  // namespace cuop::results
