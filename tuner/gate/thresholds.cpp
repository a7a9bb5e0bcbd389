#include "tuner/gate/thresholds.hpp"

#include "tuner/catalog/catalog.hpp"

namespace cuop::gate {

std::string op_class(const std::string& op, const std::map<std::string, long long>& dims) {
  // An op this build does not have gets the looser of the two thresholds.
  const catalog::op_desc* d = catalog::find_op(op);
  if (!d || !d->compute_bound) return "memory";
  return d->compute_bound(catalog::dim_values(dims.begin(), dims.end())) ? "compute" : "memory";
}

chosen_threshold threshold_for(const thresholds& t, const std::string& op, const std::map<std::string, long long>& dims,
                               double baseline_median_us) {
  chosen_threshold c;
  c.kind = op_class(op, dims);
  c.rule.threshold = c.kind == "compute" ? t.compute : t.memory;
  c.rule.floor_us = t.floor_us;
  if (baseline_median_us < t.short_below_us && t.short_kernel > c.rule.threshold) {
    c.kind = "short";
    c.rule.threshold = t.short_kernel;
  }
  return c;
}

}  // namespace cuop::gate
