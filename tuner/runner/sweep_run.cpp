#include "tuner/runner/sweep_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <thread>

#include "tuner/catalog/catalog.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/process.hpp"
#include "tuner/core/text.hpp"
#include "tuner/ops/family_sources.hpp"
#include "tuner/ops/registry.hpp"

namespace cuop::runner::detail {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_stop_requested{false};

}  // namespace

extern "C" void request_stop(int signal_number) {
  if (g_stop_requested.exchange(true)) {
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
  }
}

bool stop_requested() { return g_stop_requested.load(); }

void check_stop() {
  if (stop_requested()) throw interrupted{};
}

std::string file_hash(const std::string& path) { return compile::hash_hex(core::read_file(path).value_or("")); }

store::problem_record problem_record_of(const spec::sweep& s, const spec::problem& p) {
  store::problem_record r;
  r.key = p.key(s.op);
  r.op = s.op;
  r.dtype = p.dtype;
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& [k, v] : p.dims) dims[k] = v;
  r.dims_json = dims.dump();
  r.bytes = ops::named(s.op).bytes(p);
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

// The sweep target that runs on a device of compute capability `cc`: the arch-specific one where
// the file names both (sm_90a before sm_90).
const compile::target* target_for(const spec::sweep& s, int cc) {
  const compile::target* found = nullptr;
  for (const auto& name : s.targets)
    if (const auto* t = compile::find_target(name); t && t->cc == cc && (!found || t->arch_specific)) found = t;
  return found;
}

std::string write_cubin(const std::string& cache_dir, const std::string& instance, const compile::result& r) {
  const auto path = (fs::path(cache_dir) / "cubins" / fmt::format("{}.{}.cubin", instance, r.cubin_hash)).string();
  if (!fs::exists(path)) core::write_atomically(path, std::string_view(r.cubin.data(), r.cubin.size()));
  return path;
}

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

namespace {

// A configuration's variant: its family, and the values of the family's parameters with named
// values (depthwise's algorithm), which select different code.
std::string variant_of(const catalog::op_desc& desc, const space::point& p) {
  std::string v = p.family;
  if (const auto* fam = desc.find_family(p.family))
    for (const auto& [param, value] : p.params)
      if (fam->choices.contains(param)) v += fmt::format(" {}={}", param, value);
  return v;
}

}  // namespace

void sweep_run::keep_validation_sample() {
  std::map<std::string, std::vector<std::string>> by_variant;  // names in order (m_builds is a map)
  for (const auto& [name, b] : m_builds) by_variant[variant_of(m_op.desc(), b.point)].push_back(name);
  std::set<std::string> kept;
  const auto wanted = static_cast<std::size_t>(m_options.validation_sample);
  for (const auto& [variant, names] : by_variant) {
    const std::size_t n = names.size(), k = std::min(n, wanted);
    for (std::size_t i = 0; i < k; ++i) kept.insert(names[i * n / k]);  // spread over the family
  }
  const std::size_t all = m_builds.size();
  std::erase_if(m_builds, [&](const auto& entry) { return !kept.contains(entry.first); });
  for (auto& instances : m_instances)
    std::erase_if(instances, [&](const std::string& name) { return !kept.contains(name); });
  fmt::print(stderr,
             "[{}] validation sample: {} of {} configurations, at most {} per family and named variant "
             "(--validation-sample 0: all)\n",
             m_spec.op, m_builds.size(), all, wanted);
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
             m_transfer ? fmt::format(", {} left out by the budget ({} per problem{})", m_budgeted,
                                      transfer_params_of(m_spec.transfer).budget.str(),
                                      m_spec.transfer.seconds > 0
                                          ? fmt::format(", {:g} s of measuring in all", m_spec.transfer.seconds)
                                          : std::string())
                        : std::string());
}

std::vector<measure::gpu_environment> sweep_run::environments_before(const measure::environment_limits& limits) {
  std::vector<measure::gpu_environment> before;
  for (const auto& l : m_lanes) {
    before.push_back(settled_environment(*l.worker, limits, l.device));
    const auto& b = before.back();
    if (!b.checked) fmt::print(stderr, "[{}] device {}: environment not checked: {}\n", m_spec.op, l.device, b.error);
    else if (const auto why = measure::assess(b, limits); !why.empty())
      fmt::print(stderr,
                 "cuop-tune: warning: {}: device {} is not fit to measure on ({}): the run will "
                 "be marked invalid\n",
                 core::printable(m_spec.file), l.device, why);
  }
  return before;
}

bool sweep_run::record_environments_after(const std::vector<measure::gpu_environment>& before,
                                          const measure::environment_limits& limits) {
  std::vector<std::string> invalid;
  nlohmann::json record = nlohmann::json::object(), devices = nlohmann::json::array();
  for (std::size_t i = 0; i < m_lanes.size(); ++i) {
    const auto after = check_environment(*m_lanes[i].worker);
    const nlohmann::json checked{
        {"device", m_lanes[i].device}, {"before", measure::to_json(before[i])}, {"after", measure::to_json(after)}};
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
    return false;
  }
  return true;
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
  if (const auto* op = catalog::find_op(m_spec.op))
    info.family_hashes = nlohmann::json(ops::family_source_hashes(*op)).dump();
  m_run_id = m_db.begin_run(info);

  try {
    enumerate();
    if (m_options.validation_sample > 0) {
      if (target) fmt::print(stderr, "[{}] --validation-sample: this run measures every configuration\n", m_spec.op);
      else keep_validation_sample();
    }
    fmt::print(stderr, "[{}] {}: {} problems, {} configurations, targets {}\n", m_spec.op, core::printable(m_spec.file),
               m_spec.problems.size(), m_builds.size(), fmt::join(m_spec.targets, ", "));
    record_rejections();
    if (!target) {
      const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
      compile_all(m_options.jobs > 0 ? static_cast<unsigned>(m_options.jobs) : cores, false);
      if (!m_broken_families.empty()) throw error(fmt::format("{}: {}", m_spec.file, m_broken_families));
    } else {
      // The environment before and after, on every device: a run measured beside other
      // processes, throttled or hot is stored as "invalid" and never trusted (best, export,
      // emit, compare skip it).
      const bool checks = m_spec.measure.env_check;
      const measure::environment_limits limits{static_cast<unsigned>(m_spec.measure.max_temp_c)};
      const auto before = checks ? environments_before(limits) : std::vector<measure::gpu_environment>{};
      measure_with_compilation(*target);
      print_summary();
      if (!m_broken_families.empty()) throw error(fmt::format("{}: {}", m_spec.file, m_broken_families));
      if (checks && !record_environments_after(before, limits)) return exit_code::ok;
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

}  // namespace cuop::runner::detail
