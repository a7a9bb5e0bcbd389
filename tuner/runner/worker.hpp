// The worker process: owns one GPU's CUDA context, answers requests read from stdin with one JSON
// line each on stdout. A sticky CUDA error ends it after the answer; the parent starts a new one.
#pragma once

#include "tuner/trial/protocol.hpp"

namespace cuop::runner {

// Probes device `index` (no context is kept); `present` false with a reason when unusable.
trial::device_info probe_device(int index);

// Entry point of `cuop-tune worker --device N`; returns the process exit code.
int run_worker(int device);

}  // namespace cuop::runner
