#include "tuner/ops/groupnorm/groupnorm_op.hpp"

#include "tuner/ops/groupnorm/describe.hpp"
#include "tuner/ops/groupnorm/emit.hpp"
#include "tuner/ops/groupnorm/trial.hpp"

namespace cuop::ops {

namespace {

emit::emitted emit(const std::vector<results::result_file>& results, const std::vector<std::string>& targets) {
  return emit_groupnorm(groupnorm_op(), results, targets);
}

}  // namespace

const op& groupnorm_op() {
  static const op instance(
      {describe_groupnorm(), groupnorm_kernel_of, make_runner<groupnorm_trial_runner>, "groupnorm", emit});
  return instance;
}

}  // namespace cuop::ops
