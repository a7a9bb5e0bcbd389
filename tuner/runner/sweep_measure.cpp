#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>

#include "tuner/catalog/catalog.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"
#include "tuner/runner/sweep_run.hpp"
#include "tuner/runner/trial_results.hpp"
#include "tuner/strategy/transfer.hpp"

namespace cuop::runner::detail {

trial::trial_response sweep_run::call(const lane& l, const trial::trial_request& req) {
  const auto outcome = l.worker->call(to_json(req), m_spec.measure.timeout_s);
  trial::trial_response r;
  if (outcome.kind == worker_process::outcome_kind::timed_out) {
    r.status = "timeout";
    r.message = outcome.message;
  } else if (outcome.kind == worker_process::outcome_kind::died) {
    r.status = "crashed";
    r.message = outcome.message;
  } else {
    r = trial::trial_response_from_json(outcome.answer);
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

trial::trial_request sweep_run::base_request(std::size_t p) const {
  const auto& problem = m_spec.problems[p];
  trial::trial_request req;
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
  if (const auto* op = catalog::find_op(m_spec.op); op && op->baseline_of) {
    const auto baseline = op->baseline_of(m_spec.problems[p].dtype, m_spec.problems[p].dims, target.cc);
    for (auto& c : field) c.baseline = c.trial.config.instance == baseline;
  }
  race_callbacks cb;
  cb.measure = [&](const trial::trial_request& r) { return call(l, r); };
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
  const auto chosen = m_transfer->plan(p, fresh, spent, target.cc);
  // budget: {seconds: S}: this problem's share of the time left (docs/measurement.md).
  const double budget_s = m_spec.transfer.seconds;
  const auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  const std::size_t problems_left = m_problems_left.fetch_sub(1);  // this one included
  const double share =
      budget_s > 0 ? strategy::time_share_s(budget_s - since(m_measure_start), problems_left, m_lanes.size()) : 0;
  const auto began = std::chrono::steady_clock::now();
  std::size_t measured = 0;
  for (const auto& pick : chosen) {
    if (budget_s > 0 && !strategy::within_time(measured, since(began), share)) break;
    auto& c = *by_instance.at(pick.instance);
    fill_trial(c.trial, call(l, c.request));
    store_trial(c.trial, bar);
    between_trials();
    ++measured;
  }
  const auto left = field.size() - measured;
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
  m_measure_start = std::chrono::steady_clock::now();
  m_problems_left = order.size();
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

}  // namespace cuop::runner::detail
