// The identity of one cuDNN engine configuration (engine global index and knob choices), its
// stable text identifier, and the budgeted enumeration of an engine's knob space. Plain C++ (no
// cuDNN headers): the tuner stores, compares and parses identifiers without a GPU. The back end
// that lists and runs configurations through the graph API is cudnn_backend.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuop::backends {

// One knob choice: cudnnBackendKnobType_t as the installed cuDNN numbers it, and its value.
struct cudnn_knob {
  int type = 0;
  std::int64_t value = 0;
};

// An engine configuration: the engine's global index within the operation graph
// (CUDNN_ATTR_ENGINE_GLOBAL_INDEX) and its knob choices, sorted by knob type (each type once).
struct cudnn_config {
  std::int64_t engine = 0;
  std::vector<cudnn_knob> knobs;
};

bool operator==(const cudnn_config& a, const cudnn_config& b) noexcept;

// Stable identifier, e.g. "dnn_e12_k3v1_k10v-1": the engine, then each knob as k<type>v<value>
// in increasing type order. Never a heuristic rank.
std::string cudnn_config_id(const cudnn_config& c);

// Parses exactly what cudnn_config_id produces. On failure returns false, leaves `out` unchanged
// and sets *why (when non-null), e.g. knob types not increasing in "dnn_e1_k3v0_k2v0".
bool parse_cudnn_config_id(std::string_view text, cudnn_config& out, std::string* why);

// One knob of an engine as CUDNN_ATTR_KNOB_INFO_* describes it: values min, min + stride, ...,
// up to max.
struct cudnn_knob_range {
  int type = 0;
  std::int64_t min = 0, max = 0, stride = 1;
};

struct cudnn_engine_knobs {
  std::int64_t engine = 0;
  std::vector<cudnn_knob_range> knobs;
};

// Up to `budget` configurations of the engines' knob spaces (every combination of knob values,
// knobs with no values skipped), taken round-robin over the engines so that a small budget still
// covers every engine, each engine's combinations in a fixed order (knob values increasing, the
// last knob fastest). Deterministic: the same engines and budget give the same list. An engine
// without knobs contributes its single configuration. `already` (e.g. the heuristic's answers)
// are skipped and do not count.
std::vector<cudnn_config> enumerate_cudnn_knobs(const std::vector<cudnn_engine_knobs>& engines, int budget,
                                                const std::vector<cudnn_config>& already = {});

}  // namespace cuop::backends
