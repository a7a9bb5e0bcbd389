// The configuration space of a sweep: the cartesian product of each candidate's parameters,
// filtered by constraints (muparser expressions over parameter names and problem fields).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tuner/spec/spec.hpp"

namespace cuop::space {

struct point {
  std::string family;
  std::vector<std::pair<std::string, std::int64_t>> params;  // in the candidate's order
  std::string source, kernel;                                // family "custom" only (spec::candidate)
};

struct verdict {
  point config;
  bool accepted = true;
  std::string
      reason;  // for rejected points: which constraint, e.g. "constraint \"vec * 4 <= 16\" (configs/s.yaml:9:9) is false"
};

// Symbols a constraint may use besides parameters: every problem dimension of the op plus
// `elem_bytes` (size of the problem's dtype).
std::map<std::string, double> problem_symbols(const spec::problem& p);

// All points of all candidates for one problem, in a deterministic order, each with its verdict.
// A constraint that evaluates to NaN/inf (e.g. division by zero) throws cuop::error naming it.
std::vector<verdict> enumerate(const spec::sweep& s, const spec::problem& p);

// Total number of points before constraints (for progress displays and the "empty space" check).
// spec::parse has refused a space past spec::max_space_points, so this does not overflow.
std::size_t space_size(const spec::sweep& s);

// "warp_row(vec=4, threads_per_row=32)": a point as messages and logs show it.
std::string str(const point& p);

// Keys of the problems for which the constraints reject every point, in problem order.
std::vector<std::string> empty_problems(const spec::sweep& s);

// Throws cuop::error "<file>: no configuration satisfies the constraints for problem <key>" for
// the first problem whose space is empty (the sweep refuses to start on such a file).
void require_nonempty(const spec::sweep& s);

}  // namespace cuop::space
