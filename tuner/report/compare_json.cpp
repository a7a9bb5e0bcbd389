// compare's JSON: everything the other formats show, with full-precision numbers.
#include <nlohmann/json.hpp>

#include "tuner/report/compare_report.hpp"

namespace cuop::report {

namespace {

using ordered = nlohmann::ordered_json;

ordered env_json(const gate::measured_env& e) {
  return {{"gpu", e.gpu},
          {"sm_count", e.sm_count},
          {"driver", e.driver},
          {"cuda_runtime", e.cuda_runtime},
          {"libraries", e.libraries},
          {"env_key", e.env_key},
          {"source_hash", e.source_hash},
          {"git_rev", e.git_rev}};
}

ordered side_json(const std::string& source, const std::vector<gate::measured_env>& envs) {
  ordered j{{"source", source}, {"environments", ordered::array()}};
  for (const auto& e : envs) j["environments"].push_back(env_json(e));
  return j;
}

ordered compared_json(const gate::compared_side& s) {
  return {{"instance", s.instance},
          {"median_us", s.median_us},
          {"samples", s.sample_count},
          {"raw_samples", s.raw_samples},
          {"environment", s.env}};
}

}  // namespace

std::string render_json(const gate::comparison& c) {
  const auto& t = c.options.limits;
  const auto& b = c.options.bootstrap;
  ordered j;
  j["format"] = "cuop-tune compare 1";
  j["baseline"] = side_json(c.baseline_source, c.baseline_envs);
  j["candidate"] = side_json(c.candidate_source, c.candidate_envs);
  j["warnings"] = c.warnings;
  j["settings"] = {{"thresholds",
                    {{"compute", t.compute},
                     {"memory", t.memory},
                     {"short", t.short_kernel},
                     {"short_below_us", t.short_below_us},
                     {"floor_us", t.floor_us}}},
                   {"confidence", b.confidence},
                   {"resamples", b.resamples},
                   {"seed", b.seed},
                   {"per_config", c.options.per_config}};
  j["summary"] = {{"compared", c.rows.size()},
                  {"slower", c.count(measure::verdict::slower)},
                  {"faster", c.count(measure::verdict::faster)},
                  {"same", c.count(measure::verdict::same)},
                  {"ambiguous", c.count(measure::verdict::ambiguous)},
                  {"approximate", c.approximate_rows()},
                  {"regression", c.regression()}};
  if (c.gate)  // `gate` only: how the sides were measured, and each row's retries
    j["gate"] = {{"mode", c.gate->mode},
                 {"schedule", c.gate->schedule},
                 {"max_retries", c.gate->max_retries},
                 {"retry_passes", c.gate->retry_passes},
                 {"databases", c.gate->databases}};
  j["rows"] = ordered::array();
  for (const auto& r : c.rows) {
    j["rows"].push_back({{"problem", r.problem},
                         {"op", r.op},
                         {"compared", r.winner ? "winner" : "config"},
                         {"baseline", compared_json(r.baseline)},
                         {"candidate", compared_json(r.candidate)},
                         {"ratio", r.ci.ratio},
                         {"ci", {r.ci.lo, r.ci.hi}},
                         {"method", r.ci.approximate ? "normal_approximation" : "bootstrap"},
                         {"class", r.threshold_kind},
                         {"threshold", r.rule.threshold},
                         {"effective_threshold", r.effective_threshold},
                         {"verdict", std::string(measure::verdict_name(r.verdict))}});
    if (c.gate) j["rows"].back()["retries"] = r.retries;
  }
  j["only_in_baseline"] = c.only_in_baseline;
  j["only_in_candidate"] = c.only_in_candidate;
  j["measured_differently"] = c.measured_differently;
  // Sources are paths as given, which may hold any bytes: JSON is UTF-8, so invalid bytes become
  // U+FFFD rather than an exception.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace cuop::report
