// What the sweep needs to know about an op, whatever the op: the work a problem represents, which
// candidate families are library back ends (enumerated and run by the worker, never compiled),
// and the translation unit that instantiates one of our kernel configurations.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::ops {

// One of our kernel configurations for one problem's dtype, ready to compile.
struct kernel_candidate {
  std::string instance;     // stable name, also the extern "C" entry
  std::string source;       // complete NVRTC translation unit
  std::string dtype_label;  // stored with the configuration ("bf16")
  int block_threads = 0;
  long long dynamic_smem = 0;
};

class op_adapter {
 public:
  virtual ~op_adapter() = default;
  virtual double bytes(const spec::problem& p) const = 0;  // that must move, for GB/s
  virtual double flops(const spec::problem& p) const = 0;  // 0 for memory-bound ops
  virtual bool is_library(std::string_view family) const = 0;
  // Throws cuop::error for an unknown family, parameter or dtype.
  virtual kernel_candidate kernel(const space::point& point, const spec::problem& p) const = 0;
};

// {"family": "...", "params": {...}} (parameters by name).
nlohmann::json config_json(const space::point& p);

// Throws cuop::error for an op without an adapter.
const op_adapter& adapter_for(std::string_view op);

}  // namespace cuop::ops
