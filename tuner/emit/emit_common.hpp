// What every op's emitter shares: the fallback chain's choice of results files for a
// target, legality on a target, the escaping of text, provenance, and the unit's kernels.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "tuner/emit/arch_map.hpp"
#include "tuner/results/results_file.hpp"

namespace cuop::emit {

// Links 1-3 of the fallback chain for one target: the measured files of GPUs of the target's
// architecture ("tuned"), else those of the nearest measured architecture (ties: the older).
struct chosen_results {
  std::vector<const results::result_file*> files;
  bool tuned = false;
};
chosen_results results_for_target(const std::vector<results::result_file>& results, const std::string& op,
                                  const std::string& target);

// Legal on `target`: it compiled and fit there (a build record says ok).
bool legal_on(const results::result_file& f, const std::string& instance, const std::string& target);

// Each chosen kernel's index in the unit's array: the names in the map's (sorted) order.
template <typename Config>
std::map<std::string, int> kernel_indices(const std::map<std::string, Config>& kernels_by_name) {
  std::map<std::string, int> out;
  for (const auto& [name, c] : kernels_by_name) out.emplace(name, static_cast<int>(out.size()));
  return out;
}

// The one way text from an input reaches generated code: as a C++ string literal whose bytes
// outside letters, digits, space and plain punctuation (quotes, backslashes, '?', which could
// start a trigraph, control characters, non-ASCII bytes) are written as three-digit octal
// escapes, which cannot run into a following character. Any byte string round-trips.
std::string cxx_string_literal(std::string_view text);

// "softmax/nvidia-h200.json run 3": a results file (its validated <op>/<gpu slug>.json path) and
// a run, as generated comments cite them. The run's free text (spec file, start time) is in the
// provenance data file, never in code (provenance_json).
std::string run_provenance(const results::result_file& f, std::int64_t run);

// The runs that generated entries came from, with everything the results file says of them:
// {"<path>": {"gpu", "cc", "runs": [{"id", "started_at", "spec_file", "git_rev", ...}]}}.
struct cited_run {
  const results::result_file* file;
  std::int64_t run;
  bool operator<(const cited_run& o) const { return std::tie(file->path, run) < std::tie(o.file->path, o.run); }
};
nlohmann::json provenance_json(const std::set<cited_run>& cited);

// The first lines of both generated files: which table serves each architecture, and where the
// measured results come from.
std::string emit_banner(const std::vector<served_arch>& archs, const std::set<std::string>& provenance_lines);

// `<stem>_arch_specific(arch)`: true for the architectures built arch- or family-specific ("90a"),
// whose entries serve that compute capability alone (dispatch::table_arch_for).
std::string arch_specific_function(const std::string& stem, const std::vector<served_arch>& archs);

// One chosen kernel of the instantiation unit.
struct unit_kernel {
  std::string name;                   // extern "C" entry
  std::vector<std::string> includes;  // headers its definition needs
  std::string definition;             // the same text the tuner compiled with NVRTC
  // `restricted`: its body is compiled for the compute capabilities `archs` (x 10: 90) alone,
  // whose tables use it where it can run, and is empty in every other device pass (none at all
  // when `archs` is empty). Not restricted: compiled for every architecture of the build.
  std::set<int> archs;
  bool restricted = false;
};

// The kernels' definitions are spread over this many units (<op>_kernels_<i>.cu, kernel i in name
// order to unit i % kernel_unit_count), which a build compiles in parallel; the instantiation unit
// declares them. A unit without kernels holds its banner alone.
inline constexpr int kernel_unit_count = 8;

// Completes an op's files. `header` holds the banner, the rule and the table up to its last
// entry; this closes the table, adds <op>_table_size, <op>_kernel_count and <op>_emit_id, writes
// the kernel units (includes and definitions) and the instantiation unit: includes, the kernels'
// declarations, a static_assert on the emit id (a header and a unit of different emits fail to
// compile instead of dispatching wrong kernels), and the array <op>_kernels of the kernels in
// `kernels` order (one null slot when empty: C++ has no zero-length arrays).
void finish_files(const std::string& op, const std::string& banner, std::size_t table_size,
                  const std::vector<unit_kernel>& kernels, std::string& header, std::string& unit,
                  std::vector<std::string>& kernel_units);

// What an op's emitter writes (ops::op::emit).
struct emitted {
  std::string header;                     // cuop/generated/softmax_dispatch.hpp
  std::string instantiation;              // softmax_instances.cu
  std::vector<std::string> kernel_units;  // softmax_kernels_<i>.cu, kernel_unit_count of them
  std::vector<std::string> report;        // one line per target: how many entries from which link
  std::set<cited_run> cited;              // the runs its entries were measured in (provenance_json)
  std::vector<std::pair<const results::result_file*, const results::result_trial*>>
      chosen;  // the measured entries' trials
};

}  // namespace cuop::emit
