#include "tuner/gate/gate_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <utility>

#include "tuner/core/error.hpp"
#include "tuner/gate/abba.hpp"
#include "tuner/gate/retry.hpp"
#include "tuner/gate/suite_run.hpp"
#include "tuner/runner/batch_plan.hpp"
#include "tuner/runner/sweep_plan.hpp"
#include "tuner/runner/worker_process.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::gate {

namespace fs = std::filesystem;

namespace {

// The gate's files: a temporary folder (without --db, the
// databases) and the databases, named by what they hold. The folder goes at the end unless kept.
class gate_files {
 public:
  // With --db the databases are beside it and kept; the folder then only holds file copies.
  gate_files(std::string db, bool keep) : m_db(std::move(db)), m_keep(keep && m_db.empty()) {
    const auto base = fs::temp_directory_path() / "cuop-gate-XXXXXX";
    std::string tmpl = base.string();
    if (!::mkdtemp(tmpl.data())) throw error(fmt::format("{}: cannot create a temporary folder", tmpl));
    m_folder = tmpl;
  }
  ~gate_files() {
    std::error_code ec;
    if (!m_keep) fs::remove_all(m_folder, ec);
  }
  gate_files(const gate_files&) = delete;
  gate_files& operator=(const gate_files&) = delete;

  const std::string& folder() const { return m_folder; }

  // The first database asked for is --db itself; the others go beside it, "<stem>.<label>.db".
  std::string database(const std::string& label, const std::string& holds) {
    std::string path;
    if (m_db.empty()) {
      path = (fs::path(m_folder) / (label + ".db")).string();
    } else if (m_databases.empty()) {
      path = m_db;
    } else {
      const fs::path p(m_db);
      path = (p.parent_path() / (p.stem().string() + "." + label + ".db")).string();
    }
    m_databases.push_back(fmt::format("{} ({})", path, holds));
    return path;
  }

  std::vector<std::string> kept() const {
    return m_keep || !m_db.empty() ? m_databases : std::vector<std::string>{};  // else removed
  }

