#include "tuner/runner/sweep_plan.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"
#include "tuner/ops/registry.hpp"

namespace cuop::runner {

std::size_t sweep_plan::accepted() const {
  std::size_t n = 0;
  for (const auto& problem : verdicts)
    for (const auto& v : problem) n += v.accepted ? 1 : 0;
  return n;
}

namespace {

// How a rejected point that its family refused (not a constraint) begins its reason.
constexpr std::string_view refused_by_family = "the family refuses it: ";

std::string first_refusal(const std::vector<space::verdict>& verdicts) {
  for (const auto& v : verdicts)
    if (v.reason.starts_with(refused_by_family)) return space::str(v.config) + ": " + v.reason;
  return {};
}

}  // namespace

sweep_plan plan_sweep(const spec::sweep& s) {
  const auto& op = ops::named(s.op);
  sweep_plan plan;
  for (const auto& p : s.problems) {
    auto verdicts = space::enumerate(s, p);
    const auto key = p.key(s.op);
    if (std::none_of(verdicts.begin(), verdicts.end(), [](const space::verdict& v) { return v.accepted; }))
      throw error(core::printable(s.file) + ": no configuration satisfies the constraints for problem " + key);
    std::vector<std::string> instances;
    std::vector<space::point> library;
    for (auto& v : verdicts) {
      if (!v.accepted) continue;
      if (op.is_library(v.config.family)) {
        library.push_back(v.config);
        continue;
      }
      ops::kernel_candidate kernel;
      try {
        kernel = op.kernel(v.config, p);
      } catch (const error& e) {
        throw error(
            fmt::format("{}: problem {}, {}: {}", core::printable(s.file), key, space::str(v.config), e.what()));
      }
      if (!kernel.refused.empty()) {  // stored as rejected, like a constraint's rejection
        v.accepted = false;
        v.reason = std::string(refused_by_family) + kernel.refused;
        continue;
      }
      instances.push_back(kernel.instance);
      const std::string name = kernel.instance;  // the key must not be moved from
      plan.kernels.try_emplace(name, planned_kernel{std::move(kernel), v.config});
    }
    if (instances.empty() && library.empty())
      throw error(fmt::format(
          "{}: problem {}: every configuration the constraints accept is refused by its family (the first: {})",
          core::printable(s.file), key, first_refusal(verdicts)));
    plan.verdicts.push_back(std::move(verdicts));
    plan.instances.push_back(std::move(instances));
    plan.library.push_back(std::move(library));
  }
  return plan;
}

}  // namespace cuop::runner
