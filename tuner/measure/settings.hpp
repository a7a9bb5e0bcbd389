// How a sweep measures (the sweep file's `measure:` keys, docs/configs.md): warm-up, sample counts
// and stopping rules, L2 flushing, the trial timeout, the environment check, and racing.
#pragma once

namespace cuop::measure {

struct settings {
  int warmup_ms = 30;       // minimum warm-up time before samples are kept
  int warmup_cap_ms = 300;  // warm-up ends here even if the clock has not settled (recorded)
  int min_samples = 10;
  int max_samples = 300;
  double max_time_s = 2.0;      // per trial, samples only
  double rel_ci = 0.01;         // stop when the 95% CI of the median is within this of it
  int stable_batches = 3;       // ... or when it stopped narrowing over this many batches of 8
  double stable_change = 0.03;  // (its spread over them under this fraction); 0 batches: off
  double batch_below_us = 20;   // shorter kernels timed as CUDA graphs of several launches; 0: never
  bool flush_l2 = true;
  double timeout_s = 30.0;  // a trial taking longer is killed and stored as "timeout"
  bool env_check = true;    // check the GPU (NVML) before and after a run; bad: run "invalid"
  int max_temp_c = 85;      // a GPU this hot before or after a run makes it invalid
  // strategy: race (docs/measurement.md, racing)
  double race_round_s = 0.05;  // sampling budget of one candidate in one round
  double race_margin = 0.02;   // dropped when its CI low exceeds the best's CI high by this
  int race_rounds = 3;         // elimination rounds
  int race_final_rounds = 4;   // interleaved rounds of the finalists
};

}  // namespace cuop::measure
