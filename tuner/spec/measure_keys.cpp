#include "tuner/spec/measure_keys.hpp"

#include <string>
#include <vector>

#include "tuner/core/text.hpp"

namespace cuop::spec::detail {

measure::settings parse_measure(const yaml_reader& r, const YAML::Node& n, error_collector& errors) {
  const std::vector<std::string> keys = {
      "warmup_ms",      "warmup_cap_ms", "min_samples",    "max_samples", "max_time_s",       "rel_ci",
      "stable_batches", "stable_change", "batch_below_us", "flush_l2",    "timeout_s",        "env_check",
      "max_temp_c",     "race_round_s",  "race_margin",    "race_rounds", "race_final_rounds"};
  measure::settings m;
  const auto es = r.map(n, keys, "key", " in \"measure\"", errors);
  auto at_least = [&](const entry& e, std::int64_t lo) {
    const std::int64_t v = r.integer(e.value, core::quoted(e.key));
    if (v < lo || v > 1000000)
      r.fail(e.value, "expected an integer in [" + std::to_string(lo) + ", 1000000] for " + core::quoted(e.key) +
                          ", got " + r.describe(e.value));
    return static_cast<int>(v);
  };
  auto positive = [&](const entry& e, double hi) {
    const double v = r.number(e.value, core::quoted(e.key));
    if (v <= 0 || v >= hi) {
      std::ostringstream range;
      range << "(0, " << hi << ")";
      r.fail(e.value,
             "expected a number in " + range.str() + " for " + core::quoted(e.key) + ", got " + r.describe(e.value));
    }
    return v;
  };
  auto in_range = [&](const entry& e, double lo, double hi) {  // [lo, hi)
    const double v = r.number(e.value, core::quoted(e.key));
    if (v < lo || v >= hi) {
      std::ostringstream range;
      range << "[" << lo << ", " << hi << ")";
      r.fail(e.value,
             "expected a number in " + range.str() + " for " + core::quoted(e.key) + ", got " + r.describe(e.value));
    }
    return v;
  };
  std::set<std::string> failed;
  for (const auto& e : es) {
    const bool ok = errors.attempt([&] {
      if (e.key == "warmup_ms") m.warmup_ms = at_least(e, 0);
      if (e.key == "warmup_cap_ms") m.warmup_cap_ms = at_least(e, 0);
      if (e.key == "stable_batches") m.stable_batches = at_least(e, 0);
      if (e.key == "stable_change") m.stable_change = in_range(e, 0, 1);
      if (e.key == "batch_below_us") m.batch_below_us = in_range(e, 0, 1e6);
      if (e.key == "env_check") m.env_check = r.boolean(e.value, core::quoted(e.key));
      if (e.key == "max_temp_c") m.max_temp_c = at_least(e, 1);
      if (e.key == "race_round_s") m.race_round_s = positive(e, 3600);
      if (e.key == "race_margin") m.race_margin = in_range(e, 0, 1);
      if (e.key == "race_rounds") m.race_rounds = at_least(e, 1);
      if (e.key == "race_final_rounds") m.race_final_rounds = at_least(e, 1);
      if (e.key == "min_samples") m.min_samples = at_least(e, 1);
      if (e.key == "max_samples") m.max_samples = at_least(e, 1);
      if (e.key == "max_time_s") m.max_time_s = positive(e, 3600);
      if (e.key == "rel_ci") m.rel_ci = positive(e, 1);
      if (e.key == "flush_l2") m.flush_l2 = r.boolean(e.value, core::quoted(e.key));
      if (e.key == "timeout_s") m.timeout_s = positive(e, 86400);
    });
    if (!ok) failed.insert(e.key);
  }
  // The checks between two keys, when both were read (a bad one is said already).
  const auto both_read = [&](const char* a, const char* b) { return !failed.contains(a) && !failed.contains(b); };
  auto at = [&](const char* key) { return find(es, key) ? find(es, key)->value : n; };
  if (both_read("min_samples", "max_samples") && m.min_samples > m.max_samples)
    errors.add(r.where(at("min_samples")).str() + ": min_samples \"" + std::to_string(m.min_samples) +
               "\" is greater than max_samples \"" + std::to_string(m.max_samples) + "\"");
  if (both_read("timeout_s", "max_time_s") && m.timeout_s <= m.max_time_s) {
    std::ostringstream msg;
    msg << "timeout_s \"" << m.timeout_s << "\" must be greater than max_time_s \"" << m.max_time_s << "\"";
    errors.add(r.where(at("timeout_s")).str() + ": " + msg.str());
  }
  return m;
}

}  // namespace cuop::spec::detail
