#include "tuner/runner/sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "tuner/compile/compile.hpp"
#include "tuner/core/environment.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/process.hpp"
#include "tuner/core/text.hpp"
#include "tuner/measure/environment_check.hpp"
#include "tuner/ops/family_sources.hpp"
#include "tuner/ops/op_adapter.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/report/progress.hpp"
#include "tuner/runner/batch_plan.hpp"
#include "tuner/runner/device_pool.hpp"
#include "tuner/runner/protocol.hpp"
#include "tuner/runner/race.hpp"
#include "tuner/runner/shard.hpp"
#include "tuner/runner/sweep_plan.hpp"
#include "tuner/runner/transfer_knowledge.hpp"
#include "tuner/runner/trial_results.hpp"
#include "tuner/runner/worker_process.hpp"
#include "tuner/space/space.hpp"

namespace cuop::runner {

namespace fs = std::filesystem;

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
struct aborted {};  // another lane of the sweep failed: this one stops quietly

void check_stop() {
  if (g_stop_requested.load()) throw interrupted{};
}

// One device's share of a sweep: its worker, and its index for the trials it measures.
struct lane {
  worker_process* worker = nullptr;
  int device = 0;
};

struct candidate_build {
  ops::kernel_candidate kernel;
  space::point point;
  std::map<std::string, compile::result> by_target;
};

std::string file_hash(const std::string& path) { return compile::hash_hex(core::read_file(path).value_or("")); }

store::problem_record problem_record_of(const spec::sweep& s, const spec::problem& p) {
  store::problem_record r;
  r.key = p.key(s.op);
  r.op = s.op;
  r.dtype = p.dtype;
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& [k, v] : p.dims) dims[k] = v;
  r.dims_json = dims.dump();
  r.bytes = ops::adapter_for(s.op).bytes(p);
  return r;
}

store::config_record config_record_of(const spec::sweep& s, const candidate_build& b) {
  return {b.kernel.instance, s.op, b.point.family, b.kernel.dtype_label, ops::config_json(b.point).at("params").dump()};
}

// A library configuration as the worker lists it: {"instance", "family", "params"}.
store::config_record config_record_of(const spec::sweep& s, const std::string& dtype, const nlohmann::json& listed) {
  return {listed.at("instance").get<std::string>(), s.op, listed.at("family").get<std::string>(), dtype,
          listed.at("params").dump()};
}

// The sweep target that runs on a device of compute capability `cc`.
const compile::target* target_for(const spec::sweep& s, int cc) {
  for (const auto& name : s.targets)
    if (const auto* t = compile::find_target(name); t && t->cc == cc) return t;
  return nullptr;
}

std::string write_cubin(const std::string& cache_dir, const std::string& instance, const compile::result& r) {
  const auto path = (fs::path(cache_dir) / "cubins" / fmt::format("{}.{}.cubin", instance, r.cubin_hash)).string();
  if (!fs::exists(path)) core::write_atomically(path, std::string_view(r.cubin.data(), r.cubin.size()));
  return path;
}

class sweep_run {
 public:
  // `lanes`: one per device of the pool whose first device is `dev` (none: compile-validation).
  sweep_run(const spec::sweep& s, const sweep_plan& plan, const sweep_options& o, store::database& db,
            const store::environment& env, const device_info& dev, std::vector<lane> lanes,
            const batch_plan_map& batch_plan)
      : m_spec(s),
        m_plan(plan),
        m_options(o),
        m_db(db),
        m_env(env),
        m_dev(dev),
        m_lanes(std::move(lanes)),
        m_op(ops::adapter_for(s.op)),
        m_shard(o.shard.empty() ? shard{} : parse_shard(o.shard)),
        m_batch_plan(batch_plan) {
    if (s.strategy == "transfer") m_transfer = std::make_unique<transfer_knowledge>(s);
  }

  int execute();

