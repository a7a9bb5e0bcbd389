#include "tuner/ops/norm/layernorm_op.hpp"

#include "tuner/ops/norm/describe.hpp"
#include "tuner/ops/norm/emit.hpp"
#include "tuner/ops/norm/trial.hpp"

namespace cuop::ops {

namespace {

constexpr auto kind = kernels::norm::norm_kind::layernorm;

kernel_candidate kernel_of(const space::point& point, const spec::problem& p) { return norm_kernel_of(kind, point, p); }

emit::emitted emit(const std::vector<results::result_file>& results, const std::vector<std::string>& targets) {
  return emit_norm(layernorm_op(), kind, results, targets);
}

}  // namespace

const op& layernorm_op() {
  static const op instance(
      {describe_norm(kind), kernel_of, make_runner<norm_trial_runner_of<kind>>, "layernorm", emit});
  return instance;
}

}  // namespace cuop::ops
