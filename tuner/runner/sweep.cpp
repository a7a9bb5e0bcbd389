#include "tuner/runner/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/process.hpp"
#include "tuner/core/text.hpp"
#include "tuner/runner/device_pool.hpp"
#include "tuner/runner/environment.hpp"
#include "tuner/runner/sweep_run.hpp"

namespace cuop::runner {

namespace {

using detail::lane;
using detail::sweep_run;

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

// The files to sweep, each with its plan: `--only` keeps the problems whose key contains one of
// its comma-separated texts (a file left without any is skipped, said on stderr).
void load_sweeps(const sweep_options& o, std::vector<spec::sweep>& specs, std::vector<sweep_plan>& plans) {
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
}

// The workers: one per device asked for (--device N, or --devices), each asked what it sees.
struct worker_set {
  std::vector<std::unique_ptr<worker_process>> workers;
  std::vector<trial::device_info> devices;
  std::string no_gpu;  // why nothing is measured; empty when the devices can measure
};

worker_set start_workers(const sweep_options& o) {
  worker_set w;
  auto& workers = w.workers;
  auto& devices = w.devices;
  auto& no_gpu = w.no_gpu;
  const auto start = [&](int index) {
    workers.push_back(std::make_unique<worker_process>(index));
    const auto hello = workers.back()->call({{"cmd", "hello"}}, 120);
    trial::device_info d = hello.kind == worker_process::outcome_kind::answered
                               ? trial::device_info_from_json(hello.answer)
                               : trial::device_info{};
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
  return w;
}

// Each file on each pool of identical GPUs in turn.
void measure_on_pools(const sweep_options& o, const std::vector<spec::sweep>& specs,
                      const std::vector<sweep_plan>& plans, store::database& db, const batch_plan_map& batch_plan,
                      const std::vector<device_pool>& pools, const worker_set& w) {
  const auto& workers = w.workers;
  const auto& devices = w.devices;
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
      auto env = runner::describe_environment(pool.devices.front());
      env.gpu_uuid = pool.uuid();
      std::vector<lane> lanes;
      for (const auto& member : pool.devices)
        for (std::size_t i = 0; i < devices.size(); ++i)
          if (devices[i].index == member.index) lanes.push_back({workers[i].get(), member.index});
      sweep_run(s, plans[i], o, db, env, pool.devices.front(), std::move(lanes), batch_plan).execute();
    }
  }
}

}  // namespace

int run_sweep(const sweep_options& o) {
  if (!o.shard.empty()) parse_shard(o.shard);  // a bad --shard is refused before anything runs
  const auto batch_plan = o.batch_plan.empty() ? batch_plan_map{} : read_batch_plan(o.batch_plan);
  std::vector<spec::sweep> specs;
  std::vector<sweep_plan> plans;  // one per spec
  load_sweeps(o, specs, plans);
  if (specs.empty()) throw error(fmt::format("no problem of any file matches --only {}", core::quoted(o.only)));
  // The cubin cache is written by every compilation: a file in its place, a folder without write
  // permission or a full disk would otherwise make every build a compile_error of a finished run.
  core::require_writable_folder(o.cache_dir, "--cache");
  auto db = store::database::open(o.db_path, store::open_mode::read_write);
  interrupt_abandoned_runs(*db, core::host_name());

  const worker_set w = start_workers(o);
  const auto& no_gpu = w.no_gpu;
  const auto pools = no_gpu.empty() ? pools_by_model(w.devices) : std::vector<device_pool>{};
  std::signal(SIGINT, detail::request_stop);
  std::signal(SIGTERM, detail::request_stop);
  if (pools.empty()) {
    fmt::print(stderr, "cuop-tune: no GPU to measure on ({}): running the compile-validation sweep only\n", no_gpu);
    trial::device_info none;
    none.error = no_gpu;
    const auto env = runner::describe_environment(none);
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
  measure_on_pools(o, specs, plans, *db, batch_plan, pools, w);
  return exit_code::ok;
}

}  // namespace cuop::runner
