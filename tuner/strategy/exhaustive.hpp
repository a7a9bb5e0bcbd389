// The exhaustive strategy: every (problem, configuration) pair once, problems in sweep order,
// configurations in enumeration order. Later strategies (racing, random, Bayesian) share the
// add / next interface.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cuop::strategy {

struct trial_plan {
  std::size_t problem = 0;  // index into the sweep's problems
  std::string instance;
};

class exhaustive {
 public:
  void add(std::size_t problem, std::string instance) { m_plans.push_back({problem, std::move(instance)}); }
  std::optional<trial_plan> next() {
    if (m_next >= m_plans.size()) return std::nullopt;
    return m_plans[m_next++];
  }
  std::size_t size() const { return m_plans.size(); }

 private:
  std::vector<trial_plan> m_plans;
  std::size_t m_next = 0;
};

}  // namespace cuop::strategy
