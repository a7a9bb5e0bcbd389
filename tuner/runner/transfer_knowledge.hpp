// What `strategy: transfer` knows while a sweep runs (docs/measurement.md, budgeted search): the
// verified trials of the op's problems on this GPU model, from earlier runs (the database's
// current results, the rule `export` follows) and from this run as its trials are stored; the
// order the problems are visited in; and each problem's plan under the budget. The decisions are
// tuner/strategy/transfer.hpp's. Safe to share between the lanes of a sweep.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "tuner/spec/spec.hpp"
#include "tuner/store/store.hpp"
#include "tuner/strategy/transfer.hpp"

namespace cuop::runner {

// The strategy's parameters as the sweep file sets them.
strategy::transfer_params transfer_params_of(const spec::transfer_settings& t);

class transfer_knowledge {
 public:
  explicit transfer_knowledge(const spec::sweep& s);

  // The verified trials the database holds for the op on `gpu_name` (its current results).
  void load(store::database& db, const std::string& gpu_name);
  // A trial this run stored: kept when it is verified and timed.
  void add(const store::trial_record& t);

  // The problems' visit order (indices into the sweep's problems).
  const std::vector<std::size_t>& order() const { return m_order; }

  // What to measure of `problem`, in order: of its candidates not yet measured (`fresh`), as many
  // as the budget leaves once those measured before in this environment (`spent`) are counted.
  // The baseline is the one of a device of compute capability `cc`.
  std::vector<strategy::pick> plan(std::size_t problem, std::span<const std::string> fresh,
                                   std::span<const std::string> spent, int cc) const;

  // The problems known now (for tests and the summary).
  std::size_t known_problems() const;

 private:
  void add_outcome(const std::string& key, const std::string& dtype, const std::string& dims_json,
                   const strategy::outcome& o);  // under m_mutex

  const spec::sweep& m_spec;
  strategy::transfer_params m_params;
  std::vector<strategy::shape_point> m_shapes;  // per problem of the sweep
  std::vector<std::size_t> m_order;
  mutable std::mutex m_mutex;
  std::vector<strategy::measured_problem> m_known;
  std::map<std::string, std::size_t> m_known_at;  // problem key -> index into m_known
};

}  // namespace cuop::runner