 private:
  void enumerate();
  // Compiles every instance for every target, the instances of the first problems first; with
  // a GPU it runs beside the measurement (measure_with_compilation), which waits per problem.
  void compile_all(unsigned threads, bool beside_measurement);
  void measure_with_compilation(const compile::target& target);
  // Problems go to the lanes one at a time: a problem's configurations are all measured on one
  // device, so its winner is chosen among timings of one GPU.
  void measure_all(const compile::target& target);
  void measure_problem(std::size_t problem, const compile::target& target, report::progress& bar, const lane& l);
  // strategy: transfer: the problem's candidates, measured as far as its budget goes.
  void measure_transfer(std::size_t problem, const compile::target& target, report::progress& bar, const lane& l);
  // Blocks until every instance of `problem` is compiled for every target.
  void wait_for_builds(std::size_t problem);
  // The library configurations the worker lists for a problem, not yet in the database, each
  // with its request (stored as configs); counts the others as skipped (and names them in
  // `measured`, when given).
  std::vector<race_contender> list_library(std::size_t problem, const space::point& point, report::progress& bar,
                                           const lane& l, std::vector<std::string>* measured = nullptr);
  // A kernel instance's trial, not yet in the database: with its request, or (not built for the
  // target) stored at once; nothing when it is already measured (then named in `measured`, when
  // given, if it was built for the target: one that was not costs no trial).
  std::optional<race_contender> kernel_contender(std::size_t problem, const std::string& instance,
                                                 const compile::target& target, report::progress& bar, const lane& l,
                                                 std::vector<std::string>* measured = nullptr);
  void record_rejections();
  void print_summary();
  store::trial_record blank_trial(std::size_t problem, const store::config_record& c, int device) const;
  // One request in the worker: a timeout or a dead worker becomes the answer's status.
  trial_response call(const lane& l, const trial_request& request);
  // Summarizes (ok, dropped_race) and stores a trial; advances the display.
  void store_trial(store::trial_record& t, report::progress& bar);
  // The GPU's state from a worker (NVML), for the checks before and after a run.
  measure::gpu_environment check_environment(worker_process& worker);
  // Before a run: the state once the power cap a previous load left (the last sweep file of
  // this process, a GEMM at the board's power limit) has lifted, waiting up to 30 s for it.
  measure::gpu_environment settled_environment(worker_process& worker, const measure::environment_limits& limits,
                                               int device);
  // Between trials: Ctrl-C, or another lane's failure.
  void between_trials() const;
  // What every trial of `problem` asks the worker, less its configuration.
  trial_request base_request(std::size_t problem) const;

  const spec::sweep& m_spec;
  const sweep_plan& m_plan;  // worked out before the run began (plan_sweep)
  const sweep_options& m_options;
  store::database& m_db;
  const store::environment& m_env;
  const device_info& m_dev;
  std::vector<lane> m_lanes;
  const ops::op_adapter& m_op;
  shard m_shard;  // the configurations this run measures
  const batch_plan_map& m_batch_plan;
  std::int64_t m_run_id = 0;
  std::vector<std::vector<std::string>> m_instances;             // per problem: accepted kernel instances
  std::vector<std::vector<space::point>> m_library;              // per problem: library candidates
  std::map<std::string, candidate_build> m_builds;               // by instance name
  std::map<std::string, std::pair<std::string, double>> m_best;  // problem -> instance, median
  int m_measured = 0, m_failed = 0, m_skipped = 0;
  int m_budgeted = 0;                              // strategy: transfer: candidates its budget left out
  std::unique_ptr<transfer_knowledge> m_transfer;  // strategy: transfer only
  // The lanes and the compiler share the database, the display and the counts above: one lock.
  std::mutex m_mutex;
  // Compilation beside measurement: instances compiled for every target so far.
  std::mutex m_build_mutex;
  std::condition_variable m_build_ready;
  std::set<std::string> m_compiled;
  bool m_compile_over = false;  // finished, failed or stopped: nothing more will be compiled
  std::atomic<bool> m_abort{false};
};

void sweep_run::between_trials() const {
  check_stop();
  if (m_abort.load()) throw aborted{};
}

store::trial_record sweep_run::blank_trial(std::size_t problem, const store::config_record& c, int device) const {
  store::trial_record t;
  t.run_id = m_run_id;
  t.env_key = m_env.key();
  t.problem = problem_record_of(m_spec, m_spec.problems[problem]);
  t.config = c;
  t.device = device;
  t.warmup_cap_ms = std::max(m_spec.measure.warmup_cap_ms, m_spec.measure.warmup_ms);
  return t;
}

// The plan's points, less the kernel configurations of other shards.
void sweep_run::enumerate() {
  for (std::size_t p = 0; p < m_spec.problems.size(); ++p) {
    std::vector<std::string> instances;
    for (const auto& name : m_plan.instances[p]) {
      if (!m_shard.owns(name)) continue;
      instances.push_back(name);
      if (!m_builds.contains(name)) {
        const auto& planned = m_plan.kernels.at(name);
        m_builds.emplace(name, candidate_build{planned.kernel, planned.point, {}});
      }
    }
    m_instances.push_back(std::move(instances));
    m_library.push_back(m_plan.library[p]);
  }
}

