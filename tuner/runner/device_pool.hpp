// `sweep --devices all|0,1,...`: which GPUs, and which of them form one pool. GPUs of one model
// (same name, compute capability, SMs, L2, driver and runtime) pool their results under one
// environment; GPUs of different models are kept apart, each measuring the sweep for itself.
#pragma once

#include <string>
#include <vector>

#include "tuner/trial/protocol.hpp"

namespace cuop::runner {

// "all" (every one of `device_count`) or a comma-separated list of indices. Throws cuop::error
// naming the offending entry: not a number, negative, beyond the devices present, twice.
std::vector<int> parse_devices(const std::string& text, int device_count);

struct device_pool {
  std::vector<trial::device_info> devices;  // in the order asked for
  // The environment's GPU identity for the pool: its devices' UUIDs, sorted, joined by ",": one
  // device keeps its own UUID, so a one-GPU run keys its trials as it always did.
  std::string uuid() const;
  std::string describe() const;  // "NVIDIA H200 x2 (devices 0, 1)"
};

// Present devices grouped by model, each group in the order its first device was asked for.
std::vector<device_pool> pools_by_model(const std::vector<trial::device_info>& devices);

}  // namespace cuop::runner
