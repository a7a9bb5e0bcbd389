#include "tuner/results/results_update.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "tuner/core/error.hpp"

namespace cuop::results {

namespace {

void require_same_setup(const result_file& old, const result_file& fresh) {
  const auto differs = [&](const char* field, const auto& a, const auto& b) {
    if (a != b)
      throw error(
          fmt::format("{}: cannot update: its {} is {}, the database's {}; a results file records "
                      "one set-up for all its trials (export without --update to replace it)",
                      old.path, field, a, b));
  };
  differs("op", old.op, fresh.op);
  differs("GPU", old.gpu, fresh.gpu);
  differs("compute capability", old.cc, fresh.cc);
  differs("SM count", old.sm_count, fresh.sm_count);
  differs("driver", old.driver, fresh.driver);
  differs("CUDA runtime", old.cuda_runtime, fresh.cuda_runtime);
}

}  // namespace

namespace {

// The merge of the two: `replaced(t)` says whether an old trial gives way to the fresh ones.
template <typename Replaced>
result_file merged(const result_file& old, result_file fresh, Replaced&& replaced) {
  // Old runs still referenced keep their ids; fresh ones follow them.
  std::set<std::int64_t> kept_runs;
  for (const auto& t : old.trials)
    if (!replaced(t)) kept_runs.insert(t.run);
  const std::int64_t offset = kept_runs.empty() ? 0 : *kept_runs.rbegin();
  for (auto& t : fresh.trials) t.run += offset;

  result_file out = fresh;
  out.path = old.path;
  out.trials.clear();
  // A problem's fresh trials go after the last of its old ones (replaced or kept).
  std::map<std::string, std::size_t> last_old;
  for (std::size_t i = 0; i < old.trials.size(); ++i) last_old[old.trials[i].problem] = i;
  std::set<std::string> placed;
  for (std::size_t i = 0; i < old.trials.size(); ++i) {
    const auto& t = old.trials[i];
    if (!replaced(t)) out.trials.push_back(t);
    if (last_old[t.problem] != i) continue;
    placed.insert(t.problem);
    for (const auto& f : fresh.trials)
      if (f.problem == t.problem) out.trials.push_back(f);
  }
  for (const auto& f : fresh.trials)
    if (!placed.contains(f.problem)) out.trials.push_back(f);

  out.runs.clear();
  for (const auto& r : old.runs)
    if (kept_runs.contains(r.id)) out.runs.push_back(r);
  for (auto r : fresh.runs) {
    r.id += offset;
    out.runs.push_back(r);
  }

  std::map<std::pair<std::string, std::string>, result_build> builds;
  for (const auto& b : old.builds) builds[{b.instance, b.target}] = b;
  for (const auto& b : fresh.builds) builds[{b.instance, b.target}] = b;
  out.builds.clear();
  for (auto& [key, b] : builds) out.builds.push_back(std::move(b));
  return out;
}

}  // namespace

result_file update_results(const result_file& old, result_file fresh) {
  require_same_setup(old, fresh);
  std::set<std::string> problems;
  for (const auto& t : fresh.trials) problems.insert(t.problem);
  return merged(old, std::move(fresh), [&](const result_trial& t) { return problems.contains(t.problem); });
}

result_file add_results(const result_file& old, result_file fresh) {
  require_same_setup(old, fresh);
  std::set<std::pair<std::string, std::string>> measured;
  for (const auto& t : fresh.trials) measured.insert({t.problem, t.instance});
  return merged(old, std::move(fresh), [&](const result_trial& t) {
    return measured.contains({t.problem, t.instance});
  });
}

}  // namespace cuop::results
