#include "tuner/gate/result_set.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "tuner/catalog/catalog.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/results/current_trials.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/store/store.hpp"

namespace cuop::gate {

namespace {

namespace fs = std::filesystem;

bool gpu_matches(const std::string& wanted, const std::string& gpu) {
  return wanted.empty() || results::slug(wanted) == results::slug(gpu);  // "NVIDIA H200" or "nvidia-h200"
}

// Collects trials and their environments, one environment entry per distinct fingerprint.
class builder {
 public:
  builder(std::string source, std::string kind) {
    m_set.source = std::move(source);
    m_set.kind = std::move(kind);
  }

  int env(const measured_env& e) {
    const auto key = e.describe() + '\x1f' + e.env_key + '\x1f' + e.source_hash + '\x1f' + e.git_rev;
    const auto [it, added] = m_env_index.try_emplace(key, static_cast<int>(m_set.envs.size()));
    if (added) m_set.envs.push_back(e);
    return it->second;
  }
  void add(measured_trial t) {
    const auto& gpu = m_set.envs.at(static_cast<std::size_t>(t.env)).gpu;
    m_gpus.insert(gpu);
    m_problem_gpus[t.problem].insert(gpu);
    m_set.trials.push_back(std::move(t));
  }

  // Several GPU models may hold different problems (one measured LayerNorm, another softmax);
  // a problem measured on two of them needs --gpu to say which side is meant.
  result_set finish(const load_options& o) && {
    for (const auto& [problem, gpus] : m_problem_gpus)
      if (gpus.size() > 1)
        throw error(
            fmt::format("{}: holds results of {} GPU models ({}), problem {} on {} of them; choose one with "
                        "--gpu",
                        m_set.source, m_gpus.size(), fmt::join(m_gpus, ", "), problem, gpus.size()));
    if (m_set.trials.empty())
      throw error(fmt::format("{}: no verified results{}{}", m_set.source,
                              o.op.empty() ? "" : " of op \"" + o.op + "\"",
                              o.gpu.empty() ? "" : " on GPU \"" + o.gpu + "\""));
    auto& t = m_set.trials;
    std::sort(t.begin(), t.end(), [](const auto& a, const auto& b) {
      return std::tie(a.problem, a.instance) < std::tie(b.problem, b.instance);
    });
    for (std::size_t i = 1; i < t.size(); ++i)
      if (t[i].problem == t[i - 1].problem && t[i].instance == t[i - 1].instance)
        throw error(fmt::format("{}: \"{}\" on problem {} is there twice (two files of one op and GPU?)", m_set.source,
                                t[i].instance, t[i].problem));
    return std::move(m_set);
  }

