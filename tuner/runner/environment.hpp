// The environment fingerprint of a run: what timings depend on besides the configuration.
#pragma once

#include "tuner/store/store.hpp"
#include "tuner/trial/protocol.hpp"

namespace cuop::runner {

// Fills the build- and host-side fields (git revision, flags, kernel source hash, library
// versions, host name) and the GPU fields from `device` (which may be absent).
store::environment describe_environment(const trial::device_info& device);

// Hash of every kernel header the candidates are compiled from, plus the device flags.
std::string kernel_source_hash();

}  // namespace cuop::runner
