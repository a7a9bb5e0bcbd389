#include "tuner/runner/sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "tuner/compile/compile.hpp"
#include "tuner/core/environment.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/measure/statistics.hpp"
#include "tuner/ops/softmax_op.hpp"
#include "tuner/ops/softmax_source.hpp"
#include "tuner/report/progress.hpp"
#include "tuner/runner/protocol.hpp"
#include "tuner/runner/worker_process.hpp"
#include "tuner/space/space.hpp"
#include "tuner/strategy/exhaustive.hpp"

namespace cuop::runner {

namespace fs = std::filesystem;
namespace ks = kernels::softmax;

namespace {

// Ctrl-C / SIGTERM: finish the trial in flight, mark the run interrupted, stop. A second signal
// kills at once (nothing is lost either way: every finished trial is already committed).
std::atomic<bool> g_stop_requested{false};

extern "C" void request_stop(int signal_number) {
  if (g_stop_requested.exchange(true)) {
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
  }
}

struct interrupted {};

void check_stop() {
  if (g_stop_requested.load()) throw interrupted{};
}

struct candidate_build {
  ks::softmax_config config;
  space::point point;
  std::map<std::string, compile::result> by_target;
};

std::string file_hash(const std::string& path) {
  return compile::hash_hex(core::read_file(path).value_or(""));
}

store::problem_record problem_record_of(const spec::sweep& s, const spec::problem& p) {
  store::problem_record r;
  r.key = p.key(s.op);
  r.op = s.op;
  r.dtype = p.dtype;
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& [k, v] : p.dims) dims[k] = v;
  r.dims_json = dims.dump();
  r.bytes = ops::softmax_bytes(p);
  return r;
}

store::config_record config_record_of(const spec::sweep& s, const candidate_build& b) {
  return {ks::instance_name(b.config), s.op, b.point.family, std::string(name_of(b.config.type)),
          ops::config_json(b.point).at("params").dump()};
}

// The sweep target that runs on a device of compute capability `cc`.
const compile::target* target_for(const spec::sweep& s, int cc) {
  for (const auto& name : s.targets)
    if (const auto* t = compile::find_target(name); t && t->cc == cc) return t;
  return nullptr;
}

std::string write_cubin(const std::string& cache_dir, const std::string& instance,
                        const compile::result& r) {
  const auto path = (fs::path(cache_dir) / "cubins" / fmt::format("{}.{}.cubin", instance, r.cubin_hash)).string();
  if (!fs::exists(path)) core::write_atomically(path, std::string_view(r.cubin.data(), r.cubin.size()));
  return path;
}

class sweep_run {
 public:
  sweep_run(const spec::sweep& s, const sweep_options& o, store::database& db,
            const store::environment& env, const device_info& dev, worker_process* worker)
      : m_spec(s), m_options(o), m_db(db), m_env(env), m_dev(dev), m_worker(worker) {}

  int execute();

 private:
  void enumerate();
  void compile_all();
  void measure_all(const compile::target& target);
  void record_rejections();
  void print_summary();
  store::trial_record blank_trial(std::size_t problem, const candidate_build& b) const;

