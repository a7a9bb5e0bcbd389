// Builds a SQLite database from results files at test time, so database fixtures are reviewable
// text (tests/data/compare/) and always have the current schema.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/results/results_file.hpp"
#include "tuner/store/store.hpp"

namespace cuop::test {

// Each file's runs become runs (the file's GPU and environment), its trials trials with their
// raw samples. `results` is a results file or a folder of them.
inline void database_from_results(const std::string& results, const std::string& db_path) {
  auto db = store::database::open(db_path, store::open_mode::read_write);
  const auto files = std::filesystem::is_directory(results)
                         ? results::read_results(results)
                         : std::vector<results::result_file>{results::read_results_file(results)};
  for (const auto& f : files) {
    std::map<std::int64_t, std::pair<std::int64_t, std::string>> run_of;  // file id -> (id, env key)
    for (const auto& r : f.runs) {
      store::run_info run;
      run.op = f.op;
      run.mode = "measure";
      run.state = "finished";
      run.started_at = r.started_at;
      run.spec_file = r.spec_file;
      run.env.gpu_name = f.gpu;
      run.env.gpu_uuid = "GPU-" + r.env_key;
      run.env.cc = f.cc;
      run.env.sm_count = f.sm_count;
      run.env.driver = f.driver;
      run.env.cuda_runtime = f.cuda_runtime;
      run.env.source_hash = f.source_hash;
      run.env.git_rev = r.git_rev;
      run_of[r.id] = {db->begin_run(run), run.env.key()};
    }
    for (const auto& t : f.trials) {
      store::trial_record x;
      std::tie(x.run_id, x.env_key) = run_of.at(t.run);
      x.problem = {t.problem, f.op, t.dtype, nlohmann::json(t.dims).dump(), 0};
      x.config = {t.instance, f.op, t.family, t.dtype, nlohmann::json(t.params).dump()};
      x.status = t.status;
      x.median_us = t.median_us;
      x.min_us = t.min_us;
      x.q1_us = t.q1_us;
      x.q3_us = t.q3_us;
      x.ci_lo_us = t.ci_lo_us;
      x.ci_hi_us = t.ci_hi_us;
      x.samples = t.samples;
      x.sample_us = t.samples_us;
      x.created_at = "2026-12-01T00:00:00Z";
      db->put_trial(x);
    }
  }
}

}  // namespace cuop::test