void sweep_run::compile_all(unsigned threads, bool beside_measurement) {
  // In problem order, so that the first problems' measurement can start while the rest compile.
  std::vector<std::string> order;
  std::set<std::string> queued;
  for (const auto& instances : m_instances)
    for (const auto& name : instances)
      if (queued.insert(name).second) order.push_back(name);
  std::vector<compile::request> requests;
  std::vector<std::pair<std::string, std::string>> keys;  // instance, target
  for (const auto& name : order) {
    const auto& b = m_builds.at(name);
    for (const auto& target : m_spec.targets) {
      requests.push_back({b.kernel.source, name, target, b.kernel.block_threads, b.kernel.dynamic_smem});
      keys.emplace_back(name, target);
    }
  }
  report::progress bar(fmt::format("[{}] compile", m_spec.op), requests.size(), stderr, !beside_measurement);
  compile::compiler cc(m_options.cache_dir, compile::default_include_dirs());
  // Compile in slices of a few per thread, so the display moves, every finished slice is stored
  // and an interruption is answered within seconds.
  const std::size_t slice = 4 * threads;
  std::map<std::string, std::pair<int, int>> per_target;  // ok, failed
  {
    std::lock_guard lock(m_mutex);
    for (const auto& name : order) m_db.put_config(config_record_of(m_spec, m_builds.at(name)));
  }
  for (std::size_t i = 0; i < requests.size(); i += slice) {
    const auto end = std::min(requests.size(), i + slice);
    std::vector<compile::request> part(requests.begin() + static_cast<long>(i),
                                       requests.begin() + static_cast<long>(end));
    auto results = cc.build_all(part, static_cast<int>(threads));
    std::set<std::string> done;
    {
      std::lock_guard lock(m_mutex);
      for (std::size_t j = 0; j < results.size(); ++j) {
        const auto& [name, target] = keys[i + j];
        auto& r = results[j];
        store::build_record rec{name,
                                target,
                                r.source_hash,
                                std::string(compile::name_of(r.status)),
                                r.message,
                                r.usage.registers,
                                r.usage.smem_static,
                                r.usage.stack_bytes,
                                r.usage.spill_stores,
                                r.usage.spill_loads,
                                r.cubin_hash,
                                r.compile_ms};
        m_db.put_build(rec);
        auto& counts = per_target[target];
        (r.status == compile::build_status::ok ? counts.first : counts.second)++;
        auto& built = m_builds.at(name).by_target;
        built[target] = std::move(r);
        if (built.size() == m_spec.targets.size()) done.insert(name);
      }
      bar.advance(end - i);
    }
    {
      std::lock_guard lock(m_build_mutex);
      m_compiled.insert(done.begin(), done.end());
    }
    m_build_ready.notify_all();
    if (end < requests.size()) between_trials();  // after the last slice there is nothing to stop
  }
  bar.finish();
  for (const auto& [target, counts] : per_target)
    fmt::print(stderr, "[{}] {}: {} configurations compile and fit, {} rejected\n", m_spec.op, target, counts.first,
               counts.second);
  std::size_t library = 0;
  for (const auto& l : m_library) library += l.size();
  if (library > 0)
    fmt::print(stderr, "[{}] {} library candidates: enumerated and verified on the GPU{}\n", m_spec.op, library,
               m_dev.present ? "" : " (no GPU: skipped)");
}

void sweep_run::wait_for_builds(std::size_t problem) {
  const auto complete = [&] {  // under m_build_mutex: the compiler inserts into m_compiled
    return std::ranges::all_of(m_instances[problem], [&](const std::string& n) { return m_compiled.contains(n); });
  };
  std::unique_lock lock(m_build_mutex);
  // Woken by each compiled slice; every 250 ms it also looks for Ctrl-C or another lane's failure.
  while (!m_compile_over && !complete()) {
    m_build_ready.wait_for(lock, std::chrono::milliseconds(250));
    if (g_stop_requested.load() || m_abort.load()) break;
  }
  const bool ready = complete();
  lock.unlock();
  between_trials();             // stopped or failed while waiting
  if (!ready) throw aborted{};  // the compiler stopped short (its own error is the one reported)
}

void sweep_run::record_rejections() {
  for (std::size_t p = 0; p < m_spec.problems.size(); ++p) {
    // Two candidate blocks can reach the same instance: one that accepts it wins over one that
    // rejects it (else the stored rejection would keep the accepted point from being measured).
    const std::set<std::string> accepted(m_instances[p].begin(), m_instances[p].end());
    for (const auto& v : m_plan.verdicts[p]) {
      if (v.accepted || m_op.is_library(v.config.family)) continue;
      const candidate_build b{m_op.kernel(v.config, m_spec.problems[p]), v.config, {}};
      if (!m_shard.owns(b.kernel.instance) || accepted.contains(b.kernel.instance)) continue;
      auto t = blank_trial(p, config_record_of(m_spec, b), m_dev.index);
      if (m_db.has_trial(t.env_key, t.problem.key, t.config.instance)) continue;
      t.status = "rejected";
      t.message = v.reason;
      t.created_at = store::utc_now();
      m_db.put_trial(t);
    }
  }
}