 private:
  std::string m_db;
  bool m_keep;
  std::string m_folder;
  std::vector<std::string> m_databases;
};

result_set load_measured(const std::string& db, const std::string& source) {
  result_set set;
  try {
    set = load_result_set(db, {});
  } catch (const error& e) {
    throw error(fmt::format("{}: nothing measured ({}); the sweep's messages above say why", source, e.what()));
  }
  set.source = source;
  return set;
}

struct gate_context {
  const gate_options& o;
  std::vector<std::string> specs;
  std::vector<std::string> problems;  // every problem of the suites
  std::string self, other;
  gate_files files;
  std::vector<std::string> warnings;  // the gate's own, added to every comparison
  std::string batch_plan;             // once written: how every later sweep times each problem
};

// From here on every sweep times each configuration the way `reference` timed it, and the
// others of a problem the way it timed the problem's winner (a CUDA-graph batch of the same
// launches, or single launches), so that no comparison is lost to a kernel near the batching
// threshold falling one way in one run and the other way in the next.
void fix_timing(gate_context& g, const result_set& reference, const std::string& what) {
  const auto plan = timing_plan(reference);
  g.batch_plan = (fs::path(g.files.folder()) / "batch-plan.json").string();
  runner::write_batch_plan(g.batch_plan, plan);
  const auto batched = std::ranges::count_if(plan, [](const auto& e) { return e.second.launches > 1; });
  fmt::print(stderr,
             "cuop-tune: gate: timing each configuration as {} timed it (winners: {} problems in CUDA-graph "
             "batches, {} in single launches)\n",
             what, batched, plan.size() - static_cast<std::size_t>(batched));
}

suite_run suite(const gate_context& g, const std::vector<std::string>& only, int pass) {
  suite_run run;
  run.specs = g.specs;
  run.only = only;
  run.retry_pass = pass;
  run.scratch_dir = g.files.folder();
  run.device = g.o.device;
  run.cache_dir = g.o.cache_dir;
  run.jobs = g.o.jobs;
  run.batch_plan = g.batch_plan;
  return run;
}

std::string pass_prefix(int pass) { return pass == 0 ? "" : fmt::format("retry{}-", pass); }

// This build must verify every problem it was asked to measure: a problem none of whose
// configurations verified (a broken kernel, or a run the sweep marked invalid for a bad
// environment) is an error, never a quiet "only in the baseline". On a retry, its earlier trials
// stay and a warning says so.
void require_measured(gate_context& g, const result_set& set, const std::vector<std::string>& wanted, int pass,
                      const std::string& what) {
  const auto missing = missing_problems(set, wanted.empty() ? g.problems : wanted);
  if (missing.empty()) return;
  const auto message = fmt::format(
      "{}: no verified result for {} of the problems it measured: {} (every configuration failed, "
      "or the sweep marked its run invalid; its messages above say which)",
      what, missing.size(), fmt::join(missing, ", "));
  if (pass == 0) throw error(message);
  g.warnings.push_back(message + "; the earlier trials stay");
}

// --baseline: this build, once (a retry pass: only `only`).
result_set measure_this_build(gate_context& g, const std::vector<std::string>& only, int pass) {
  const auto holds = pass == 0 ? std::string("this build") : fmt::format("this build, retry {}", pass);
  const auto db = g.files.database(pass_prefix(pass) + "a", holds);
  run_suite(g.self, db, suite(g, only, pass), holds);
  auto set = load_measured(db, "this build");
  require_measured(g, set, only, pass, holds);
  return set;
}

// --against: A B B A rounds, each build's pooled.
std::pair<result_set, result_set> measure_rounds(gate_context& g, const std::vector<std::string>& only, int pass) {
  const auto schedule = abba_schedule(g.o.cycles);
  std::vector<result_set> a_rounds, b_rounds;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const bool a = schedule[i] == build::a;
    const auto holds = fmt::format("{}round {} of {}: {}", pass == 0 ? "" : fmt::format("retry {}, ", pass), i + 1,
                                   schedule.size(), a ? "A, this build" : "B, " + g.o.against);
    const auto db = g.files.database(fmt::format("{}round{}-{}", pass_prefix(pass), i + 1, a ? "a" : "b"), holds);
    run_suite(a ? g.self : g.other, db, suite(g, only, pass), holds);
    (a ? a_rounds : b_rounds).push_back(load_measured(db, holds));
    if (a) require_measured(g, a_rounds.back(), only, pass, holds);
    if (g.batch_plan.empty()) fix_timing(g, a_rounds.back(), "round 1");
  }
  const auto pool = [&](const std::vector<result_set>& rounds, build side, const std::string& name) {
    std::vector<const result_set*> ptrs;
    for (const auto& r : rounds) ptrs.push_back(&r);
    auto pooled = pool_rounds(ptrs, fmt::format("{} (rounds {})", name, fmt::join(rounds_of(schedule, side), ", ")));
    if (!pooled.dropped.empty())
      g.warnings.push_back(fmt::format("{}{}: {} configurations left out of the pooled rounds: {}",
                                       pass == 0 ? "" : fmt::format("retry {}: ", pass), name, pooled.dropped.size(),
                                       fmt::join(pooled.dropped, "; ")));
    return pooled;
  };
  auto a = pool(a_rounds, build::a, "this build");
  auto b = pool(b_rounds, build::b, g.o.against);
  if (const int n = drop_each_others_left_out(a, b); n > 0)
    g.warnings.push_back(
        fmt::format("{}{} configurations left out of one build's pool were left out of the "
                    "other's too, so both winners are chosen among the same configurations",
                    pass == 0 ? "" : fmt::format("retry {}: ", pass), n));
  return {std::move(a.set), std::move(b.set)};
}

comparison with_gate_warnings(comparison c, const gate_context& g) {
  c.warnings.insert(c.warnings.end(), g.warnings.begin(), g.warnings.end());
  return c;
}

}  // namespace

std::string no_gpu_message(const std::string& why) {
  return fmt::format(
      "no GPU to measure on ({}): the gate times its suites on this machine's GPU; a "
      "compile-validation sweep is not a gate (`cuop-tune sweep --validate-only` runs one)",
      why.empty() ? "no device" : why);
}

