// A sweep definition as parsed from YAML (docs/configs.md). Every value remembers where it came
// from so later stages (constraints, enumeration) can report errors at file:line:column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tuner/measure/settings.hpp"

namespace cuop::spec {

struct location {
  std::string file;
  int line = 0;             // 1-based
  int column = 0;           // 1-based
  std::string str() const;  // "file:line:column"
};

struct param_space {
  std::string name;
  std::vector<std::int64_t> values;  // expanded from a list, {range: [lo, hi, step]} or {pow2: [lo, hi]}
  location where;
  std::vector<std::string> choices = {};  // a named parameter's names (values are their indexes)
};

struct constraint {
  std::string expr;  // muparser syntax over parameter names and problem fields
  location where;
};

struct candidate {
  std::string family;  // a kernel family or library back end known to the op
  // Family "custom" only: the header that defines the kernel (an absolute path, resolved against
  // the sweep file's folder) and the class template in it (docs/configs.md, custom kernels).
  std::string source;
  std::string kernel;
  std::vector<param_space> params;
  std::vector<constraint> constraints;
  location where;
};

struct problem {
  std::string dtype;                         // "f32", "f16", "bf16"
  std::map<std::string, std::int64_t> dims;  // softmax: rows, cols
  location where;
  std::string key(const std::string& op) const;  // "softmax_f16_32768x1024" (dims in op order)
};

// strategy: transfer (docs/measurement.md, budgeted search): one of the two budget fields is set.
struct transfer_settings {
  std::int64_t trials_per_problem = 0;  // budget: {trials_per_problem: N}
  double fraction = 0;                  // budget: {fraction: F}, of each problem's candidates
  double seconds = 0;                   // budget: {seconds: S}, the measuring's wall time
  int neighbours = 4;                   // transfer_neighbours
  std::uint64_t seed = 1;               // transfer_seed
};

struct sweep {
  std::string file;
  std::string op;                 // "softmax"
  std::vector<problem> problems;  // dtypes x shapes, already crossed; grids and samples expanded
  std::vector<candidate> candidates;
  std::vector<constraint> constraints;  // apply to every candidate
  std::vector<std::string> targets;     // "sm_80", "sm_90a", "sm_100a"
  measure::settings measure;
  std::string strategy = "exhaustive";
  transfer_settings transfer;
};

// Parses and checks a sweep file; throws cuop::error naming file:line:column on any problem, and
// when a file has several, a cuop::error_list of all of them (what() is the first, max_reported_errors
// are kept): a bad problem, candidate, parameter, constraint, target or measure key is reported and
// the parser goes on with the next. Messages name the file as `path` / `file_name` was given, and
// show the values they quote escaped (core::printable). Constraints are checked too
// (check_constraints, constraint.hpp), so a file that loads can be enumerated. load() reads only a regular
// file of at most core::max_sweep_file_bytes.
sweep load(const std::string& path);
sweep parse(const std::string& text, const std::string& file_name);

// Values `strategy:` accepts (the sweep's search strategies).
std::vector<std::string> strategy_names();

// Limits of one sweep file (docs/configs.md, "Limits"): past one, the file is refused when it is
// loaded, with its size, before anything is enumerated, compiled or stored.
inline constexpr std::size_t max_param_values = 4096;     // values of one parameter (`range: [1, 1e9]`)
inline constexpr std::size_t max_candidate_params = 64;   // parameters of one candidate
inline constexpr std::size_t max_space_points = 1000000;  // configurations of all candidates, before constraints
inline constexpr std::size_t max_problems = 100000;       // problems, dtypes crossed
inline constexpr std::size_t max_set_problems = 100000;   // problems of one grid or sample (problem_sets.hpp)
inline constexpr std::size_t max_enumerated = 2000000;    // problems x configurations: each is a verdict stored
inline constexpr std::size_t max_reported_errors = 20;    // errors listed per file (the count says the rest)

}  // namespace cuop::spec
