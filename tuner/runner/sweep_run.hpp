// A sweep's run of one file on one device pool (or, without a GPU, its compile-validation), as
// run_sweep (sweep.hpp) drives it: enumerate the planned points, compile them (beside the
// measurement when there is a GPU), measure each problem's candidates on one lane, store every
// trial, check the GPU's state before and after. Split by phase: sweep_run.cpp (the run),
// sweep_compile.cpp, sweep_measure.cpp.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tuner/compile/compile.hpp"
#include "tuner/measure/environment_check.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/runner/batch_plan.hpp"
#include "tuner/runner/progress.hpp"
#include "tuner/runner/race.hpp"
#include "tuner/runner/shard.hpp"
#include "tuner/runner/sweep.hpp"
#include "tuner/runner/sweep_plan.hpp"
#include "tuner/runner/transfer_knowledge.hpp"
#include "tuner/runner/worker_process.hpp"
#include "tuner/space/space.hpp"
#include "tuner/store/store.hpp"
#include "tuner/trial/protocol.hpp"

namespace cuop::runner::detail {

// Ctrl-C / SIGTERM (request_stop, installed by run_sweep): finish the trial in flight, mark the
// run interrupted, stop. A second signal kills at once (nothing is lost either way: every
// finished trial is already committed).
extern "C" void request_stop(int signal_number);
struct interrupted {};
struct aborted {};  // another lane of the sweep failed: this one stops quietly
bool stop_requested();
void check_stop();  // throws interrupted once a stop was requested

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

std::string file_hash(const std::string& path);
store::problem_record problem_record_of(const spec::sweep& s, const spec::problem& p);
store::config_record config_record_of(const spec::sweep& s, const candidate_build& b);
// A library configuration as the worker lists it: {"instance", "family", "params"}.
store::config_record config_record_of(const spec::sweep& s, const std::string& dtype, const nlohmann::json& listed);
// The sweep target that runs on a device of compute capability `cc`.
const compile::target* target_for(const spec::sweep& s, int cc);
std::string write_cubin(const std::string& cache_dir, const std::string& instance, const compile::result& r);

class sweep_run {
 public:
  // `lanes`: one per device of the pool whose first device is `dev` (none: compile-validation).
  sweep_run(const spec::sweep& s, const sweep_plan& plan, const sweep_options& o, store::database& db,
            const store::environment& env, const trial::device_info& dev, std::vector<lane> lanes,
            const batch_plan_map& batch_plan)
      : m_spec(s),
        m_plan(plan),
        m_options(o),
        m_db(db),
        m_env(env),
        m_dev(dev),
        m_lanes(std::move(lanes)),
        m_op(ops::named(s.op)),
        m_shard(o.shard.empty() ? shard{} : parse_shard(o.shard)),
        m_batch_plan(batch_plan) {
    if (s.strategy == "transfer") m_transfer = std::make_unique<transfer_knowledge>(s);
  }

  int execute();

 private:
  void enumerate();
  // Keeps sweep_options::validation_sample configurations per family (compile-validation only).
  void keep_validation_sample();
  // Compiles every instance for every target, the instances of the first problems first; with
  // a GPU it runs beside the measurement (measure_with_compilation), which waits per problem.
  void compile_all(unsigned threads, bool beside_measurement);
  // Per (family, target): how many configurations compiled, how many failed to, the first errors.
  struct family_builds {
    int ok = 0, failed = 0;
    std::vector<std::string> messages;
    void add(const std::string& instance, const compile::result& r);
  };
  static std::string broken_families(const std::map<std::pair<std::string, std::string>, family_builds>& per_family);
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
  trial::trial_response call(const lane& l, const trial::trial_request& request);
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
  // The checks before the run: each lane's environment, said when it is not fit to measure on.
  std::vector<measure::gpu_environment> environments_before(const measure::environment_limits& limits);
  // The checks after: recorded with the run; false when they make the run invalid (then finished so).
  bool record_environments_after(const std::vector<measure::gpu_environment>& before,
                                 const measure::environment_limits& limits);
  // What every trial of `problem` asks the worker, less its configuration.
  trial::trial_request base_request(std::size_t problem) const;

  const spec::sweep& m_spec;
  const sweep_plan& m_plan;  // worked out before the run began (plan_sweep)
  const sweep_options& m_options;
  store::database& m_db;
  const store::environment& m_env;
  const trial::device_info& m_dev;
  std::vector<lane> m_lanes;
  const ops::op& m_op;
  shard m_shard;  // the configurations this run measures
  const batch_plan_map& m_batch_plan;
  std::int64_t m_run_id = 0;
  std::string m_broken_families;                      // compile_all: the families none of whose configurations compile
  std::vector<std::vector<std::string>> m_instances;  // per problem: accepted kernel instances
  std::vector<std::vector<space::point>> m_library;   // per problem: library candidates
  std::map<std::string, candidate_build> m_builds;    // by instance name
  std::map<std::string, std::pair<std::string, double>> m_best;  // problem -> instance, median
  int m_measured = 0, m_failed = 0, m_skipped = 0;
  int m_budgeted = 0;                              // strategy: transfer: candidates its budget left out
  std::unique_ptr<transfer_knowledge> m_transfer;  // strategy: transfer only
  // budget: {seconds: S}: when measuring began, and the problems not begun yet.
  std::chrono::steady_clock::time_point m_measure_start;
  std::atomic<std::size_t> m_problems_left{0};
  // The lanes and the compiler share the database, the display and the counts above: one lock.
  std::mutex m_mutex;
  // Compilation beside measurement: instances compiled for every target so far.
  std::mutex m_build_mutex;
  std::condition_variable m_build_ready;
  std::set<std::string> m_compiled;
  bool m_compile_over = false;  // finished, failed or stopped: nothing more will be compiled
  std::atomic<bool> m_abort{false};
};

}  // namespace cuop::runner::detail
