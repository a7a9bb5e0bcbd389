// Emits the softmax dispatch table (header) and the instantiation unit (.cu) from results files.
// Deterministic: the same results and targets give byte-identical files.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tuner/emit/emit_common.hpp"
#include "tuner/emit/results_file.hpp"

namespace cuop::emit {

struct emitted {
  std::string header;               // cuop/generated/softmax_dispatch.hpp
  std::string instantiation;        // softmax_instances.cu
  std::vector<std::string> report;  // one line per target: how many entries from which link
  std::set<cited_run> cited;        // the runs its entries were measured in (provenance_json)
  std::vector<std::pair<const result_file*, const result_trial*>> chosen;  // the measured entries' trials
};

// targets: "80", "90a", "sm_100a", "90a-real"... (CMake's CUDA_ARCHITECTURES spellings accepted).
emitted emit_softmax(const std::vector<result_file>& results, const std::vector<std::string>& targets);

}  // namespace cuop::emit
