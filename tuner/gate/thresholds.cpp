#include "tuner/gate/thresholds.hpp"

namespace cuop::gate {

std::string op_class(const std::string& op, const std::map<std::string, long long>& dims) {
  if (op == "gemm") return "compute";
  if (op == "conv2d") {
    const auto groups = dims.find("groups"), channels = dims.find("c");
    const bool depthwise = groups != dims.end() && channels != dims.end() && groups->second == channels->second;
    return depthwise ? "memory" : "compute";
  }
  return "memory";  // softmax, and an op nobody classified: the looser of the two thresholds
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