std::vector<std::string> missing_problems(const result_set& set, const std::vector<std::string>& wanted) {
  std::set<std::string> verified;
  for (const auto& t : set.trials) verified.insert(t.problem);
  std::vector<std::string> out;
  for (const auto& p : wanted)
    if (!verified.contains(p)) out.push_back(p);
  return out;
}

result_set keep_problems(result_set set, const std::set<std::string>& problems) {
  std::erase_if(set.trials, [&](const measured_trial& t) { return !problems.contains(t.problem); });
  return set;
}

result_set load_gate_baseline(const std::string& baseline, const std::string& gpu,
                              const std::set<std::string>& problems) {
  result_set set;
  try {
    set = load_result_set(baseline, {"", gpu});
  } catch (const error& mine) {
    // Nothing of this GPU model: take the one it has, and let the environment check speak.
    try {
      set = load_result_set(baseline, {});
    } catch (const error&) {
      throw error(fmt::format("{} (looking for results of {}, the GPU measured here)", mine.what(), gpu));
    }
  }
  set = keep_problems(std::move(set), problems);
  if (set.trials.empty())
    throw error(
        fmt::format("{}: none of the gate suites' {} problems has verified results there", baseline, problems.size()));
  return set;
}

runner::batch_plan_map timing_plan(const result_set& reference) {
  runner::batch_plan_map plan;
  for (const auto& [problem, launches] : winner_launches(reference)) plan[problem].launches = launches;
  for (const auto& t : reference.trials) plan[t.problem].by_instance[t.instance] = std::max(1, t.batch);
  return plan;
}

result_set among_candidate_configurations(result_set baseline, const result_set& candidate,
                                          std::vector<std::string>& warnings) {
  // Each verified configuration, and whether it was timed in batches: a baseline trial timed the
  // other way is not the same quantity (comparison.hpp) and is left out too.
  std::map<std::pair<std::string, std::string>, bool> verified;
  for (const auto& t : candidate.trials) verified[{t.problem, t.instance}] = t.batch > 1;
  const auto comparable = [&](const measured_trial& t) {
    const auto it = verified.find({t.problem, t.instance});
    return it != verified.end() && it->second == (t.batch > 1);
  };
  for (const auto& [problem, best] : fastest_per_problem(baseline))
    if (!comparable(*best))
      warnings.push_back(fmt::format(
          "{}: the baseline's best, {} ({:.2f} us), is not among this build's verified configurations of the "
          "suite{}: compared among those only",
          problem, best->instance, best->median_us,
          verified.contains({problem, best->instance}) ? " timed the same way" : ""));
  std::erase_if(baseline.trials, [&](const measured_trial& t) { return !comparable(t); });
  return baseline;
}

result_set among_baseline_configurations(result_set candidate, const result_set& baseline,
                                         std::vector<std::string>& warnings) {
  std::set<std::pair<std::string, std::string>> kept;
  for (const auto& t : baseline.trials) kept.insert({t.problem, t.instance});
  for (const auto& [problem, best] : fastest_per_problem(candidate))
    if (!kept.contains({problem, best->instance}))
      warnings.push_back(
          fmt::format("{}: this build's best, {} ({:.2f} us), has no baseline timed the same way: compared among the "
                      "configurations both have",
                      problem, best->instance, best->median_us));
  std::erase_if(candidate.trials, [&](const measured_trial& t) { return !kept.contains({t.problem, t.instance}); });
  return candidate;
}

