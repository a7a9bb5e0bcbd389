// cuop-tune best: the fastest verified configuration per problem and GPU model, with its speed-up
// over the first configuration measured for that problem on that GPU, and the configurations it
// ties with (95% CIs of the median overlapping its own). It reads the trials `export` (hence
// `emit`) reads, results::current_trials: per GPU model and problem the newest environment's,
// the newest trial per configuration. Timings from different GPU models are never compared with
// each other; trials of runs marked invalid are not trusted at all.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/catalog/catalog.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/cli/validators.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/report/csv.hpp"
#include "tuner/results/current_trials.hpp"
#include "tuner/store/store.hpp"
#include "tuner/strategy/race.hpp"

namespace cuop::cli {

namespace {

// TFLOP/s of a trial for compute ops (GEMM), else its GB/s: the rate that says how good it is.
double rate_of(const ops::op& op, const store::trial_record& t) {
  spec::problem p;
  p.dtype = t.problem.dtype;
  p.dims = nlohmann::json::parse(t.problem.dims_json).get<std::map<std::string, std::int64_t>>();
  const double flops = op.flops(p);
  return flops > 0 ? flops / t.median_us / 1e6 : t.gbps;
}

struct best_row {
  const store::trial_record* best = nullptr;
  const store::trial_record* first = nullptr;
  int ok = 0, total = 0;
  std::vector<const store::trial_record*> verified;  // the ok trials, in trial order
};

// The instances whose CI overlaps the best's (ties_with_leader over the verified trials).
std::vector<std::string> ties_of(const best_row& r) {
  std::vector<strategy::race_entry> entries;
  for (const auto* t : r.verified) entries.push_back({t->median_us, t->ci_lo_us, t->ci_hi_us});
  std::vector<std::string> out;
  for (const auto i : strategy::ties_with_leader(entries)) out.push_back(r.verified[i]->config.instance);
  std::sort(out.begin(), out.end());
  return out;
}

using best_rows = std::map<std::pair<std::string, std::string>, best_row>;  // by (gpu, problem key)

// What best reports: the current trials per GPU model (owned here: the rows point into them).
struct best_data {
  std::map<std::string, results::gpu_results> current;
  best_rows rows;
};

// Says on stderr which runs' trials are not trusted: those of runs whose environment failed the
// checks (current_trials leaves them out).
void report_invalid_runs(store::database& db, const std::vector<store::trial_record>& trials) {
  std::map<std::int64_t, const store::run_info*> invalid;
  const auto runs = db.runs();
  for (const auto& run : runs)
    if (run.state == "invalid") invalid[run.id] = &run;
  std::map<std::int64_t, int> ignored;  // trials of invalid runs, per run
  for (const auto& t : trials)
    if (t.status != "rejected" && invalid.contains(t.run_id)) ++ignored[t.run_id];
  for (const auto& [id, count] : ignored)
    fmt::print(
        stderr, "cuop-tune: run {} is invalid ({}): its {} {} not trusted\n", id,
        invalid.at(id)->state_reason.empty() ? "no reason stored" : core::printable(invalid.at(id)->state_reason),
        count, count == 1 ? "trial is" : "trials are");
}

// The verified trials of each (gpu, problem) among the current ones; compile-validation runs
// (no GPU) time nothing.
best_data collect_rows(store::database& db, const std::string& op) {
  best_data d;
  d.current = results::current_trials(db, op, false);
  for (const auto& [slug, g] : d.current) {
    if (g.runs.empty() || g.runs.front().env.gpu_name.empty()) continue;
    const auto& gpu = g.runs.front().env.gpu_name;
    for (const auto& t : g.trials) {
      auto& r = d.rows[{gpu, t.problem.key}];
      ++r.total;
      if (t.status != "ok") continue;
      ++r.ok;
      r.verified.push_back(&t);
      if (!r.first || t.id < r.first->id) r.first = &t;
      if (!r.best || t.median_us < r.best->median_us) r.best = &t;
    }
  }
  return d;
}

void print_json(const best_rows& rows, const ops::op& op, bool compute) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, r] : rows) {
    if (!r.best) continue;
    out.push_back({{"gpu", key.first},
                   {"problem", key.second},
                   {"instance", r.best->config.instance},
                   {"median_us", r.best->median_us},
                   {"gbps", r.best->gbps},
                   {compute ? "tflops" : "rate_gbps", rate_of(op, *r.best)},
                   {"speedup_over_first", r.first->median_us / r.best->median_us},
                   {"ok", r.ok},
                   {"trials", r.total},
                   {"env_key", r.best->env_key},
                   {"ci_us", {r.best->ci_lo_us, r.best->ci_hi_us}},
                   {"ties", ties_of(r)}});
  }
  // A database is anyone's file: a GPU name that is not UTF-8 is shown, not an exception.
  fmt::print("{}\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

void print_csv(const best_rows& rows, const ops::op& op, bool compute) {
  using report::csv_number, report::csv_text;
  fmt::print("{}", report::csv_row({"gpu", "problem", "instance", "median_us", "ci_lo_us", "ci_hi_us", "gbps",
                                    compute ? "tflops" : "rate_gbps", "speedup_over_first", "ok", "trials", "ties"}));
  for (const auto& [key, r] : rows) {
    if (!r.best) {
      fmt::print("{}", report::csv_row({csv_text(key.first), csv_text(key.second), "", "", "", "", "", "", "",
                                        std::to_string(r.ok), std::to_string(r.total), ""}));
      continue;
    }
    const auto ties = ties_of(r);
    std::string tied;
    for (const auto& t : ties) tied += (tied.empty() ? "" : " ") + t;
    fmt::print(
        "{}", report::csv_row({csv_text(key.first), csv_text(key.second), csv_text(r.best->config.instance),
                               csv_number(r.best->median_us), csv_number(r.best->ci_lo_us),
                               csv_number(r.best->ci_hi_us), csv_number(r.best->gbps), csv_number(rate_of(op, *r.best)),
                               csv_number(r.first->median_us / r.best->median_us), std::to_string(r.ok),
                               std::to_string(r.total), csv_text(tied)}));
  }
}

void print_gpu_heading(const std::string& gpu, bool compute, bool md) {
  const char* unit = compute ? "TFLOP/s" : "GB/s";
  if (md)
    fmt::print(
        "\n{}\n\n| problem | best configuration | median us | {}{} | vs first | ok/trials | ties |\n"
        "| --- | --- | ---: | ---: |{} ---: | ---: | ---: |\n",
        core::printable(gpu), unit, compute ? " | GB/s" : "", compute ? " ---: |" : "");
  else
    fmt::print("\n{}\n{:<28} {:<40} {:>10} {:>8}{} {:>9} {:>10} {:>5}\n", core::printable(gpu), "problem",
               "best configuration", "median us", unit, compute ? fmt::format(" {:>8}", "GB/s") : "", "vs first",
               "ok/trials", "ties");
}

// Text or markdown, a table per GPU. Names come from the database, which anyone can hand over:
// shown escaped.
void print_table(const best_rows& rows, const ops::op& op, bool compute, bool md) {
  std::string gpu;
  for (const auto& [gpu_and_key, r] : rows) {
    const auto key = core::printable(gpu_and_key.second);
    if (gpu_and_key.first != gpu) {
      gpu = gpu_and_key.first;
      print_gpu_heading(gpu, compute, md);
    }
    const std::string counts = fmt::format("{}/{}", r.ok, r.total);
    if (!r.best) {
      if (md) fmt::print("| {} | (none verified) | | | | {} | |\n", key, counts);
      else
        fmt::print("{:<28} {:<40} {:>10} {:>8} {:>9} {:>10} {:>5}\n", key, "(none verified)", "-", "-", "-", counts,
                   "-");
      continue;
    }
    const double speedup = r.first->median_us / r.best->median_us;
    // Compute ops show GB/s as well: a depthwise convolution is memory-bound, so its bandwidth
    // says more than its (small) TFLOP/s.
    const std::string gbps = !compute ? ""
                             : md     ? fmt::format(" | {:.0f}", r.best->gbps)
                                      : fmt::format(" {:>8.0f}", r.best->gbps);
    // Ties: how many others the data cannot tell from the best (their CIs overlap its own).
    const auto ties = ties_of(r);
    const std::string tied = ties.empty() ? "-" : std::to_string(ties.size());
    if (md)
      fmt::print("| {} | `{}` | {:.2f} | {:.{}f}{} | {:.2f}x | {} | {} |\n", key,
                 core::printable(r.best->config.instance), r.best->median_us, rate_of(op, *r.best), compute ? 1 : 0,
                 gbps, speedup, counts, tied);
    else
      fmt::print("{:<28} {:<40} {:>10.2f} {:>8.{}f}{} {:>8.2f}x {:>10} {:>5}\n", key,
                 core::printable(r.best->config.instance), r.best->median_us, rate_of(op, *r.best), compute ? 1 : 0,
                 gbps, speedup, counts, tied);
  }
}

// The op `best` reports on: the one named, else the one the database holds (the registry's
// first when it holds none: nothing to report either way).
std::string op_to_report(store::database& db, const std::string& db_path, const std::string& named) {
  if (!named.empty()) return named;
  const auto held = ops_in_database(db);
  if (held.size() > 1)
    throw usage_error(fmt::format("{}: the database holds several ops ({}): name one with --op",
                                  core::printable(db_path), fmt::join(held, ", ")));
  return held.empty() ? catalog::op_names().front() : held.front();
}

int run_best(const std::string& db_path, const std::string& named_op, const std::string& format) {
  auto db = store::database::open(db_path, store::open_mode::read_only);
  const std::string op_name = op_to_report(*db, db_path, named_op);
  store::trial_filter filter;
  filter.op = op_name;
  const auto trials = db->trials(filter);
  const auto& op = ops::named(op_name);
  spec::problem probe;
  probe.dtype = "bf16";
  for (const auto& d : op.desc().problem_dims) probe.dims[d] = 1;
  const bool compute = op.flops(probe) > 0;
  report_invalid_runs(*db, trials);
  const auto data = collect_rows(*db, op_name);
  const auto& rows = data.rows;
  // An empty answer says why, so that it is not taken for a failure to read the database.
  if (rows.empty())
    fmt::print(stderr, "cuop-tune: {}: no timed trial of op \"{}\" (compile-validation runs time nothing)\n",
               core::printable(db_path), op_name);
  if (format == "json") print_json(rows, op, compute);
  else if (format == "csv") print_csv(rows, op, compute);
  else print_table(rows, op, compute, format == "markdown");
  return 0;
}

}  // namespace

void add_best(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand("best", "Print the best configuration per problem");
  auto db = std::make_shared<std::string>(default_db_path());
  auto op = std::make_shared<std::string>();  // empty: the one op the database holds
  auto format = std::make_shared<std::string>("table");
  cmd->add_option("--db", *db, "SQLite database")->check(non_empty_path());
  cmd->add_option("--op", *op, "Operator (default: the one the database holds)")
      ->check(CLI::IsMember(catalog::op_names()));
  cmd->add_option("--format", *format, "table, markdown, json or csv")
      ->check(CLI::IsMember({"table", "markdown", "json", "csv"}));
  cmd->callback([&run, db, op, format] { run = [db, op, format] { return run_best(*db, *op, *format); }; });
}

}  // namespace cuop::cli
