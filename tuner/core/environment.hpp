// The environment fingerprint of a run: what timings depend on besides the configuration.
#pragma once

#include "tuner/runner/protocol.hpp"
#include "tuner/store/store.hpp"

namespace cuop::core {

// Fills the build- and host-side fields (git revision, flags, kernel source hash, library
// versions, host name) and the GPU fields from `device` (which may be absent).
store::environment describe_environment(const runner::device_info& device);

// Hash of every kernel header the candidates are compiled from, plus the device flags.
std::string kernel_source_hash();

}  // namespace cuop::core