namespace {

// The options' own checks, and every sweep file parsed and planned before anything runs: the keys
// of the problems the gate compares.
std::set<std::string> checked_problems(const gate_options& o) {
  if (o.baseline.empty() == o.against.empty())
    throw usage_error("gate needs --baseline PATH or --against OTHER (one of the two)");
  if (o.retries < 0) throw usage_error(fmt::format("--retries must be 0 or more, got {}", o.retries));
  if (!o.against.empty()) abba_schedule(o.cycles);  // checks --cycles before anything runs
  if (std::error_code ec; !o.db.empty() && fs::exists(o.db, ec))
    throw error(o.db +
                ": already exists; the gate measures into a fresh database (remove it or "
                "choose another --db)");
  std::set<std::string> problems;
  for (const auto& file : o.specs) {
    const auto s = spec::load(file);
    runner::plan_sweep(s);  // refused here as its sweep would refuse it
    for (const auto& p : s.problems) problems.insert(p.key(s.op));
  }
  return problems;
}

struct gate_builds {
  std::string self, other;  // this build's cuop-tune and the other's (--against; empty: none)
  trial::device_info dev;   // the device both measure on
};

// The other build first: a protocol mismatch is said whether or not there is a GPU. Both must see
// the same GPU.
gate_builds find_builds(const gate_options& o) {
  gate_builds b;
  trial::device_info other_dev;
  if (!o.against.empty()) {
    b.other = resolve_cuop_tune(o.against);
    other_dev = ask_worker(b.other, o.device);
    require_same_protocol(other_dev, o.against);
  }
  b.self = o.self.empty() ? runner::self_executable() : o.self;
  b.dev = ask_worker(b.self, o.device);
  const auto& dev = b.dev;
  if (!dev.present) throw error(no_gpu_message(dev.error));
  if (!o.against.empty()) {
    if (!other_dev.present)
      throw error(fmt::format("{} finds no GPU ({}) where this build finds {}", o.against, other_dev.error, dev.name));
    if (other_dev.uuid != dev.uuid)
      throw error(fmt::format("{} sees device {} as {} ({}), this build as {} ({})", o.against, o.device,
                              other_dev.name, other_dev.uuid, dev.name, dev.uuid));
  }
  fmt::print(stderr, "cuop-tune: gate: measuring on device {}: {} ({} SMs, driver {})\n", dev.index, dev.name,
             dev.sm_count, dev.driver);
  return b;
}

}  // namespace

comparison run_gate(const gate_options& o) {
  const auto problems = checked_problems(o);
  const gate_builds builds = find_builds(o);
  const auto& dev = builds.dev;
  const auto& self = builds.self;
  const auto& other = builds.other;

  gate_context g{o, o.specs, {problems.begin(), problems.end()}, self, other, gate_files(o.db, o.keep_db), {}, {}};
  gate_notes notes;
  notes.max_retries = o.retries;
  const bool abba = !o.against.empty();
  result_set baseline, candidate;
  // Against a baseline, both sides are compared among the configurations both verified, timed
  // alike (the suite's and the full sweep's differ); its warnings are said once.
  const auto compare_now = [&](bool first) {
    if (abba) return compare(baseline, candidate, o.compare);
    std::vector<std::string> said;
    auto b = among_candidate_configurations(baseline, candidate, said);
    auto c = among_baseline_configurations(candidate, b, said);
    if (first) g.warnings.insert(g.warnings.end(), said.begin(), said.end());
    return compare(b, c, o.compare);
  };
  if (abba) {
    notes.mode = "abba";
    notes.schedule = describe_schedule(abba_schedule(o.cycles));
    std::tie(candidate, baseline) = measure_rounds(g, {}, 0);
  } else {
    notes.mode = "baseline";
    baseline = load_gate_baseline(o.baseline, dev.name, problems);
    fix_timing(g, baseline, "the baseline");
    candidate = measure_this_build(g, {}, 0);
  }
  auto result = compare_now(true);

  retry_counts counts;
  for (int pass = 1; pass <= o.retries; ++pass) {
    const auto targets = select_retries(result);
    if (targets.empty()) break;
    const auto again = retry_problems(targets);
    fmt::print(
        stderr,
        "cuop-tune: gate: retry {} of {}: {} AMBIGUOUS rows, measuring again, pooled with the earlier passes: {}\n",
        pass, o.retries, targets.size(), fmt::join(again, ", "));
    if (abba) {
      auto [a, b] = measure_rounds(g, again, pass);
      candidate = pool_retry(candidate, a, targets);
      baseline = pool_retry(baseline, b, targets);
    } else {
      candidate = pool_retry(candidate, measure_this_build(g, again, pass), targets);
    }
    record_retry_pass(counts, targets, pass);
    notes.retry_passes = pass;
    result = compare_now(false);
  }
  apply_retry_counts(result, counts);
  notes.databases = g.files.kept();
  if (o.keep_db && o.db.empty()) fmt::print(stderr, "cuop-tune: gate: databases kept in {}\n", g.files.folder());
  result.gate = std::move(notes);
  return with_gate_warnings(std::move(result), g);
}

}  // namespace cuop::gate
