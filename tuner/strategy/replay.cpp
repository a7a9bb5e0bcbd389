#include "tuner/strategy/replay.hpp"

#include <algorithm>
#include <cmath>

namespace cuop::strategy {

namespace {

const outcome* fastest(const std::map<std::string, outcome>& verified, std::span<const pick> among) {
  const outcome* best = nullptr;
  for (const auto& p : among)
    if (const auto it = verified.find(p.instance); it != verified.end())
      if (!best || it->second.median_us < best->median_us) best = &it->second;
  return best;
}

const outcome* fastest(const std::map<std::string, outcome>& verified) {
  const outcome* best = nullptr;
  for (const auto& [instance, o] : verified)
    if (!best || o.median_us < best->median_us) best = &o;
  return best;
}

}  // namespace

replay_summary replay_transfer(std::span<const replay_problem> problems, const transfer_params& params,
                               prior_knowledge prior) {
  replay_summary out;
  out.budget = params.budget;
  std::vector<shape_point> shapes;
  for (const auto& p : problems) shapes.push_back(p.shape);
  std::vector<measured_problem> known;  // what the strategy measured, in visit order
  double log_sum = 0;
  const auto order = visit_order(shapes);
  // prior_knowledge::exhaustive: every problem with all its verified trials; a problem's own
  // entry is emptied while it is replayed (a problem without verified trials is no neighbour).
  std::vector<measured_problem> everything;
  if (prior == prior_knowledge::exhaustive)
    for (const auto& p : problems) {
      everything.push_back({p.shape, {}});
      for (const auto& [instance, o] : p.verified) everything.back().verified.push_back(o);
    }
  for (std::size_t visit = 0; visit < order.size(); ++visit) {
    const auto& p = problems[order[visit]];
    std::vector<outcome> own;
    if (prior == prior_knowledge::exhaustive) own.swap(everything[order[visit]].verified);
    const std::span<const measured_problem> knows = prior == prior_knowledge::exhaustive ? everything : known;
    const auto plan = transfer_order(p.shape, p.candidates, p.baseline, knows, params);
    if (prior == prior_knowledge::exhaustive) own.swap(everything[order[visit]].verified);
    const auto measured = to_measure(plan, {}, params.budget.for_problem(plan.size()));
    replay_row row;
    row.key = p.shape.key;
    row.visit = visit;
    row.candidates = plan.size();
    row.used = measured.size();
    for (const auto& m : measured) {
      row.baseline_measured = row.baseline_measured || m.reason == pick_reason::baseline;
      row.neighbour_picks += m.reason == pick_reason::neighbour ? 1 : 0;
    }
    measured_problem seen{p.shape, {}};
    for (const auto& m : measured)
      if (const auto it = p.verified.find(m.instance); it != p.verified.end()) seen.verified.push_back(it->second);
    known.push_back(std::move(seen));
    if (const auto* b = fastest(p.verified)) {
      row.best = b->instance;
      row.best_us = b->median_us;
    }
    if (const auto* c = fastest(p.verified, measured)) {
      row.chosen = c->instance;
      row.chosen_us = c->median_us;
    }
    out.trials += row.used;
    out.exhaustive_trials += row.candidates;
    if (row.scored()) {
      ++out.scored;
      log_sum += std::log(row.chosen_us / row.best_us);
      if (row.regret() > out.worst_regret || out.worst.empty()) {
        out.worst_regret = row.regret();
        out.worst = row.key;
      }
      out.within_5 += row.regret() <= 0.05 ? 1 : 0;
      out.exact += row.chosen == row.best ? 1 : 0;
    } else if (!row.best.empty()) {
      ++out.missed;
    } else {
      ++out.unscored;
    }
    out.rows.push_back(std::move(row));
  }
  if (out.scored) out.geomean_regret = std::exp(log_sum / static_cast<double>(out.scored)) - 1;
  std::sort(out.rows.begin(), out.rows.end(), [](const replay_row& a, const replay_row& b) { return a.key < b.key; });
  return out;
}

}  // namespace cuop::strategy
