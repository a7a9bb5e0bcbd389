#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <thread>

#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"
#include "tuner/runner/sweep_run.hpp"

namespace cuop::runner::detail {

namespace {

// The compilations of every instance (in `order`) for every target, and the (instance, target)
// pairs left out because the family exists on another target only.
void plan_builds(const std::vector<std::string>& order, const std::map<std::string, candidate_build>& builds,
                 const std::vector<std::string>& targets, std::vector<compile::request>& requests,
                 std::vector<std::pair<std::string, std::string>>& keys,
                 std::vector<std::pair<std::string, std::string>>& elsewhere) {
  for (const auto& name : order) {
    const auto& b = builds.at(name);
    for (const auto& target : targets) {
      if (!b.kernel.only_target.empty() && target != b.kernel.only_target) {
        elsewhere.emplace_back(name, target);
        continue;
      }
      requests.push_back({b.kernel.source, name, target, b.kernel.block_threads, b.kernel.dynamic_smem});
      keys.emplace_back(name, target);
    }
  }
}

store::build_record build_record_of(const std::string& name, const std::string& target, const compile::result& r) {
  return {name,
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
}

// The build of a configuration on a target its family does not exist on: not compiled, rejected
// there as a configuration over the target's limits is.
compile::result rejected_elsewhere(const candidate_build& b) {
  compile::result r;
  r.status = compile::build_status::over_limit;
  r.message = "the family exists on " + b.kernel.only_target + " only";
  return r;
}

// What compiled per target, and the library candidates beside them, on stderr.
void print_build_counts(const std::string& op, const std::map<std::string, std::pair<int, int>>& per_target,
                        std::size_t library, bool gpu) {
  for (const auto& [target, counts] : per_target)
    fmt::print(stderr, "[{}] {}: {} configurations compile and fit, {} rejected\n", op, target, counts.first,
               counts.second);
  if (library > 0)
    fmt::print(stderr, "[{}] {} library candidates: enumerated and verified on the GPU{}\n", op, library,
               gpu ? "" : " (no GPU: skipped)");
}

}  // namespace

void sweep_run::compile_all(unsigned threads, bool beside_measurement) {
  // In problem order, so that the first problems' measurement can start while the rest compile.
  std::vector<std::string> order;
  std::set<std::string> queued;
  for (const auto& instances : m_instances)
    for (const auto& name : instances)
      if (queued.insert(name).second) order.push_back(name);
  std::vector<compile::request> requests;
  std::vector<std::pair<std::string, std::string>> keys;       // instance, target
  std::vector<std::pair<std::string, std::string>> elsewhere;  // the family exists on another target only
  plan_builds(order, m_builds, m_spec.targets, requests, keys, elsewhere);
  report::progress bar(fmt::format("[{}] compile", m_spec.op), requests.size(), stderr, !beside_measurement);
  compile::compiler cc(m_options.cache_dir, compile::default_include_dirs());
  // Compile in slices of a few per thread, so the display moves, every finished slice is stored
  // and an interruption is answered within seconds.
  const std::size_t slice = 4 * threads;
  std::map<std::string, std::pair<int, int>> per_target;                    // ok, failed
  std::map<std::pair<std::string, std::string>, family_builds> per_family;  // (family, target)
  // Stores one build (under m_mutex); `done` gains the instance once every target has its build.
  const auto record = [&](const std::string& name, const std::string& target, compile::result& r,
                          std::set<std::string>& done) {
    m_db.put_build(build_record_of(name, target, r));
    auto& counts = per_target[target];
    (r.status == compile::build_status::ok ? counts.first : counts.second)++;
    per_family[{m_builds.at(name).point.family, target}].add(name, r);
    auto& built = m_builds.at(name).by_target;
    built[target] = std::move(r);
    if (built.size() == m_spec.targets.size()) done.insert(name);
  };
  const auto compiled = [&](const std::set<std::string>& done) {
    {
      std::lock_guard lock(m_build_mutex);
      m_compiled.insert(done.begin(), done.end());
    }
    m_build_ready.notify_all();
  };
  {
    std::set<std::string> done;
    {
      std::lock_guard lock(m_mutex);
      for (const auto& name : order) m_db.put_config(config_record_of(m_spec, m_builds.at(name)));
      for (const auto& [name, target] : elsewhere) {
        compile::result r = rejected_elsewhere(m_builds.at(name));
        record(name, target, r, done);
      }
    }
    compiled(done);
  }
  for (std::size_t i = 0; i < requests.size(); i += slice) {
    const auto end = std::min(requests.size(), i + slice);
    std::vector<compile::request> part(requests.begin() + static_cast<long>(i),
                                       requests.begin() + static_cast<long>(end));
    auto results = cc.build_all(part, static_cast<int>(threads));
    std::set<std::string> done;
    {
      std::lock_guard lock(m_mutex);
      for (std::size_t j = 0; j < results.size(); ++j) record(keys[i + j].first, keys[i + j].second, results[j], done);
      bar.advance(end - i);
    }
    compiled(done);
    if (end < requests.size()) between_trials();  // after the last slice there is nothing to stop
  }
  bar.finish();
  std::size_t library = 0;
  for (const auto& l : m_library) library += l.size();
  print_build_counts(m_spec.op, per_target, library, m_dev.present);
  m_broken_families = broken_families(per_family);
}

void sweep_run::family_builds::add(const std::string& instance, const compile::result& r) {
  if (r.status == compile::build_status::ok) ++ok;
  if (r.status != compile::build_status::compile_error) return;
  ++failed;
  if (messages.size() < 2) messages.push_back(instance + ": " + core::printable(r.message));
}

// A family of which no configuration compiles for a target is a broken kernel (a custom source's
// error, a header that no longer builds), not a space the constraints cut: the sweep reports the
// compiler's first messages and fails once the rest is stored and measured.
std::string sweep_run::broken_families(const std::map<std::pair<std::string, std::string>, family_builds>& per_family) {
  std::vector<std::string> broken;
  for (const auto& [key, f] : per_family)
    if (f.ok == 0 && f.failed > 0)
      broken.push_back(fmt::format("family {} on {}: none of its {} configurations compiles; first errors:\n  {}",
                                   key.first, key.second, f.failed, fmt::join(f.messages, "\n  ")));
  return fmt::format("{}", fmt::join(broken, "\n"));
}

void sweep_run::wait_for_builds(std::size_t problem) {
  const auto complete = [&] {  // under m_build_mutex: the compiler inserts into m_compiled
    return std::ranges::all_of(m_instances[problem], [&](const std::string& n) { return m_compiled.contains(n); });
  };
  std::unique_lock lock(m_build_mutex);
  // Woken by each compiled slice; every 250 ms it also looks for Ctrl-C or another lane's failure.
  while (!m_compile_over && !complete()) {
    m_build_ready.wait_for(lock, std::chrono::milliseconds(250));
    if (stop_requested() || m_abort.load()) break;
  }
  const bool ready = complete();
  lock.unlock();
  between_trials();             // stopped or failed while waiting
  if (!ready) throw aborted{};  // the compiler stopped short (its own error is the one reported)
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

}  // namespace cuop::runner::detail
