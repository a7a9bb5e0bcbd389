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

result_file update_results(const result_file& old, result_file fresh) {
  require_same_setup(old, fresh);
  std::set<std::string> replaced;
  for (const auto& t : fresh.trials) replaced.insert(t.problem);

  // Old runs still referenced keep their ids; fresh ones follow them.
  std::set<std::int64_t> kept_runs;
  for (const auto& t : old.trials)
    if (!replaced.contains(t.problem)) kept_runs.insert(t.run);
  const std::int64_t offset = kept_runs.empty() ? 0 : *kept_runs.rbegin();
  for (auto& t : fresh.trials) t.run += offset;

  result_file out = fresh;
  out.path = old.path;
  out.trials.clear();
  std::set<std::string> placed;
  for (const auto& t : old.trials) {
    if (!replaced.contains(t.problem)) {
      out.trials.push_back(t);
      continue;
    }
    if (!placed.insert(t.problem).second) continue;
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

}  // namespace cuop::results
