#include "tuner/report/compare_phrases.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace cuop::report::detail {

using measure::verdict;

namespace {

std::string percent(double fraction) {
  // "2%", "2.5%", "12.5%": no trailing zeros, so the defaults read as written in the docs
  auto s = fmt::format("{:.2f}", fraction * 100);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + "%";
}

}  // namespace

std::string describe_envs(const std::vector<gate::measured_env>& envs) {
  std::vector<std::string> seen;
  for (const auto& e : envs)
    if (auto d = e.describe(); std::ranges::find(seen, d) == seen.end()) seen.push_back(std::move(d));
  return fmt::format("{}", fmt::join(seen, "; "));
}

std::string verdict_counts(const gate::comparison& c) {
  return fmt::format("{} SLOWER, {} FASTER, {} SAME, {} AMBIGUOUS", c.count(verdict::slower), c.count(verdict::faster),
                     c.count(verdict::same), c.count(verdict::ambiguous));
}

std::string settings_text(const gate::comparison& c) {
  const auto& t = c.options.limits;
  const auto& b = c.options.bootstrap;
  return fmt::format(
      "thresholds: compute {}, memory {}, short (< {:g} us) {}, floor {:g} us; {} bootstrap "
      "interval of median(candidate) / median(baseline), {} resamples, seed {}",
      percent(t.compute), percent(t.memory), t.short_below_us, percent(t.short_kernel), t.floor_us,
      percent(b.confidence), b.resamples, b.seed);
}

std::string gate_text(const gate::comparison& c) {
  if (!c.gate) return "";
  const auto& g = *c.gate;
  const auto how = g.mode == "abba" ? fmt::format(
                                          "gate: both builds measured on this machine in rounds {} (A this "
                                          "build, the candidate; B the other, the baseline), each build's "
                                          "rounds pooled",
                                          g.schedule)
                                    : std::string("gate: this build measured now against the baseline");
  auto out = fmt::format(
      "{}; AMBIGUOUS rows measured again with more samples up to {} times ({} "
      "retry pass{} run)",
      how, g.max_retries, g.retry_passes, g.retry_passes == 1 ? "" : "es");
  if (!g.databases.empty()) out += fmt::format("; databases: {}", fmt::join(g.databases, ", "));
  return out;
}

std::string title(const gate::comparison& c) { return c.gate ? "cuop-tune gate" : "cuop-tune compare"; }

std::string approximation_note(const gate::comparison& c) {
  const int n = c.approximate_rows();
  if (n == 0) return "";
  return fmt::format(
      "~ approximate interval ({} of {} rows): a side had no raw samples (a results file exported "
      "without them, a database whose samples were removed), so its median was drawn from a normal "
      "approximation of its stored 95% CI; export with samples for a bootstrap on both sides",
      n, c.rows.size());
}

std::string interval_text(const gate::comparison_row& r) {
  return fmt::format("{:.3f} [{:.3f}, {:.3f}]{}", r.ci.ratio, r.ci.lo, r.ci.hi, r.ci.approximate ? "~" : "");
}

std::string limit_text(const gate::comparison_row& r) { return "+-" + percent(r.effective_threshold); }

std::string verdict_reason(const gate::comparison_row& r) {
  const double t = r.effective_threshold;
  const auto medians = fmt::format("median {:.2f} us -> {:.2f} us", r.baseline.median_us, r.candidate.median_us);
  const auto ci =
      fmt::format("95% CI of the ratio [{:.3f}, {:.3f}]{}", r.ci.lo, r.ci.hi, r.ci.approximate ? " (approximate)" : "");
  const auto limit = r.effective_threshold > r.rule.threshold
                         ? fmt::format("{} (the {:g} us floor)", percent(t), r.rule.floor_us)
                         : fmt::format("{} ({})", percent(t), r.threshold_kind);
  switch (r.verdict) {
    case verdict::slower: return fmt::format("{}: {} lies above 1 + {}", medians, ci, limit);
    case verdict::faster: return fmt::format("{}: {} lies below 1 - {}", medians, ci, limit);
    case verdict::same: return fmt::format("{}: {} lies within 1 +- {}", medians, ci, limit);
    case verdict::ambiguous: break;
  }
  return fmt::format("{}: {} is neither within nor beyond 1 +- {}; measure again with more samples", medians, ci,
                     limit);
}

}  // namespace cuop::report::detail