trial_response sweep_run::call(const lane& l, const trial_request& req) {
  const auto outcome = l.worker->call(to_json(req), m_spec.measure.timeout_s);
  trial_response r;
  if (outcome.kind == worker_process::outcome_kind::timed_out) {
    r.status = "timeout";
    r.message = outcome.message;
  } else if (outcome.kind == worker_process::outcome_kind::died) {
    r.status = "crashed";
    r.message = outcome.message;
  } else {
    r = trial_response_from_json(outcome.answer);
  }
  return r;
}

void sweep_run::store_trial(store::trial_record& t, report::progress& bar) {
  if (t.status == "ok" || t.status == "dropped_race") summarize_trial(t);
  std::lock_guard lock(m_mutex);
  if (t.status == "ok") {
    ++m_measured;
    auto& best = m_best[t.problem.key];
    if (best.first.empty() || t.median_us < best.second) {
      best = {t.config.instance, t.median_us};
      bar.best(t.problem.key, t.median_us, t.gbps);
    }
  } else if (t.status == "dropped_race") {
    ++m_measured;
  } else {
    ++m_failed;
  }
  t.created_at = store::utc_now();
  m_db.put_trial(t);
  if (m_transfer) m_transfer->add(t);
  bar.advance();
}

measure::gpu_environment sweep_run::check_environment(worker_process& worker) {
  const auto outcome = worker.call({{"cmd", "environment"}}, 60);
  if (outcome.kind != worker_process::outcome_kind::answered) {
    measure::gpu_environment e;
    e.error = "the worker did not answer: " + outcome.message;
    return e;
  }
  auto e = measure::gpu_environment_from_json(outcome.answer);
  if (!e.checked && e.error.empty()) e.error = outcome.answer.value("message", "the worker did not say why");
  return e;
}

measure::gpu_environment sweep_run::settled_environment(worker_process& worker,
                                                        const measure::environment_limits& limits, int device) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto e = check_environment(worker);
  const auto residue_only = [&] {
    return e.checked && !measure::assess(e, limits).empty() && measure::assess(e, limits, true).empty();
  };
  if (!residue_only()) return e;
  while (residue_only() && clock::now() - start < std::chrono::seconds(30)) {
    check_stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    e = check_environment(worker);
  }
  const double waited = std::chrono::duration<double>(clock::now() - start).count();
  fmt::print(stderr, "[{}] device {}: waited {:.1f} s for the power cap left by the previous load to lift{}\n",
             m_spec.op, device, waited, residue_only() ? " (it did not)" : "");
  return e;
}

trial_request sweep_run::base_request(std::size_t p) const {
  const auto& problem = m_spec.problems[p];
  trial_request req;
  req.op = m_spec.op;
  req.dtype = problem.dtype;
  for (const auto& [k, v] : problem.dims) req.dims[k] = v;
  req.measure = m_spec.measure;
  req.force_batch = planned_launches(m_batch_plan, problem.key(m_spec.op));
  return req;
}

// Library candidates: the worker lists the configurations the library offers for the problem
// (the heuristic's first choice always among them), each then measured like a kernel.
std::vector<race_contender> sweep_run::list_library(std::size_t p, const space::point& point, report::progress& bar,
                                                    const lane& l, std::vector<std::string>* measured) {
  const auto& problem = m_spec.problems[p];
  auto listing = base_request(p);
  nlohmann::json ask = to_json(listing);
  ask["cmd"] = "list_library";
  ask["config"] = ops::config_json(point);
  const auto outcome = l.worker->call(ask, m_spec.measure.timeout_s * 4);
  std::lock_guard lock(m_mutex);
  if (outcome.kind != worker_process::outcome_kind::answered || outcome.answer.value("status", "") != "ok") {
    const auto why =
        outcome.kind == worker_process::outcome_kind::answered ? outcome.answer.value("message", "") : outcome.message;
    fmt::print(stderr, "[{}] {}: {} could not be enumerated: {}\n", m_spec.op, problem.key(m_spec.op),
               space::str(point), why);
    ++m_failed;
    return {};
  }
  nlohmann::json configs = nlohmann::json::array();
  for (const auto& listed : outcome.answer.at("configs"))
    if (m_shard.owns(listed.at("instance").get<std::string>())) configs.push_back(listed);
  bar.add_total(configs.size());
  std::vector<race_contender> out;
  for (const auto& listed : configs) {
    auto t = blank_trial(p, config_record_of(m_spec, problem.dtype, listed), l.device);
    if (m_db.has_trial(t.env_key, t.problem.key, t.config.instance)) {
      ++m_skipped;
      bar.advance();
      if (measured) measured->push_back(t.config.instance);
      continue;
    }
    m_db.put_config(t.config);
    auto req = base_request(p);
    req.entry = t.config.instance;
    req.force_batch = planned_launches(m_batch_plan, t.problem.key, req.entry);
    req.config = {{"family", listed.at("family")}, {"params", listed.at("params")}};
    out.push_back({std::move(t), std::move(req)});
  }
  return out;
}

