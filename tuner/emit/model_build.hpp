// From results files to dispatch models (docs/dispatch.md), whatever the op: per results file
// chosen for a target and per group of shapes, the anchors (verified shapes with a verified
// baseline), the fit, and its validation; then the model arrays of the generated header. An op's
// emitter supplies what differs between ops (model_traits) and the initializer of each model.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tuner/emit/emit_common.hpp"
#include "tuner/model/fit.hpp"

namespace cuop::emit {

struct model_traits {
  int feature_count = 0;
  std::function<std::vector<double>(const results::result_trial&)> features;
  // Trials of one group share a model: the dtype, and whatever else a configuration is bound to.
  std::function<std::string(const results::result_trial&)> group;
  // The baseline's trial: the library's heuristic choice, or the default rule's configuration.
  std::function<bool(const results::result_trial&)> is_baseline;
  // Whether a verified trial's configuration may ship on the target being built (compiled and
  // fit there; a library configuration only on the architecture it was measured on).
  std::function<bool(const results::result_file&, const results::result_trial&)> ships;
  int floor_features = 0;  // catalog::op_desc::default_floor_features
};

struct built_model {
  const results::result_file* file = nullptr;
  std::string group;
  bool tuned = false;  // measured on the target's architecture
  model::fitted fit;
  int without_baseline = 0;  // verified problems left out: no verified baseline to compare with
};

// One model per (chosen file, group) with at least one anchor, in file and group order.
std::vector<built_model> build_models(const chosen_results& chosen, const model_traits& traits);

// "gemm sm_90a: 2 models of 130 tuned shapes, 41 candidates (35 trusted), 0 with a group default;
// leave-one-out: 1.013x the baseline (geometric mean), worst 1.000x, 0 of 130 slower than 0.97x, 2
// without an outcome"
std::string model_report(const std::string& label, const std::vector<built_model>& models);

// A model as the header holds it: its table's architecture, the op-specific fields of its group
// (an initializer, e.g. "dtype::f16"), and the table entry of each of its candidates.
struct emitted_model {
  int arch = 0;
  const built_model* model = nullptr;
  std::string group_fields;
  std::vector<int> columns;
};

// <op>_models (each {{arch, gpu, source, offsets..., params}, group fields}), <op>_model_features,
// <op>_model_speedups, <op>_model_columns, <op>_model_trusted and <op>_model_count; arrays
// never empty (C++ has no zero-length arrays: one unused element then).
std::string model_arrays(const std::string& op, const std::string& model_type, int feature_count,
                         const std::vector<emitted_model>& models);

}  // namespace cuop::emit
