// cuop-tune replay SOURCE --budget 10%,25%: the transfer strategy replayed on results where every
// candidate was measured (a database or a results file of an exhaustive or raced sweep): per
// budget, the trials it would have measured and the regret of its choice against the best of all
// (docs/measurement.md, budgeted search; the decisions are tuner/strategy/transfer.hpp's).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/catalog/catalog.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/cli/validators.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/text.hpp"
#include "tuner/gate/result_set.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/store/store.hpp"
#include "tuner/strategy/replay.hpp"

namespace cuop::cli {

namespace {

struct replay_cli {
  std::string source;
  std::string op, gpu;
  std::string budgets;
  int neighbours = 4;
  std::uint64_t seed = 1;
  int seeds = 1;
  std::string prior = "none";
  std::string format = "table";
  bool per_problem = false;
};

constexpr long long max_budget_trials = 1000000;

// "10%,25%" or "12": percentages of each problem's candidates, or trials per problem. Throws
// usage_error (the message without the option's name: CLI11 adds it).
std::vector<strategy::trial_budget> parse_budgets(const std::string& text) {
  std::vector<strategy::trial_budget> out;
  for (std::size_t a = 0, b; a <= text.size(); a = b + 1) {
    b = text.find(',', a);
    if (b == std::string::npos) b = text.size();
    const auto item = text.substr(a, b - a);
    const bool pct = !item.empty() && item.back() == '%';
    const auto number = pct ? item.substr(0, item.size() - 1) : item;
    strategy::trial_budget budget;
    bool ok = false;
    if (pct) {
      double v = 0;
      const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
      ok = !number.empty() && ec == std::errc() && end == number.data() + number.size() && v > 0 && v <= 100;
      budget.fraction = v / 100;
    } else {
      long long v = 0;
      const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
      ok = !number.empty() && ec == std::errc() && end == number.data() + number.size() && v >= 1 &&
           v <= max_budget_trials;
      budget.trials = static_cast<std::size_t>(v);
    }
    if (!ok)
      throw usage_error(
          fmt::format("expected a percentage in (0, 100] (\"25%\") or a whole number of trials per "
                      "problem from 1 to {}, got {}",
                      max_budget_trials, core::quoted(item)));
    out.push_back(budget);
  }
  return out;
}

// The results to replay: a results file, or what `export` would write from a database.
results::result_file load_source(const replay_cli& o) {
  if (const auto kind = core::non_regular_kind(o.source); !kind.empty())
    throw error(fmt::format("{}: not a cuop-tune database nor a results file ({})", core::printable(o.source), kind));
  if (!gate::is_sqlite_file(o.source)) {
    auto f = results::read_results_file(o.source);
    if (!o.op.empty() && f.op != o.op)
      throw error(fmt::format("{}: a results file of op {}, not {}", core::printable(o.source), core::quoted(f.op),
                              core::quoted(o.op)));
    if (!o.gpu.empty() && results::slug(o.gpu) != results::slug(f.gpu))
      throw error(fmt::format("{}: a results file of {}, not {}", core::printable(o.source), core::quoted(f.gpu),
                              core::quoted(o.gpu)));
    return f;
  }
  if (o.op.empty())
    throw usage_error(fmt::format("{}: a database: name the op to replay with --op", core::printable(o.source)));
  auto db = store::database::open(o.source, store::open_mode::read_only);
  auto files = results::database_results(*db, o.op, o.source);
  std::erase_if(files, [&](const results::result_file& f) {
    return f.gpu.empty() || (!o.gpu.empty() && results::slug(o.gpu) != results::slug(f.gpu));
  });
  if (files.empty())
    throw error(fmt::format("{}: no timed trial of op {}{}", core::printable(o.source), core::quoted(o.op),
                            o.gpu.empty() ? "" : " on " + core::quoted(o.gpu)));
  if (files.size() > 1) {
    std::string gpus;
    for (const auto& f : files) gpus += (gpus.empty() ? "" : ", ") + core::quoted(f.gpu);
    throw usage_error(
        fmt::format("{}: results of several GPU models ({}): choose one with --gpu", core::printable(o.source), gpus));
  }
  return std::move(files.front());
}

// Per problem: its shape, baseline, every configuration measured (failures too; constraint
// rejections and configurations that did not compile cost no trial) and the verified ones.
std::vector<strategy::replay_problem> problems_of(const results::result_file& f) {
  const auto* op = catalog::find_op(f.op);
  if (!op || !op->features_of) throw error(fmt::format("op {} cannot be replayed", core::quoted(f.op)));
  std::map<std::string, strategy::replay_problem> by_key;
  for (const auto& t : f.trials) {
    if (t.status == "rejected" || t.status == "not_built") continue;
    auto& p = by_key[t.problem];
    if (p.shape.key.empty()) {
      const catalog::dim_values dims(t.dims.begin(), t.dims.end());
      p.shape = {t.problem, op->group_of(t.dtype, dims), op->features_of(dims)};
      p.baseline = op->baseline_of(t.dtype, dims, f.cc);
    }
    p.candidates.push_back(t.instance);
    // A raced candidate dropped as clearly slower is verified too; results files keep no timing
    // of it, and then it is a trial without an outcome.
    if ((t.status == "ok" || t.status == "dropped_race") && t.median_us > 0)
      p.verified[t.instance] = {t.instance, t.median_us, t.ci_lo_us, t.ci_hi_us};
  }
  std::vector<strategy::replay_problem> out;
  for (auto& [key, p] : by_key) out.push_back(std::move(p));
  return out;
}

std::string percent(double v) { return fmt::format("{:.1f}%", v * 100); }

// A table as markdown or as aligned text; `right` per column.
void print_table(bool md, const std::vector<std::string>& head, const std::vector<bool>& right,
                 const std::vector<std::vector<std::string>>& rows) {
  if (md) {
    std::string line = "|", rule = "|";
    for (std::size_t c = 0; c < head.size(); ++c) {
      line += " " + head[c] + " |";
      rule += right[c] ? " ---: |" : " --- |";
    }
    fmt::print("{}\n{}\n", line, rule);
    for (const auto& r : rows) {
      std::string out = "|";
      for (const auto& cell : r) out += " " + cell + " |";
      fmt::print("{}\n", out);
    }
    return;
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  const auto print_row = [&](const std::vector<std::string>& r) {
    std::string out;
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (c) out += "  ";
      out += right[c] ? fmt::format("{:>{}}", r[c], width[c]) : fmt::format("{:<{}}", r[c], width[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    fmt::print("{}\n", out);
  };
  print_row(head);
  for (const auto& r : rows) print_row(r);
}

nlohmann::json to_json(const strategy::replay_summary& s) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : s.rows) {
    nlohmann::json row{{"problem", r.key},
                       {"visit", r.visit},
                       {"candidates", r.candidates},
                       {"measured", r.used},
                       {"from_neighbours", r.neighbour_picks},
                       {"baseline_measured", r.baseline_measured},
                       {"best", r.best},
                       {"best_us", r.best_us},
                       {"chosen", r.chosen},
                       {"chosen_us", r.chosen_us}};
    row["regret"] = r.scored() ? nlohmann::json(r.regret()) : nlohmann::json(nullptr);
    rows.push_back(std::move(row));
  }
  nlohmann::json budget = s.budget.trials > 0 ? nlohmann::json{{"trials_per_problem", s.budget.trials}}
                                              : nlohmann::json{{"fraction", s.budget.fraction}};
  return {{"budget", budget},
          {"trials", s.trials},
          {"exhaustive_trials", s.exhaustive_trials},
          {"trials_fraction", s.fraction()},
          {"scored", s.scored},
          {"missed", s.missed},
          {"unscored", s.unscored},
          {"geomean_regret", s.geomean_regret},
          {"worst_regret", s.worst_regret},
          {"worst_problem", s.worst},
          {"within_5pct", s.within_5},
          {"best_found", s.exact},
          {"problems", rows}};
}

// One budget replayed with each seed.
struct budget_runs {
  strategy::trial_budget budget;
  std::vector<std::uint64_t> seeds;
  std::vector<strategy::replay_summary> runs;  // per seed

  double mean_regret() const {
    double sum = 0;
    for (const auto& r : runs) sum += r.geomean_regret;
    return runs.empty() ? 0 : sum / static_cast<double>(runs.size());
  }
  std::pair<double, double> regret_range() const {
    double lo = runs.front().geomean_regret, hi = lo;
    for (const auto& r : runs) {
      lo = std::min(lo, r.geomean_regret);
      hi = std::max(hi, r.geomean_regret);
    }
    return {lo, hi};
  }
  const strategy::replay_summary& worst() const {
    const auto* w = &runs.front();
    for (const auto& r : runs)
      if (r.worst_regret > w->worst_regret) w = &r;
    return *w;
  }
  std::size_t total(std::size_t strategy::replay_summary::*field) const {
    std::size_t n = 0;
    for (const auto& r : runs) n += r.*field;
    return n;
  }
};

void print_json(const replay_cli& o, const results::result_file& file, std::size_t problems,
                const std::vector<budget_runs>& results) {
  const std::size_t exhaustive = results.front().runs.front().exhaustive_trials;
  nlohmann::json out{{"source", o.source},
                     {"op", file.op},
                     {"gpu", file.gpu},
                     {"strategy", "transfer"},
                     {"neighbours", o.neighbours},
                     {"seeds", results.front().seeds},
                     {"prior", o.prior},
                     {"problems", problems},
                     {"exhaustive_trials", exhaustive},
                     {"budgets", nlohmann::json::array()}};
  for (const auto& r : results) {
    const auto [lo, hi] = r.regret_range();
    nlohmann::json runs = nlohmann::json::array();
    for (std::size_t i = 0; i < r.runs.size(); ++i) {
      auto run = to_json(r.runs[i]);
      run["seed"] = r.seeds[i];
      runs.push_back(std::move(run));
    }
    out["budgets"].push_back({{"budget", to_json(r.runs.front())["budget"]},
                              {"trials", r.runs.front().trials},
                              {"trials_fraction", r.runs.front().fraction()},
                              {"geomean_regret_mean", r.mean_regret()},
                              {"geomean_regret_min", lo},
                              {"geomean_regret_max", hi},
                              {"runs", runs}});
  }
  fmt::print("{}\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

void print_summary(const replay_cli& o, const results::result_file& file, std::size_t problems,
                   const std::vector<budget_runs>& results) {
  const std::size_t exhaustive = results.front().runs.front().exhaustive_trials;
  const bool md = o.format == "markdown";
  const bool several = o.seeds > 1;
  fmt::print("transfer replayed on {} ({} on {}): {} problems, {} trials exhaustive; {} {}, {}, {}\n\n",
             core::printable(o.source), file.op, core::printable(file.gpu), problems, exhaustive, o.neighbours,
             o.neighbours == 1 ? "neighbour" : "neighbours",
             several ? fmt::format("seeds {} to {} (regret: their mean; counts: their sum)",
                                   results.front().seeds.front(), results.front().seeds.back())
                     : fmt::format("seed {}", o.seed),
             o.prior == "exhaustive" ? "every other problem known in full" : "nothing known before");
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : results) {
    const auto& first = r.runs.front();
    const auto& worst = r.worst();
    const auto [lo, hi] = r.regret_range();
    std::vector<std::string> row = {first.budget.str(), std::to_string(first.trials), percent(first.fraction()),
                                    percent(r.mean_regret())};
    if (several) row.push_back(fmt::format("{} - {}", percent(lo), percent(hi)));
    row.push_back(
        worst.worst.empty() ? "-" : fmt::format("{} {}", percent(worst.worst_regret), core::printable(worst.worst)));
    const auto scored = r.total(&strategy::replay_summary::scored);
    row.push_back(fmt::format("{}/{}", r.total(&strategy::replay_summary::within_5), scored));
    row.push_back(fmt::format("{}/{}", r.total(&strategy::replay_summary::exact), scored));
    row.push_back(std::to_string(r.total(&strategy::replay_summary::missed)));
    rows.push_back(std::move(row));
  }
  std::vector<std::string> head = {"budget", "trials", "of exhaustive", "geomean regret"};
  std::vector<bool> right = {false, true, true, true};
  if (several) {
    head.push_back("range");
    right.push_back(true);
  }
  for (const char* h : {"worst regret", "within 5%", "best found", "missed"}) head.push_back(h);
  for (const bool b : {false, true, true, true}) right.push_back(b);
  print_table(md, head, right, rows);
}

void print_per_problem(bool md, const std::vector<budget_runs>& results) {
  for (const auto& r : results) {
    const auto& s = r.runs.front();
    fmt::print("\nbudget {}, seed {}\n\n", s.budget.str(), r.seeds.front());
    std::vector<std::vector<std::string>> detail;
    for (const auto& row : s.rows)
      detail.push_back({core::printable(row.key), fmt::format("{}/{}", row.used, row.candidates),
                        std::to_string(row.neighbour_picks), row.baseline_measured ? "yes" : "no",
                        row.chosen.empty() ? "-" : core::printable(row.chosen),
                        row.best.empty() ? "-" : core::printable(row.best),
                        row.scored() ? percent(row.regret()) : (row.best.empty() ? "-" : "missed")});
    print_table(md, {"problem", "measured", "from neighbours", "baseline", "chosen", "best", "regret"},
                {false, true, true, false, false, false, true}, detail);
  }
}

int run_replay(const replay_cli& o) {
  const auto budgets = parse_budgets(o.budgets);  // checked already, as the command line was read
  const auto file = load_source(o);
  const auto problems = problems_of(file);
  const auto prior = o.prior == "exhaustive" ? strategy::prior_knowledge::exhaustive : strategy::prior_knowledge::none;
  std::vector<budget_runs> results;
  for (const auto& b : budgets) {
    budget_runs r{b, {}, {}};
    for (int i = 0; i < o.seeds; ++i) {
      const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(i);  // wraps past 2^64 - 1, as unsigned does
      r.seeds.push_back(seed);
      r.runs.push_back(strategy::replay_transfer(problems, {b, o.neighbours, seed}, prior));
    }
    results.push_back(std::move(r));
  }
  if (o.format == "json") print_json(o, file, problems.size(), results);
  else print_summary(o, file, problems.size(), results);
  if (o.format != "json" && o.per_problem) print_per_problem(o.format == "markdown", results);
  return exit_code::ok;
}

}  // namespace

void add_replay(CLI::App& app, action& run) {
  auto* cmd = app.add_subcommand(
      "replay", "Replay strategy: transfer under trial budgets on complete results; print trials and regret");
  auto o = std::make_shared<replay_cli>();
  cmd->add_option("source", o->source, "A database or a results file where every candidate was measured")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--budget", o->budgets,
                  "Trial budgets, comma-separated: a percentage of each problem's candidates (\"25%\") or "
                  "trials per problem (\"12\")")
      ->required()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              parse_budgets(text);
            } catch (const usage_error& e) {
              return e.what();
            }
            return {};
          },
          "BUDGETS"));
  cmd->add_option("--op", o->op, "The operator (required for a database)")->check(CLI::IsMember(catalog::op_names()));
  cmd->add_option("--gpu", o->gpu, "The GPU model, when a database holds several");
  cmd->add_option("--neighbours", o->neighbours, "Nearest measured problems whose winners are tried (default 4)")
      ->transform(whole_number(0, 64));
  cmd->add_option("--seed", o->seed, "Seed of the random order (default 1)")->transform(unsigned_64());
  cmd->add_option("--seeds", o->seeds,
                  "Replay with this many seeds, --seed and the next ones; report the mean regret and its range "
                  "(default 1)")
      ->transform(whole_number(1, 1000));
  cmd->add_option("--prior", o->prior,
                  "What is known before: none (default; each problem learns from what was measured at those "
                  "visited before it) or exhaustive (every other problem, measured in full)")
      ->check(CLI::IsMember({"none", "exhaustive"}));
  cmd->add_option("--format", o->format, "table (default), markdown or json")
      ->check(CLI::IsMember({"table", "markdown", "json"}));
  cmd->add_flag("--per-problem", o->per_problem, "Also print every problem's trials, choice and regret");
  cmd->callback([&run, o] { run = [o] { return run_replay(*o); }; });
}

}  // namespace cuop::cli