std::optional<race_contender> sweep_run::kernel_contender(std::size_t p, const std::string& instance,
                                                          const compile::target& target, report::progress& bar,
                                                          const lane& l, std::vector<std::string>* measured) {
  const auto& b = m_builds.at(instance);  // compiled: wait_for_builds
  auto t = blank_trial(p, config_record_of(m_spec, b), l.device);
  const auto& built = b.by_target.at(target.name);
  {
    std::lock_guard lock(m_mutex);
    if (m_db.has_trial(t.env_key, t.problem.key, t.config.instance)) {
      ++m_skipped;
      bar.advance();
      if (measured && built.status == compile::build_status::ok) measured->push_back(instance);
      return std::nullopt;
    }
  }
  if (built.status != compile::build_status::ok) {
    t.status = "not_built";
    t.message = fmt::format("{}: {}", target.name, built.message);
    store_trial(t, bar);
    return std::nullopt;
  }
  auto req = base_request(p);
  {
    std::lock_guard lock(m_mutex);  // two lanes may want the same cubin file
    req.cubin_path = write_cubin(m_options.cache_dir, instance, built);
  }
  req.entry = instance;
  req.force_batch = planned_launches(m_batch_plan, t.problem.key, instance);
  req.config = ops::config_json(b.point);
  return race_contender{std::move(t), std::move(req)};
}

void sweep_run::measure_problem(std::size_t p, const compile::target& target, report::progress& bar, const lane& l) {
  const auto run_one = [&](race_contender& c) {
    fill_trial(c.trial, call(l, c.request));
    store_trial(c.trial, bar);
    between_trials();
  };
  if (m_spec.strategy == "transfer") {
    measure_transfer(p, target, bar, l);
    return;
  }
  if (m_spec.strategy != "race") {
    // Library configurations first (they need no compilation), then the kernels.
    for (const auto& point : m_library[p])
      for (auto& c : list_library(p, point, bar, l)) run_one(c);
    wait_for_builds(p);
    for (const auto& instance : m_instances[p]) {
      if (auto c = kernel_contender(p, instance, target, bar, l)) run_one(*c);
      else between_trials();
    }
    return;
  }
  // strategy: race. The problem's library configurations and kernels race each other
  // (tuner/runner/race.hpp); those already measured (a resumed sweep) sit the race out.
  std::vector<race_contender> field;
  for (const auto& point : m_library[p])
    for (auto& c : list_library(p, point, bar, l)) field.push_back(std::move(c));
  wait_for_builds(p);
  for (const auto& instance : m_instances[p])
    if (auto c = kernel_contender(p, instance, target, bar, l)) field.push_back(std::move(*c));
  between_trials();
  // The baseline (what the dispatch model must beat) races to the end: every raced problem is
  // then an anchor of the model.
  if (const auto* op = ops::find_op(m_spec.op); op && op->baseline_of) {
    const auto baseline = op->baseline_of(m_spec.problems[p].dtype, m_spec.problems[p].dims);
    for (auto& c : field) c.baseline = c.trial.config.instance == baseline;
  }
  race_callbacks cb;
  cb.measure = [&](const trial_request& r) { return call(l, r); };
  cb.store = [&](store::trial_record& t) { store_trial(t, bar); };
  cb.between = [&] { between_trials(); };
  run_race(std::move(field), m_spec.measure, cb);
}

void sweep_run::measure_transfer(std::size_t p, const compile::target& target, report::progress& bar, const lane& l) {
  std::vector<race_contender> field;  // not measured yet
  std::vector<std::string> spent;     // measured before in this environment: they count
  for (const auto& point : m_library[p])
    for (auto& c : list_library(p, point, bar, l, &spent)) field.push_back(std::move(c));
  wait_for_builds(p);
  for (const auto& instance : m_instances[p])
    if (auto c = kernel_contender(p, instance, target, bar, l, &spent)) field.push_back(std::move(*c));
  between_trials();
  std::vector<std::string> fresh;
  std::map<std::string, race_contender*> by_instance;
  for (auto& c : field) {
    fresh.push_back(c.trial.config.instance);
    by_instance.emplace(c.trial.config.instance, &c);
  }
  const auto chosen = m_transfer->plan(p, fresh, spent);
  for (const auto& pick : chosen) {
    auto& c = *by_instance.at(pick.instance);
    fill_trial(c.trial, call(l, c.request));
    store_trial(c.trial, bar);
    between_trials();
  }
  const auto left = field.size() - chosen.size();
  {
    std::lock_guard lock(m_mutex);
    m_budgeted += static_cast<int>(left);
  }
  bar.advance(left);  // done: the budget leaves them out
}