  const spec::sweep& m_spec;
  const sweep_options& m_options;
  store::database& m_db;
  const store::environment& m_env;
  const device_info& m_dev;
  worker_process* m_worker;
  std::int64_t m_run_id = 0;
  std::vector<std::vector<space::verdict>> m_verdicts;  // per problem
  std::map<std::string, candidate_build> m_builds;     // by instance name
  std::map<std::string, std::pair<std::string, double>> m_best;  // problem -> instance, median
  int m_measured = 0, m_failed = 0, m_skipped = 0;
};

store::trial_record sweep_run::blank_trial(std::size_t problem, const candidate_build& b) const {
  store::trial_record t;
  t.run_id = m_run_id;
  t.env_key = m_env.key();
  t.problem = problem_record_of(m_spec, m_spec.problems[problem]);
  t.config = config_record_of(m_spec, b);
  t.device = m_dev.index;
  return t;
}

void sweep_run::enumerate() {
  for (const auto& p : m_spec.problems) {
    auto verdicts = space::enumerate(m_spec, p);
    for (const auto& v : verdicts) {
      if (!v.accepted) continue;
      auto config = ops::softmax_config_of(v.config, p.dtype);
      const auto name = ks::instance_name(config);
      if (!m_builds.contains(name)) m_builds.emplace(name, candidate_build{config, v.config, {}});
    }
    m_verdicts.push_back(std::move(verdicts));
  }
}

void sweep_run::compile_all() {
  std::vector<compile::request> requests;
  std::vector<std::pair<std::string, std::string>> keys;  // instance, target
  for (const auto& [name, b] : m_builds) {
    const auto source = ops::softmax_entry_source(b.config);
    for (const auto& target : m_spec.targets) {
      requests.push_back({source, name, target, ks::threads_per_block(b.config), 0});
      keys.emplace_back(name, target);
    }
  }
  report::progress bar(fmt::format("[{}] compile", m_spec.op), requests.size());
  compile::compiler cc(m_options.cache_dir, compile::default_include_dirs());
  // Compile in slices of a few per thread, so the display moves, every finished slice is stored
  // and an interruption is answered within seconds.
  const unsigned threads = m_options.jobs > 0 ? static_cast<unsigned>(m_options.jobs)
                                              : std::max(1u, std::thread::hardware_concurrency());
  const std::size_t slice = 4 * threads;
  std::map<std::string, std::pair<int, int>> per_target;  // ok, failed
  for (const auto& [name, b] : m_builds) m_db.put_config(config_record_of(m_spec, b));
  for (std::size_t i = 0; i < requests.size(); i += slice) {
    const auto end = std::min(requests.size(), i + slice);
    std::vector<compile::request> part(requests.begin() + static_cast<long>(i),
                                       requests.begin() + static_cast<long>(end));
    auto results = cc.build_all(part, m_options.jobs);
    for (std::size_t j = 0; j < results.size(); ++j) {
      const auto& [name, target] = keys[i + j];
      auto& r = results[j];
      store::build_record rec{name, target, r.source_hash, std::string(compile::name_of(r.status)),
                              r.message, r.usage.registers, r.usage.smem_static,
                              r.usage.stack_bytes, r.usage.spill_stores, r.usage.spill_loads,
                              r.cubin_hash, r.compile_ms};
      m_db.put_build(rec);
      auto& counts = per_target[target];
      (r.status == compile::build_status::ok ? counts.first : counts.second)++;
      m_builds.at(name).by_target[target] = std::move(r);
    }
    bar.advance(end - i);
    check_stop();
  }
  bar.finish();
  for (const auto& [target, counts] : per_target)
    fmt::print(stderr, "[{}] {}: {} configurations compile and fit, {} rejected\n", m_spec.op,
               target, counts.first, counts.second);
}

void sweep_run::record_rejections() {
  for (std::size_t p = 0; p < m_spec.problems.size(); ++p) {
    for (const auto& v : m_verdicts[p]) {
      if (v.accepted) continue;
      const candidate_build b{ops::softmax_config_of(v.config, m_spec.problems[p].dtype), v.config, {}};
      auto t = blank_trial(p, b);
      if (m_db.has_trial(t.env_key, t.problem.key, t.config.instance)) continue;
      t.status = "rejected";
      t.message = v.reason;
      t.created_at = store::utc_now();
      m_db.put_trial(t);
    }
  }
}

void sweep_run::measure_all(const compile::target& target) {
  strategy::exhaustive order;
  for (std::size_t p = 0; p < m_spec.problems.size(); ++p)
    for (const auto& v : m_verdicts[p])
      if (v.accepted)
        order.add(p, ks::instance_name(ops::softmax_config_of(v.config, m_spec.problems[p].dtype)));

  report::progress bar(fmt::format("[{}] measure {}", m_spec.op, m_dev.name), order.size());
  while (auto next = order.next()) {
    const auto& problem = m_spec.problems[next->problem];
    const auto& b = m_builds.at(next->instance);
    auto t = blank_trial(next->problem, b);
    if (m_db.has_trial(t.env_key, t.problem.key, t.config.instance)) {
      ++m_skipped;
      bar.advance();
      continue;
    }
    const auto& built = b.by_target.at(target.name);
    if (built.status != compile::build_status::ok) {
      t.status = "not_built";
      t.message = fmt::format("{}: {}", target.name, built.message);
    } else {
      trial_request req;
      req.cubin_path = write_cubin(m_options.cache_dir, next->instance, built);
      req.entry = next->instance;
      req.dtype = problem.dtype;
      req.config = ops::config_json(b.point);
      for (const auto& [k, v] : problem.dims) req.dims[k] = v;
      req.measure = m_spec.measure;
      const auto outcome = m_worker->call(to_json(req), m_spec.measure.timeout_s);
      if (outcome.kind == worker_process::outcome_kind::timed_out) {
        t.status = "timeout";
        t.message = outcome.message;
      } else if (outcome.kind == worker_process::outcome_kind::died) {
        t.status = "crashed";
        t.message = outcome.message;
      } else {
        const auto r = trial_response_from_json(outcome.answer);
        t.status = r.status;
        t.message = r.message;
        t.max_error = r.max_error;
        t.stop_reason = r.stop_reason;
        t.sample_us = r.samples_us;
      }
    }
    if (t.status == "ok") {
      const auto s = measure::summarize(t.sample_us);
      t.min_us = s.min;
      t.median_us = s.median;
      t.q1_us = s.q1;
      t.q3_us = s.q3;
      t.mean_us = s.mean;
      t.stdev_us = s.stdev;
      t.ci_lo_us = s.ci_lo;
      t.ci_hi_us = s.ci_hi;
      t.samples = s.count;
      t.gbps = t.problem.bytes / s.median / 1e3;
      ++m_measured;
      auto& best = m_best[t.problem.key];
      if (best.first.empty() || s.median < best.second) {
        best = {t.config.instance, s.median};
        bar.best(t.problem.key, s.median, t.gbps);
      }
    } else {
      ++m_failed;
    }
    t.created_at = store::utc_now();
    m_db.put_trial(t);
    bar.advance();
    check_stop();
  }
  bar.finish();
}

void sweep_run::print_summary() {
  fmt::print("\n{:<28} {:>10} {:>9}  {}\n", "problem", "median us", "GB/s", "best configuration");
  for (const auto& p : m_spec.problems) {
    const auto key = p.key(m_spec.op);
    const auto it = m_best.find(key);
    if (it == m_best.end()) {
      fmt::print("{:<28} {:>10} {:>9}  {}\n", key, "-", "-", "(nothing measured in this run)");
      continue;
    }
    const double gbps = ops::softmax_bytes(p) / it->second.second / 1e3;
    fmt::print("{:<28} {:>10.2f} {:>9.0f}  {}\n", key, it->second.second, gbps, it->second.first);
  }
  fmt::print("\n{} trials measured, {} failed or rejected at run time, {} already in the database\n",
             m_measured, m_failed, m_skipped);
}

int sweep_run::execute() {
  store::run_info info;
  info.started_at = store::utc_now();
  info.spec_file = m_spec.file;
  info.spec_hash = file_hash(m_spec.file);
  info.op = m_spec.op;
  const compile::target* target = m_dev.present ? target_for(m_spec, m_dev.cc) : nullptr;
  if (m_dev.present && !target)
    throw error(fmt::format("{}: the device ({}, sm_{}) is not among the sweep's targets", m_spec.file,
                            m_dev.name, m_dev.cc));
  info.mode = target ? "measure" : "validate";
  info.state = "running";
  info.env = m_env;
  m_run_id = m_db.begin_run(info);

  try {
    enumerate();
    fmt::print(stderr, "[{}] {}: {} problems, {} configurations, targets {}\n", m_spec.op,
               m_spec.file, m_spec.problems.size(), m_builds.size(), fmt::join(m_spec.targets, ", "));
    compile_all();
    record_rejections();
    if (target) {
      measure_all(*target);
      print_summary();
    }
  } catch (const interrupted&) {
    m_db.finish_run(m_run_id, "interrupted");
    throw error(fmt::format("{}: interrupted; finished trials are stored and the next sweep resumes",
                            m_spec.file));
  } catch (...) {
    m_db.finish_run(m_run_id, "failed");
    throw;
  }
  m_db.finish_run(m_run_id, "finished");
  return exit_code::ok;
}

}  // namespace

