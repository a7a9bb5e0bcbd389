#include "tuner/measure/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "tuner/core/error.hpp"
#include "tuner/measure/statistics.hpp"

namespace cuop::measure {

namespace {

// std::mt19937_64 is specified bit for bit by the standard; the std distributions are not, so the
// draws below are written out to give the same intervals on every standard library.
class draws {
 public:
  explicit draws(std::uint64_t seed) : m_rng(seed) {}

  // rng % n: the bias is below n / 2^64, far under the bootstrap's own Monte Carlo error.
  std::size_t index(std::size_t n) { return static_cast<std::size_t>(m_rng() % n); }

  double uniform_open() {  // in (0, 1): 53 random bits, centred in their cell
    return (static_cast<double>(m_rng() >> 11) + 0.5) * 0x1.0p-53;
  }

  double standard_normal() {  // Box-Muller, one value per pair (simple; speed does not matter)
    const double u1 = uniform_open(), u2 = uniform_open();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  std::mt19937_64 m_rng;
};

// One side, ready to give a bootstrap replicate of its median.
class median_source {
 public:
  explicit median_source(const median_evidence& e, const char* side) {
    if (e.has_samples()) {
      m_sorted = e.samples;
      for (double x : m_sorted)
        if (!(x > 0) || !std::isfinite(x))  // a time; zero would make a ratio infinite
          throw error(std::string(side) + ": a sample is not a positive finite time");
      std::sort(m_sorted.begin(), m_sorted.end());
      m_median = quantile(m_sorted, 0.5);
      m_counts.resize(m_sorted.size());
    } else {
      m_median = e.median;
      // The stored interval is a 95% one; treating it as +-1.96 standard errors is the normal
      // approximation the output labels as such.
      m_se = std::max(0.0, e.ci_hi - e.ci_lo) / (2 * 1.96);
    }
    if (!(m_median > 0) || !std::isfinite(m_median))
      throw error(std::string(side) + ": no samples and no positive median to compare");
  }

  double median() const noexcept { return m_median; }
  bool approximate() const noexcept { return m_sorted.empty(); }

  double replicate(draws& d) {
    if (m_sorted.empty()) {
      // A draw far below the median only happens when the stored CI is as wide as the median
      // itself; the floor keeps the ratio finite without mattering otherwise.
      return std::max(m_median + m_se * d.standard_normal(), 1e-3 * m_median);
    }
    // Resampling the sorted samples by index: the k-th smallest resampled value is the sample at
    // the k-th smallest drawn index, so counting the draws per index finds the median in O(n)
    // without sorting each resample.
    const std::size_t n = m_sorted.size();
    std::fill(m_counts.begin(), m_counts.end(), 0u);
    for (std::size_t i = 0; i < n; ++i) ++m_counts[d.index(n)];
    const std::size_t lo_rank = (n - 1) / 2, hi_rank = n / 2;  // the middle one or two (0-based)
    double lo = 0, hi = 0;
    std::size_t seen = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t next = seen + m_counts[i];
      if (seen <= lo_rank && lo_rank < next) lo = m_sorted[i];
      if (seen <= hi_rank && hi_rank < next) {
        hi = m_sorted[i];
        break;
      }
      seen = next;
    }
    return (lo + hi) / 2;  // the type-7 median of quantile(), as summarize() takes it
  }

 private:
  std::vector<double> m_sorted;
  std::vector<unsigned> m_counts;
  double m_median = 0;
  double m_se = 0;
};

}  // namespace

ratio_interval bootstrap_median_ratio(const median_evidence& baseline, const median_evidence& candidate,
                                      const bootstrap_options& options) {
  if (options.resamples < 1) throw error("bootstrap: resamples must be at least 1");
  if (!(options.confidence > 0 && options.confidence < 1))
    throw error("bootstrap: confidence must lie between 0 and 1");
  median_source base(baseline, "baseline"), cand(candidate, "candidate");
  draws d(options.seed);
  std::vector<double> ratios(static_cast<std::size_t>(options.resamples));
  for (double& r : ratios) {
    const double b = base.replicate(d);  // baseline first: the order is part of the seed's meaning
    r = cand.replicate(d) / b;
  }
  std::sort(ratios.begin(), ratios.end());
  ratio_interval out;
  out.ratio = cand.median() / base.median();
  out.lo = quantile(ratios, (1 - options.confidence) / 2);
  out.hi = quantile(ratios, (1 + options.confidence) / 2);
  out.approximate = base.approximate() || cand.approximate();
  return out;
}

ratio_interval bootstrap_median_ratio(std::span<const double> baseline, std::span<const double> candidate,
                                      const bootstrap_options& options) {
  median_evidence b, c;
  b.samples.assign(baseline.begin(), baseline.end());
  c.samples.assign(candidate.begin(), candidate.end());
  return bootstrap_median_ratio(b, c, options);
}

}  // namespace cuop::measure
