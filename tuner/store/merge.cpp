#include "tuner/store/merge.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "tuner/core/error.hpp"

namespace cuop::store {

namespace {

namespace fs = std::filesystem;

using run_identity =
    std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, std::string, std::string>;
using trial_key = std::tuple<std::string, std::string, std::string>;  // environment, problem, instance

run_identity identity_of(const run_info& r) {
  return {r.started_at, r.env.key(), r.spec_file, r.spec_hash, r.env.hostname, r.op, r.mode, r.shard};
}

struct held_trial {
  std::string created_at;
  bool valid = true;  // its run is not "invalid"
};

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

std::vector<std::unique_ptr<database>> open_sources(const std::string& target_path,
                                                    const std::vector<std::string>& sources) {
  if (sources.empty()) throw error("merge: no source database given");
  std::vector<std::unique_ptr<database>> opened;
  for (const auto& path : sources) {
    if (same_file(path, target_path))
      throw error(fmt::format("{}: is the target database itself; merge it into another one", path));
    opened.push_back(database::open(path, open_mode::read_only));
  }
  return opened;
}

merge_report merge_opened(database& target, const std::vector<std::string>& sources,
                          const std::vector<std::unique_ptr<database>>& opened) {
  merge_report report;
  std::map<run_identity, std::int64_t> runs;
  std::map<std::int64_t, bool> run_valid;  // the target's runs
  for (const auto& r : target.runs()) {
    runs.emplace(identity_of(r), r.id);
    run_valid[r.id] = r.state != "invalid";
  }
  std::map<trial_key, held_trial> held;
  for (const auto& t : target.trials({})) {
    const auto v = run_valid.find(t.run_id);
    held[{t.env_key, t.problem.key, t.config.instance}] = {t.created_at, v == run_valid.end() || v->second};
  }

  for (std::size_t i = 0; i < sources.size(); ++i) {
    auto& source = *opened[i];
    std::map<std::int64_t, std::int64_t> run_map;  // source id -> target id
    std::map<std::int64_t, bool> source_valid;
    for (auto r : source.runs()) {
      source_valid[r.id] = r.state != "invalid";
      const auto id = identity_of(r);
      if (const auto it = runs.find(id); it != runs.end()) {
        run_map[r.id] = it->second;
        ++report.runs_already;
        continue;
      }
      if (r.provenance.empty()) r.provenance = fmt::format("{} run {}", sources[i], r.id);
      const auto new_id = target.copy_run(r);
      runs.emplace(id, new_id);
      run_map[r.id] = new_id;
      run_valid[new_id] = r.state != "invalid";
      ++report.runs_added;
    }
    for (const auto& c : source.configs()) {
      if (c.op.empty()) continue;  // a stub: its build's configuration was never described
      target.put_config(c);
      ++report.configs;
    }
    for (const auto& b : source.builds("")) {
      target.put_build(b);
      ++report.builds;
    }
    trial_filter all;
    all.with_samples = true;
    for (auto t : source.trials(all)) {
      const trial_key key{t.env_key, t.problem.key, t.config.instance};
      const auto v = source_valid.find(t.run_id);
      const bool valid = v == source_valid.end() || v->second;
      if (const auto it = held.find(key); it != held.end()) {
        const auto& mine = it->second;
        if (mine.created_at == t.created_at) {
          ++report.trials_identical;
          continue;
        }
        const bool newer = t.created_at > mine.created_at;  // ISO 8601 UTC: text order is time order
        if (!newer || (mine.valid && !valid)) {
          ++report.trials_kept;
          continue;
        }
        ++report.trials_replaced;
      } else {
        ++report.trials_added;
      }
      t.id = 0;
      t.run_id = t.run_id == 0 ? 0 : run_map.at(t.run_id);
      target.put_trial(t);
      held[key] = {t.created_at, valid};
    }
  }
  return report;
}

}  // namespace

merge_report merge_databases(database& target, const std::string& target_path,
                             const std::vector<std::string>& sources) {
  const auto opened = open_sources(target_path, sources);
  return merge_opened(target, sources, opened);
}

merge_report merge_databases(const std::string& target_path, const std::vector<std::string>& sources) {
  const auto opened = open_sources(target_path, sources);
  auto target = database::open(target_path, open_mode::read_write);
  return merge_opened(*target, sources, opened);
}

}  // namespace cuop::store