 private:
  result_set m_set;
  std::map<std::string, int> m_env_index;
  std::set<std::string> m_gpus;
  std::map<std::string, std::set<std::string>> m_problem_gpus;
};

result_set load_database(const std::string& path, const load_options& o) {
  auto db = store::database::open(path, store::open_mode::read_only);
  builder b(path, "database");
  const auto ops = o.op.empty() ? catalog::op_names() : std::vector<std::string>{o.op};
  for (const auto& op : ops) {
    for (auto& [slug, current] : results::current_trials(*db, op, true)) {
      std::map<std::int64_t, const store::run_info*> run_of;
      for (const auto& r : current.runs) run_of[r.id] = &r;
      for (auto& t : current.trials) {
        const auto* run = run_of.at(t.run_id);  // current_trials keeps only trials of its runs
        if (t.status != "ok" || run->env.gpu_name.empty() || !gpu_matches(o.gpu, run->env.gpu_name)) continue;
        const auto& e = run->env;
        measured_trial m;
        m.problem = t.problem.key;
        m.op = t.problem.op;
        m.dtype = t.problem.dtype;
        m.instance = t.config.instance;
        m.dims = nlohmann::json::parse(t.problem.dims_json).get<std::map<std::string, long long>>();
        m.median_us = t.median_us;
        m.ci_lo_us = t.ci_lo_us;
        m.ci_hi_us = t.ci_hi_us;
        m.sample_count = t.samples;
        m.batch = t.batch;
        m.samples_us = std::move(t.sample_us);
        m.env =
            b.env({e.gpu_name, e.sm_count, e.driver, e.cuda_runtime, e.libraries, e.key(), e.source_hash, e.git_rev});
        b.add(std::move(m));
      }
    }
  }
  return std::move(b).finish(o);
}

result_set load_results_files(const std::string& path, const load_options& o) {
  const bool folder = fs::is_directory(path);
  builder b(path, folder ? "results files" : "results file");
  const auto files = results::read_results_path(path);
  for (const auto& f : files) {
    if (f.gpu.empty() || !gpu_matches(o.gpu, f.gpu) || (!o.op.empty() && f.op != o.op)) continue;
    // A file records its newest run's environment only; each run adds its own fingerprint.
    std::map<std::int64_t, const results::result_run*> run_of;
    for (const auto& r : f.runs) run_of[r.id] = &r;
    for (const auto& t : f.trials) {
      if (t.status != "ok") continue;
      const auto run = run_of.find(t.run);
      const auto* r = run == run_of.end() ? nullptr : run->second;
      measured_trial m;
      m.problem = t.problem;
      m.op = f.op;
      m.dtype = t.dtype;
      m.instance = t.instance;
      m.dims = t.dims;
      m.median_us = t.median_us;
      m.ci_lo_us = t.ci_lo_us;
      m.ci_hi_us = t.ci_hi_us;
      m.sample_count = t.samples;
      m.batch = t.batch;
      m.samples_us = t.samples_us;
      m.env = b.env(
          {f.gpu, f.sm_count, f.driver, f.cuda_runtime, "", r ? r->env_key : "", f.source_hash, r ? r->git_rev : ""});
      b.add(std::move(m));
    }
  }
  return std::move(b).finish(o);
}

}  // namespace

bool is_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::string_view(head, sizeof head) == std::string_view("SQLite format 3\0", 16);
}

std::string measured_env::describe() const {
  std::vector<std::string> parts;
  if (sm_count > 0) parts.push_back(fmt::format("{} SMs", sm_count));
  if (!driver.empty()) parts.push_back("driver " + driver);
  if (!cuda_runtime.empty()) parts.push_back("CUDA " + cuda_runtime);
  if (!libraries.empty()) parts.push_back(libraries);
  const std::string name = gpu.empty() ? "(no GPU)" : gpu;
  return parts.empty() ? name : fmt::format("{} ({})", name, fmt::join(parts, ", "));
}

bool same_measurement_env(const measured_env& a, const measured_env& b) {
  const auto agree = [](const std::string& x, const std::string& y) { return x.empty() || y.empty() || x == y; };
  return a.gpu == b.gpu && (a.sm_count == 0 || b.sm_count == 0 || a.sm_count == b.sm_count) &&
         agree(a.driver, b.driver) && agree(a.cuda_runtime, b.cuda_runtime) && agree(a.libraries, b.libraries);
}

std::map<std::string, const measured_trial*> fastest_per_problem(const result_set& set) {
  std::map<std::string, const measured_trial*> fastest;
  for (const auto& t : set.trials)
    if (auto& f = fastest[t.problem]; !f || t.median_us < f->median_us) f = &t;
  return fastest;
}

std::map<std::string, int> winner_launches(const result_set& set) {
  std::map<std::string, int> out;
  for (const auto& [problem, t] : fastest_per_problem(set)) out[problem] = std::max(1, t->batch);
  return out;
}

result_set load_result_set(const std::string& path, const load_options& options) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw error(path + ": no such file or folder");
  if (fs::is_directory(path, ec)) return load_results_files(path, options);
  // Looked at before a byte is read: a FIFO would block the header check, /dev/zero never end.
  if (const auto kind = core::non_regular_kind(path); !kind.empty())
    throw error(path + ": not a cuop-tune database nor a results file (" + kind + ")");
  if (fs::file_size(path, ec) == 0 && !ec)
    throw error(path + ": not a cuop-tune database nor a results file (an empty file)");
  if (is_sqlite_file(path)) return load_database(path, options);
  return load_results_files(path, options);
}

}  // namespace cuop::gate
