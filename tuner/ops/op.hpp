// An op as the tuner runs it, whatever the op: its description (catalog::op_desc), how the sweep
// turns a configuration into a kernel to compile, how a worker runs and verifies its trials, and
// how emit writes its dispatch files. Each op is one folder under tuner/ops/ that defines one
// `op` from its parts; the registry (registry.hpp) lists them, and the sweep, the worker, emit and
// the gate loop over the registry, never naming an op.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/catalog/op_desc.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/results/results_file.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"
#include "tuner/trial/protocol.hpp"

namespace cuop::ops {

// One of our kernel configurations for one problem's dtype, ready to compile.
struct kernel_candidate {
  std::string instance;     // stable name, also the extern "C" entry
  std::string source;       // complete NVRTC translation unit
  std::string dtype_label;  // stored with the configuration ("bf16")
  int block_threads = 0;
  long long dynamic_smem = 0;
  // Why the family refuses the configuration whatever the problem (its check_config); empty when
  // it is well formed. The sweep stores a refused one as rejected and does not compile it.
  std::string refused;
  // The one target the family exists on ("sm_90a": wgmma.mma_async), or empty for any. The sweep
  // does not compile it for its other targets; its builds there say so (rejected, as a
  // configuration over a target's limits is).
  std::string only_target;
};

// Runs an op's trials inside a worker process (one per GPU, owning the CUDA context): load the
// candidate, verify it against the op's reference on a NaN-poisoned output, then time it.
class trial_runner {
 public:
  virtual ~trial_runner() = default;
  virtual trial::trial_response run(const trial::trial_request& request) = 0;
  // {"status": "ok", "configs": [...]}: the library back ends' configurations to measure for the
  // request's problem; {"status": "error", "message"} when it has none or they cannot be listed.
  virtual nlohmann::json list_library(const trial::trial_request& request);
};

// An op: its parts, given once by its folder (<op>_op.cpp), and what the tuner asks of them.
class op {
 public:
  using kernel_fn = kernel_candidate (*)(const space::point& point, const spec::problem& p);
  using runner_fn = std::unique_ptr<trial_runner> (*)(int device, cudaStream_t stream,
                                                      const measure::instruments& tools);
  using emit_fn = emit::emitted (*)(const std::vector<results::result_file>& results,
                                    const std::vector<std::string>& targets);
  struct parts {
    catalog::op_desc desc;
    // The translation unit of one of our kernel configurations; throws cuop::error for an unknown
    // family, parameter or dtype (a library family never gets here).
    kernel_fn kernel = nullptr;
    // The worker's runner of the op's trials, one per GPU, made when the worker starts.
    runner_fn make_trial_runner = nullptr;
    // Emit: the files' stem (<stem>_dispatch.hpp, <stem>_instances.cu, <stem>_kernels_<i>.cu) and
    // the files from results.
    // targets: "80", "90a", "sm_100a", "90a-real"... (CMake's CUDA_ARCHITECTURES spellings).
    std::string_view emit_stem;
    emit_fn emit = nullptr;
  };

  explicit op(parts p) : m_parts(std::move(p)) {}

  const catalog::op_desc& desc() const { return m_parts.desc; }
  const std::string& name() const { return m_parts.desc.name; }
  // A library back end: enumerated and run by the worker, never compiled.
  bool is_library(std::string_view family) const;
  kernel_candidate kernel(const space::point& point, const spec::problem& p) const { return m_parts.kernel(point, p); }
  std::unique_ptr<trial_runner> make_trial_runner(int device, cudaStream_t stream,
                                                  const measure::instruments& tools) const {
    return m_parts.make_trial_runner(device, stream, tools);
  }
  std::string_view emit_stem() const { return m_parts.emit_stem; }
  emit::emitted emit(const std::vector<results::result_file>& results, const std::vector<std::string>& targets) const {
    return m_parts.emit(results, targets);
  }
  double bytes(const spec::problem& p) const;  // that must move, for GB/s
  double flops(const spec::problem& p) const;  // 0 for memory-bound ops

 private:
  parts m_parts;
};

// op::parts::make_trial_runner for a runner constructed from the worker's device, stream and tools.
template <class Runner>
std::unique_ptr<trial_runner> make_runner(int device, cudaStream_t stream, const measure::instruments& tools) {
  return std::make_unique<Runner>(device, stream, tools);
}

// {"family": "...", "params": {...}} (parameters by name).
nlohmann::json config_json(const space::point& p);

}  // namespace cuop::ops
