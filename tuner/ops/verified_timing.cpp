#include "tuner/ops/verified_timing.hpp"

#include <fmt/format.h>

#include "cuop/reference/gemm_reference.hpp"
#include "tuner/trial/cubin_loader.hpp"

namespace cuop::ops {

trial::trial_response verify_then_time(const measure::launcher& launch, const output_check& check,
                                       const std::function<std::string(long long, long long)>& where,
                                       const trial::trial_request& request, const measure::instruments& tools,
                                       cudaStream_t stream, const measure::buffer_rotation* rotation) {
  using trial::trial_failure;
  trial::trial_response r;
  const long long count = check.rows * check.cols;
  if (auto e = reference::fill_nan(check.type, check.out, count, stream); e != cudaSuccess)
    return trial::trial_failure(e, "output poisoning");
  if (auto e = launch(stream); e != cudaSuccess) return trial::trial_failure(e, "the verification launch");
  if (auto e = cudaStreamSynchronize(stream); e != cudaSuccess) return trial::trial_failure(e, "the verification run");
  reference::compare_result cmp{};
  if (auto e = check.compare ? check.compare(cmp, stream)
                             : reference::compare_gemm(check.type, check.out, check.ld, static_cast<int>(check.rows),
                                                       static_cast<int>(check.cols), check.reference, check.atol,
                                                       check.rtol, &cmp, stream);
      e != cudaSuccess)
    return trial::trial_failure(e, "verification");
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
  return time_verified(launch, request, tools, rotation, stream, std::move(r));
}

measure::buffer_rotation rotate_buffers(trial::buffer_sets& sets,
                                        const std::vector<trial::buffer_sets::buffer>& buffers, cudaStream_t stream,
                                        set_launcher launch) {
  measure::buffer_rotation rotation;
  for (const auto& b : buffers) rotation.set_bytes += b.bytes;
  rotation.prepare = [&sets, buffers, stream](int count) { return sets.prepare(buffers, count, stream); };
  rotation.launch = [&sets, n = buffers.size(), launch = std::move(launch)](int set, cudaStream_t s) {
    std::vector<void*> pointers(n);
    for (std::size_t i = 0; i < n; ++i) pointers[i] = sets.at(set, i);
    return launch(pointers, s);
  };
  return rotation;
}

trial::trial_response time_verified(const measure::launcher& launch, const trial::trial_request& request,
                                    const measure::instruments& tools, const measure::buffer_rotation* rotation,
                                    cudaStream_t stream, trial::trial_response r) {
  measure::timer_options options;
  options.clock = tools.clock;
  options.l2_bytes = tools.l2_bytes;
  options.rotation = rotation;
  options.force_batch = request.force_batch;
  auto t = measure::time_launches(launch, request.measure, request.measure.flush_l2 ? tools.flusher : nullptr, stream,
                                  options);
  if (t.error != cudaSuccess) return trial::trial_failure(t.error, "timing");
  r.status = "ok";
  r.samples_us = std::move(t.samples_us);
  r.clocks_mhz = std::move(t.clocks_mhz);
  r.stop_reason = std::move(t.stop_reason);
  r.warmup_ms = t.warmup_ms;
  r.warmup_launches = t.warmup_launches;
  r.warmup_capped = t.warmup_capped;
  r.batch = t.batch;
  r.buffer_sets = t.buffer_sets;
  r.clock_source = std::move(t.clock_source);
  r.note = std::move(t.note);
  return r;
}

}  // namespace cuop::ops
