// What a sweep file asks for, worked out before anything runs: each problem's points with their
// verdicts, and each accepted kernel configuration built by its op's adapter (instance name and
// source). A configuration its family refuses whatever the problem (check_config: a vector wider
// than 16 bytes, ...) becomes a rejected point with that reason, so it is stored as rejected and
// never compiled. `validate` and `sweep` both take this path, so a file one accepts the other accepts: a
// point the adapter refuses, a constraint that is not finite at some point, a problem whose
// space the constraints empty, are errors in both.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tuner/ops/op.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::runner {

struct planned_kernel {
  ops::kernel_candidate kernel;
  space::point point;
};

struct sweep_plan {
  std::vector<std::vector<space::verdict>> verdicts;  // per problem: every point
  std::vector<std::vector<std::string>> instances;    // per problem: accepted kernel instances, in point order
  std::vector<std::vector<space::point>> library;     // per problem: accepted library points
  std::map<std::string, planned_kernel> kernels;      // by instance: the first point that built it

  std::size_t accepted() const;  // accepted points over every problem (kernels and library)
};

// Throws cuop::error "FILE: problem KEY, POINT: <why>" for a point the adapter refuses, the
// constraint's error for one that is not finite, and errors for a problem no configuration
// satisfies or whose every accepted configuration its family refuses.
sweep_plan plan_sweep(const spec::sweep& s);

}  // namespace cuop::runner
