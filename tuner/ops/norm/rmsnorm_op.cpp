#include "tuner/ops/norm/rmsnorm_op.hpp"

#include "tuner/ops/norm/describe.hpp"
#include "tuner/ops/norm/emit.hpp"
#include "tuner/ops/norm/trial.hpp"

namespace cuop::ops {

namespace {

constexpr auto kind = kernels::norm::norm_kind::rmsnorm;

kernel_candidate kernel_of(const space::point& point, const spec::problem& p) { return norm_kernel_of(kind, point, p); }

emit::emitted emit(const std::vector<results::result_file>& results, const std::vector<std::string>& targets) {
  return emit_norm(rmsnorm_op(), kind, results, targets);
}

}  // namespace

const op& rmsnorm_op() {
  static const op instance({describe_norm(kind), kernel_of, make_runner<norm_trial_runner_of<kind>>, "rmsnorm", emit});
  return instance;
}

}  // namespace cuop::ops
