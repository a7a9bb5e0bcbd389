#include "tuner/runner/trial_results.hpp"

#include "tuner/measure/statistics.hpp"

namespace cuop::runner {

void fill_trial(store::trial_record& t, const trial::trial_response& r) {
  t.status = r.status;
  t.message = r.message.empty() && r.status == "ok" ? r.note : r.message;
  t.max_error = r.max_error;
  t.stop_reason = r.stop_reason;
  t.sample_us = r.samples_us;
  t.sample_clock_mhz = r.clocks_mhz;
  t.warmup_ms = r.warmup_ms;
  t.warmup_capped = r.warmup_capped;
  t.batch = r.batch;
  t.clock_source = r.clock_source;
}

void summarize_trial(store::trial_record& t) {
  const auto s = measure::summarize(t.sample_us);
  t.min_us = s.min;
  t.median_us = s.median;
  t.q1_us = s.q1;
  t.q3_us = s.q3;
  t.mean_us = s.mean;
  t.stdev_us = s.stdev;
  t.ci_lo_us = s.ci_lo;
  t.ci_hi_us = s.ci_hi;
  t.samples = s.count;
  t.gbps = s.median > 0 ? t.problem.bytes / s.median / 1e3 : 0;
}

}  // namespace cuop::runner