void sweep_run::measure_all(const compile::target& target) {
  std::size_t total = 0;
  for (const auto& instances : m_instances) total += instances.size();
  const auto devices = m_lanes.size() == 1 ? m_dev.name : fmt::format("{} x{}", m_dev.name, m_lanes.size());
  report::progress bar(
      fmt::format("[{}] {} {}", m_spec.op, m_spec.strategy == "exhaustive" ? "measure" : m_spec.strategy, devices),
      total);
  // The problems in the strategy's order: transfer visits neighbours one after another.
  std::vector<std::size_t> order(m_spec.problems.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (m_transfer) {
    {
      std::lock_guard lock(m_mutex);  // the compiler, beside, stores builds
      m_transfer->load(m_db, m_dev.name);
    }
    order = m_transfer->order();
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  const auto work = [&](const lane& l) {
    try {
      for (std::size_t i; !m_abort.load() && (i = next++) < order.size();) measure_problem(order[i], target, bar, l);
    } catch (const aborted&) {
    } catch (...) {
      std::lock_guard lock(m_mutex);
      if (!failure) failure = std::current_exception();
      m_abort = true;
    }
  };
  if (m_lanes.size() == 1) {
    work(m_lanes.front());
  } else {
    std::vector<std::jthread> threads;
    threads.reserve(m_lanes.size());
    try {
      for (const auto& l : m_lanes) threads.emplace_back(work, l);
    } catch (...) {
      m_abort = true;  // the lanes already started stop after their trial; joined on the way out
      throw;
    }
  }  // joined here
  if (failure) std::rethrow_exception(failure);
  bar.finish();
}

void sweep_run::measure_with_compilation(const compile::target& target) {
  // Compilation leaves a core to each worker and one to this process: a worker starved of CPU
  // between its start event and its launch would stretch the timing.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int reserved = static_cast<int>(m_lanes.size()) + 1;
  const auto threads = static_cast<unsigned>(m_options.jobs > 0 ? m_options.jobs : std::max(1, cores - reserved));
  std::exception_ptr compile_failure;
  std::thread compiler([&] {
    try {
      compile_all(threads, true);
    } catch (const aborted&) {
    } catch (...) {
      compile_failure = std::current_exception();
      m_abort = true;
    }
    {
      std::lock_guard lock(m_build_mutex);
      m_compile_over = true;
    }
    m_build_ready.notify_all();
  });
  try {
    measure_all(target);
  } catch (...) {
    m_abort = true;  // the compiler stops after its slice
    compiler.join();
    throw;
  }
  compiler.join();
  if (compile_failure) std::rethrow_exception(compile_failure);
}

void sweep_run::print_summary() {
  const bool compute = m_op.flops(m_spec.problems.front()) > 0;
  fmt::print("\n{:<28} {:>10} {:>9}  {}\n", "problem", "median us", compute ? "TFLOP/s" : "GB/s", "best configuration");
  for (const auto& p : m_spec.problems) {
    const auto key = p.key(m_spec.op);
    const auto it = m_best.find(key);
    if (it == m_best.end()) {
      fmt::print("{:<28} {:>10} {:>9}  {}\n", key, "-", "-", "(nothing measured in this run)");
      continue;
    }
    const double rate = compute ? m_op.flops(p) / it->second.second / 1e6 : m_op.bytes(p) / it->second.second / 1e3;
    fmt::print("{:<28} {:>10.2f} {:>9.{}f}  {}\n", key, it->second.second, rate, compute ? 1 : 0, it->second.first);
  }
  fmt::print("\n{} trials measured, {} failed or rejected at run time, {} already in the database{}\n", m_measured,
             m_failed, m_skipped,
             m_transfer ? fmt::format(", {} left out by the budget ({} per problem)", m_budgeted,
                                      transfer_params_of(m_spec.transfer).budget.str())
                        : std::string());
}

int sweep_run::execute() {
  store::run_info info;
  info.started_at = store::utc_now();
  info.spec_file = m_spec.file;
  info.spec_hash = file_hash(m_spec.file);
  info.op = m_spec.op;
  const compile::target* target = m_dev.present ? target_for(m_spec, m_dev.cc) : nullptr;
  if (m_dev.present && !target)
    throw error(
        fmt::format("{}: the device ({}, sm_{}) is not among the sweep's targets", m_spec.file, m_dev.name, m_dev.cc));
  info.mode = target ? "measure" : "validate";
  info.state = "running";
  const auto self = core::this_process();
  info.pid = self.pid;
  info.pid_start = self.start;
  info.env = m_env;
  info.shard = m_shard.str();
  if (const auto* op = ops::find_op(m_spec.op))
    info.family_hashes = nlohmann::json(ops::family_source_hashes(*op)).dump();
  m_run_id = m_db.begin_run(info);

  try {
    enumerate();
    fmt::print(stderr, "[{}] {}: {} problems, {} configurations, targets {}\n", m_spec.op, core::printable(m_spec.file),
               m_spec.problems.size(), m_builds.size(), fmt::join(m_spec.targets, ", "));
    record_rejections();
    if (!target) {
      const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
      compile_all(m_options.jobs > 0 ? static_cast<unsigned>(m_options.jobs) : cores, false);
    } else {
      // The environment before and after, on every device: a run measured beside other
      // processes, throttled or hot is stored as "invalid" and never trusted (best, export,
      // emit, compare skip it).
      const bool checks = m_spec.measure.env_check;
      const measure::environment_limits limits{static_cast<unsigned>(m_spec.measure.max_temp_c)};
      std::vector<measure::gpu_environment> before;
      for (const auto& l : m_lanes) {
        before.push_back(checks ? settled_environment(*l.worker, limits, l.device) : measure::gpu_environment{});
        const auto& b = before.back();
        if (checks && !b.checked)
          fmt::print(stderr, "[{}] device {}: environment not checked: {}\n", m_spec.op, l.device, b.error);
        else if (const auto why = measure::assess(b, limits); checks && !why.empty())
          fmt::print(stderr,
                     "cuop-tune: warning: {}: device {} is not fit to measure on ({}): the run will "
                     "be marked invalid\n",
                     core::printable(m_spec.file), l.device, why);
      }
      measure_with_compilation(*target);
      print_summary();
      if (checks) {
        std::vector<std::string> invalid;
        nlohmann::json record = nlohmann::json::object(), devices = nlohmann::json::array();
        for (std::size_t i = 0; i < m_lanes.size(); ++i) {
          const auto after = check_environment(*m_lanes[i].worker);
          const nlohmann::json checked{{"device", m_lanes[i].device},
                                       {"before", measure::to_json(before[i])},
                                       {"after", measure::to_json(after)}};
          if (i == 0) record = {{"before", checked["before"]}, {"after", checked["after"]}};
          devices.push_back(checked);
          if (const auto why = measure::assess_run(before[i], after, limits); !why.empty())
            invalid.push_back(m_lanes.size() == 1 ? why : fmt::format("device {}: {}", m_lanes[i].device, why));
        }
        if (m_lanes.size() > 1) record["devices"] = devices;
        std::lock_guard lock(m_mutex);
        m_db.set_env_checks(m_run_id, record.dump());
        if (!invalid.empty()) {
          const auto why = fmt::format("{}", fmt::join(invalid, "; "));
          fmt::print(stderr, "cuop-tune: {}: run {} is invalid: {}; its trials will not be trusted\n",
                     core::printable(m_spec.file), m_run_id, why);
          m_db.finish_run(m_run_id, "invalid", why);
          return exit_code::ok;
        }
      }
    }
  } catch (const interrupted&) {
    m_db.finish_run(m_run_id, "interrupted");
    throw error(fmt::format("{}: interrupted; finished trials are stored and the next sweep resumes", m_spec.file));
  } catch (...) {
    m_db.finish_run(m_run_id, "failed");
    throw;
  }
  m_db.finish_run(m_run_id, "finished");
  return exit_code::ok;
}

// Runs this host's earlier sweeps left "running" when their process died without a word (SIGKILL,
// a crash): marked interrupted, with the reason, so that nothing reads them as still measuring.
// Runs of other hosts, and runs from before schema 5 (no pid), cannot be told apart and are left.
void interrupt_abandoned_runs(store::database& db, const std::string& hostname) {
  for (const auto& r : db.runs()) {
    if (r.state != "running" || r.pid <= 0 || r.env.hostname != hostname) continue;
    if (core::process_alive({r.pid, r.pid_start})) continue;
    const auto why = fmt::format("its sweep (process {} on {}) ended without finishing it", r.pid, hostname);
    if (db.abandon_run(r.id, why))
      fmt::print(stderr, "cuop-tune: run {} ({}) was left running: {}; marked interrupted\n", r.id, r.spec_file, why);
  }
}

}  // namespace

int run_sweep(const sweep_options& o) {
  if (!o.shard.empty()) parse_shard(o.shard);  // a bad --shard is refused before anything runs
  const auto batch_plan = o.batch_plan.empty() ? batch_plan_map{} : read_batch_plan(o.batch_plan);
  std::vector<spec::sweep> specs;
  std::vector<sweep_plan> plans;  // one per spec
  for (const auto& f : o.files) {
    specs.push_back(spec::load(f));
    auto& s = specs.back();
    if (!o.only.empty()) {
      // A comma-separated list: a problem stays when its key contains any of the texts.
      std::vector<std::string> texts;
      for (std::size_t a = 0, b; a <= o.only.size(); a = b + 1) {
        b = o.only.find(',', a);
        if (b == std::string::npos) b = o.only.size();
        if (b > a) texts.push_back(o.only.substr(a, b - a));
      }
      std::erase_if(s.problems, [&](const spec::problem& p) {
        const auto key = p.key(s.op);
        return std::none_of(texts.begin(), texts.end(),
                            [&](const std::string& t) { return key.find(t) != std::string::npos; });
      });
      if (s.problems.empty()) {
        fmt::print(stderr, "cuop-tune: {}: no problem matches --only {}: skipped\n", core::printable(f),
                   core::quoted(o.only));
        specs.pop_back();
        continue;
      }
    }
    // The file's space, before anything is stored or compiled: a file `validate` refuses is
    // refused here the same way (sweep_plan.hpp).
    plans.push_back(plan_sweep(s));
  }
  if (specs.empty()) throw error(fmt::format("no problem of any file matches --only {}", core::quoted(o.only)));
  // The cubin cache is written by every compilation: a file in its place, a folder without write
  // permission or a full disk would otherwise make every build a compile_error of a finished run.
  core::require_writable_folder(o.cache_dir, "--cache");
  auto db = store::database::open(o.db_path, store::open_mode::read_write);
  interrupt_abandoned_runs(*db, core::host_name());

  // The workers: one per device asked for (--device N, or --devices), each asked what it sees.
  std::vector<std::unique_ptr<worker_process>> workers;
  std::vector<device_info> devices;
  std::string no_gpu;
  const auto start = [&](int index) {
    workers.push_back(std::make_unique<worker_process>(index));
    const auto hello = workers.back()->call({{"cmd", "hello"}}, 120);
    device_info d =
        hello.kind == worker_process::outcome_kind::answered ? device_info_from_json(hello.answer) : device_info{};
    if (hello.kind != worker_process::outcome_kind::answered) d.error = hello.message;
    d.index = index;
    devices.push_back(d);
    return d;
  };
  if (o.validate_only) {
    no_gpu = "--validate-only was given";
  } else if (o.devices.empty()) {
    if (const auto d = start(o.device); !d.present) no_gpu = d.error;
  } else {
    const auto first = start(0);  // says how many devices there are
    if (first.device_count == 0 && !first.present) {
      no_gpu = first.error;
    } else {
      const auto indices = parse_devices(o.devices, first.device_count);
      for (const int index : indices) {
        if (index == 0) continue;
        if (const auto d = start(index); !d.present)
          throw error(fmt::format("--devices {}: device {} cannot measure: {}", o.devices, index, d.error));
      }
      if (std::ranges::find(indices, 0) == indices.end()) {  // device 0 was only asked for the count
        workers.erase(workers.begin());
        devices.erase(devices.begin());
      } else if (!first.present) {
        throw error(fmt::format("--devices {}: device 0 cannot measure: {}", o.devices, first.error));
      }
    }
  }
  const auto pools = no_gpu.empty() ? pools_by_model(devices) : std::vector<device_pool>{};
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  if (pools.empty()) {
    fmt::print(stderr, "cuop-tune: no GPU to measure on ({}): running the compile-validation sweep only\n", no_gpu);
    device_info none;
    none.error = no_gpu;
    const auto env = core::describe_environment(none);
    for (std::size_t i = 0; i < specs.size(); ++i)
      sweep_run(specs[i], plans[i], o, *db, env, none, {}, batch_plan).execute();
    return exit_code::ok;
  }
  // The workers are told each cubin's path in JSON, which holds only UTF-8: found here, before
  // anything is measured, rather than as a JSON exception at the first trial.
  if (!core::is_utf8(o.cache_dir))
    throw error(
        fmt::format("--cache {}: not a UTF-8 path; the workers cannot be told the paths of the "
                    "cubins in it (compile-validation, --validate-only, can use it)",
                    core::printable(o.cache_dir)));
  if (pools.size() > 1)
    fmt::print(stderr,
               "cuop-tune: {} GPU models: their results are kept apart, each model measures every "
               "sweep in turn\n",
               pools.size());
  for (const auto& pool : pools) {
    const auto& d = pool.devices.front();
    fmt::print(stderr, "cuop-tune: measuring on {}: {} SMs, {} MB L2, driver {}\n", pool.describe(), d.sm_count,
               d.l2_bytes >> 20, d.driver);
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    for (const auto& pool : pools) {
      // One environment for the pool: identical GPUs pool their trials (each trial records its
      // device); a one-GPU pool keys them by its own UUID, as a sweep always has.
      auto env = core::describe_environment(pool.devices.front());
      env.gpu_uuid = pool.uuid();
      std::vector<lane> lanes;
      for (const auto& member : pool.devices)
        for (std::size_t i = 0; i < devices.size(); ++i)
          if (devices[i].index == member.index) lanes.push_back({workers[i].get(), member.index});
      sweep_run(s, plans[i], o, *db, env, pool.devices.front(), std::move(lanes), batch_plan).execute();
    }
  }
  return exit_code::ok;
}

}  // namespace cuop::runner
