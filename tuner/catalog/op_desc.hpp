// What the tuner knows of an op as data: its problem dimensions, the work a problem represents,
// and the candidate families (our kernel templates and library back ends) with their tunable
// parameters. The parsers (sweep files, results files) check their input against it; each op's
// folder under tuner/ops/ fills one in (catalog.hpp looks them up by name).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/catalog/stored_config.hpp"

namespace cuop::catalog {

struct family_desc {
  std::string name;
  std::vector<std::string> params;  // required, in the order names and templates use
  std::string kind;                 // "kernel" or "library"
  // A kernel from the sweep file's own source (family "custom"): `params` lists the required
  // ones, and any other parameter the file names is passed to its template too.
  bool user_source = false;
  // Parameters a candidate may leave out; the family's default then applies.
  std::vector<std::string> optional_params = {};
  // Our kernels: the headers that define the family's kernels (their sources, with what they
  // include, are what a measurement of the family was made on). Empty for library back ends.
  std::vector<std::string> headers = {};
  // Parameters with named values (depthwise's algo): written by name in sweep files and constraints,
  // stored as the index of the name, as dim_desc::choices.
  std::map<std::string, std::vector<std::string>> choices = {};
};

// One dimension of an op's problems. Values are integers; a dimension with named choices (a
// layout) is written by name in sweep files and stored as the index of the name.
struct dim_desc {
  std::string name;
  std::int64_t min = 1;                                         // smallest accepted value
  std::optional<std::int64_t> fallback;                         // the value when a problem omits it (none: required)
  std::vector<std::string> choices;                             // named values, stored as their index
  std::int64_t max = std::numeric_limits<std::int64_t>::max();  // largest accepted value
};

using dim_values = std::map<std::string, std::int64_t>;

struct op_desc {
  std::string name;
  std::vector<std::string> problem_dims;  // in the order problem keys use ("rows", "cols")
  std::vector<family_desc> families;
  std::vector<dim_desc> dims = {};  // problem_dims with their rules; empty: required, >= 1
  // Problem key after "<op>_<dtype>_"; null: the dimensions joined by "x" in problem_dims order.
  std::string (*key_of)(const dim_values&) = nullptr;
  // The instance name of a stored configuration (stored_config.hpp); "" and `why` when its
  // family, dtype, problem and parameters are not a configuration of this op.
  std::string (*instance_of)(const stored_config&, std::string& why) = nullptr;
  // The dispatch model's view of a problem (cuop/detail/shape_features.hpp), for searches that learn from
  // neighbouring shapes: log2 features, the group whose shapes share configurations, and the
  // instance of the baseline on a device of compute capability `cc` (x 10: 90 for sm_90; a default
  // rule may depend on it). Throw cuop::error for a dimension or dtype the op does not have.
  std::vector<double> (*features_of)(const dim_values&) = nullptr;
  std::string (*group_of)(const std::string& dtype, const dim_values&) = nullptr;
  std::string (*baseline_of)(const std::string& dtype, const dim_values&, int cc) = nullptr;
  // The work of a problem: the bytes it must move (for GB/s) and its floating-point operations
  // (null: a memory-bound op, 0). Total for any dtype string (an unknown one gets a default size):
  // the parsers call them to refuse absurd sizes before the dtype is known to be good.
  double (*bytes_of)(const std::string& dtype, const dim_values&) = nullptr;
  double (*flops_of)(const std::string& dtype, const dim_values&) = nullptr;
  // Why no configuration of the op can run a problem whose dimensions are each in range (GroupNorm:
  // channels that do not divide into the groups), "" when one can; null: every such problem is
  // well formed. Sweep files are refused at the problem's place.
  std::string (*check_problem)(const dim_values&) = nullptr;
  // What limits a problem, which picks the gate's threshold: true for compute, false for memory
  // (null: memory, the looser of the two).
  bool (*compute_bound)(const dim_values&) = nullptr;
  // > 0: a group default may hold above a floor on the size of this many leading features alone
  // (detail::floor_size, tuner/model/group_default.hpp), where no candidate wins across the group.
  int default_floor_features = 0;

  const family_desc* find_family(std::string_view family) const noexcept;
  std::vector<std::string> family_names() const;
  dim_desc dim(std::string_view name) const;  // its rules (required, >= 1 when not listed)
};

// "" when `params` holds every required parameter of `fam` and only parameters it knows (its
// optional ones included), else why not, e.g. missing parameter "vec" of family "block_row".
std::string check_param_names(const family_desc& fam, const stored_values& params);

}  // namespace cuop::catalog