int run_sweep(const sweep_options& o) {
  std::vector<spec::sweep> specs;
  for (const auto& f : o.files) {
    specs.push_back(spec::load(f));
    space::require_nonempty(specs.back());  // before anything is stored or compiled
  }
  auto db = store::database::open(o.db_path, store::open_mode::read_write);

  device_info dev;
  std::unique_ptr<worker_process> worker;
  if (o.validate_only) {
    dev.error = "--validate-only was given";
  } else {
    worker = std::make_unique<worker_process>(o.device);
    const auto hello = worker->call({{"cmd", "hello"}}, 120);
    if (hello.kind == worker_process::outcome_kind::answered)
      dev = device_info_from_json(hello.answer);
    else
      dev.error = hello.message;
  }
  if (!dev.present)
    fmt::print(stderr,
               "cuop-tune: no GPU to measure on ({}): running the compile-validation sweep only\n",
               dev.error);
  else
    fmt::print(stderr, "cuop-tune: measuring on device {}: {} ({} SMs, {} MB L2, driver {})\n",
               dev.index, dev.name, dev.sm_count, dev.l2_bytes >> 20, dev.driver);

  const auto env = core::describe_environment(dev);
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  for (const auto& s : specs) sweep_run(s, o, *db, env, dev, worker.get()).execute();
  return exit_code::ok;
}

}  // namespace cuop::runner
