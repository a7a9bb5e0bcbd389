#include "tuner/runner/transfer_knowledge.hpp"

#include <nlohmann/json.hpp>

#include "tuner/catalog/catalog.hpp"
#include "tuner/core/error.hpp"
#include "tuner/results/current_trials.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::runner {

namespace {

const catalog::op_desc& op_of(const std::string& name) {
  const auto* op = catalog::find_op(name);
  if (!op || !op->features_of || !op->group_of || !op->baseline_of)
    throw error("strategy \"transfer\": op \"" + name + "\" has no shape features");
  return *op;
}

bool timed(const store::trial_record& t) { return (t.status == "ok" || t.status == "dropped_race") && t.median_us > 0; }

}  // namespace

strategy::transfer_params transfer_params_of(const spec::transfer_settings& t) {
  strategy::transfer_params p;
  p.budget.trials = static_cast<std::size_t>(t.trials_per_problem);
  p.budget.fraction = t.fraction;
  // A time budget alone: every candidate, as long as the time allows.
  if (t.trials_per_problem == 0 && t.fraction == 0 && t.seconds > 0) p.budget.fraction = 1;
  p.neighbours = t.neighbours;
  p.seed = t.seed;
  return p;
}

transfer_knowledge::transfer_knowledge(const spec::sweep& s) : m_spec(s), m_params(transfer_params_of(s.transfer)) {
  const auto& op = op_of(s.op);
  for (const auto& p : s.problems)
    m_shapes.push_back({p.key(s.op), op.group_of(p.dtype, p.dims), op.features_of(p.dims)});
  m_order = strategy::visit_order(m_shapes);
}

void transfer_knowledge::add_outcome(const std::string& key, const std::string& dtype, const std::string& dims_json,
                                     const strategy::outcome& o) {
  auto it = m_known_at.find(key);
  if (it == m_known_at.end()) {
    const auto& op = op_of(m_spec.op);
    const auto dims = nlohmann::json::parse(dims_json).get<catalog::dim_values>();
    strategy::shape_point shape{key, op.group_of(dtype, dims), op.features_of(dims)};  // may throw: nothing added
    m_known.push_back({std::move(shape), {}});
    it = m_known_at.emplace(key, m_known.size() - 1).first;
  }
  auto& verified = m_known[it->second].verified;
  for (auto& v : verified)
    if (v.instance == o.instance) {
      v = o;  // measured again: the newest timing
      return;
    }
  verified.push_back(o);
}

void transfer_knowledge::load(store::database& db, const std::string& gpu_name) {
  const auto current = results::current_trials(db, m_spec.op, false);
  const auto it = current.find(results::slug(gpu_name));
  if (it == current.end()) return;
  std::lock_guard lock(m_mutex);
  for (const auto& t : it->second.trials) {
    if (!timed(t)) continue;
    // A database is anyone's file: a problem whose dimensions do not read as the op's is no
    // neighbour (it cannot be placed), and the sweep goes on.
    try {
      add_outcome(t.problem.key, t.problem.dtype, t.problem.dims_json,
                  {t.config.instance, t.median_us, t.ci_lo_us, t.ci_hi_us});
    } catch (const nlohmann::json::exception&) {
    } catch (const error&) {
    }
  }
}

void transfer_knowledge::add(const store::trial_record& t) {
  if (!timed(t)) return;
  std::lock_guard lock(m_mutex);
  add_outcome(t.problem.key, t.problem.dtype, t.problem.dims_json,
              {t.config.instance, t.median_us, t.ci_lo_us, t.ci_hi_us});
}

std::vector<strategy::pick> transfer_knowledge::plan(std::size_t problem, std::span<const std::string> fresh,
                                                     std::span<const std::string> spent, int cc) const {
  const auto& p = m_spec.problems[problem];
  const std::string baseline = op_of(m_spec.op).baseline_of(p.dtype, p.dims, cc);
  std::vector<std::string> candidates(fresh.begin(), fresh.end());
  candidates.insert(candidates.end(), spent.begin(), spent.end());
  std::vector<strategy::pick> order;
  {
    std::lock_guard lock(m_mutex);
    order = strategy::transfer_order(m_shapes[problem], candidates, baseline, m_known, m_params);
  }
  return strategy::to_measure(order, spent, m_params.budget.for_problem(order.size()));
}

std::size_t transfer_knowledge::known_problems() const {
  std::lock_guard lock(m_mutex);
  return m_known.size();
}

}  // namespace cuop::runner
