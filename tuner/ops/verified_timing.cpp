#include "tuner/ops/verified_timing.hpp"

#include <fmt/format.h>

#include "cuop/reference/gemm_reference.hpp"
#include "tuner/runner/cubin_loader.hpp"

namespace cuop::ops {

runner::trial_response verify_then_time(const measure::launcher& launch, const output_check& check,
                                        const std::function<std::string(long long, long long)>& where,
                                        const runner::trial_request& request, measure::l2_flusher* flusher,
                                        cudaStream_t stream) {
  using runner::trial_failure;
  runner::trial_response r;
  const long long count = static_cast<long long>(check.rows) * check.cols;
  if (auto e = reference::fill_nan(check.type, check.out, count, stream); e != cudaSuccess)
    return trial_failure(e, "output poisoning");
  if (auto e = launch(stream); e != cudaSuccess) return trial_failure(e, "the verification launch");
  if (auto e = cudaStreamSynchronize(stream); e != cudaSuccess) return trial_failure(e, "the verification run");
  reference::compare_result cmp{};
  if (auto e = reference::compare_gemm(check.type, check.out, check.ld, check.rows, check.cols, check.reference,
                                       check.atol, check.rtol, &cmp, stream);
      e != cudaSuccess)
    return trial_failure(e, "verification");
  r.max_error = cmp.max_abs_err;
  if (cmp.bad > 0 || cmp.nan_count > 0) {
    r.status = "wrong_answer";
    r.message = fmt::format(
        "{} of {} elements wrong ({} NaN), first at {}, max abs error {:.3g} (tolerance {:.3g} + {:.3g} x "
        "|reference|)",
        cmp.bad, count, cmp.nan_count, where(cmp.first_bad_row, cmp.first_bad_col), cmp.max_abs_err, check.atol,
        check.rtol);
    return r;
  }
  auto timing = measure::time_launches(launch, request.measure, request.measure.flush_l2 ? flusher : nullptr, stream);
  if (timing.error != cudaSuccess) return trial_failure(timing.error, "timing");
  r.status = "ok";
  r.samples_us = std::move(timing.samples_us);
  r.stop_reason = timing.stop_reason;
  return r;
}

}  // namespace cuop::ops
