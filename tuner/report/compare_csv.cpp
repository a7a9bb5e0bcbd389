// compare's CSV: one row per compared row (each problem's winners, then its configurations with
// --per-config), for spreadsheets and plotting; the other formats carry the warnings and settings.
#include "tuner/report/compare_report.hpp"
#include "tuner/report/csv.hpp"

namespace cuop::report {

std::string render_csv(const gate::comparison& c) {
  std::string out =
      csv_row({"problem", "op", "compared", "baseline_instance", "baseline_median_us", "candidate_instance",
               "candidate_median_us", "ratio", "ci_lo", "ci_hi", "method", "class", "effective_threshold", "verdict"});
  for (const auto& r : c.rows)
    out += csv_row({csv_text(r.problem), csv_text(r.op), r.winner ? "winner" : "config", csv_text(r.baseline.instance),
                    csv_number(r.baseline.median_us), csv_text(r.candidate.instance), csv_number(r.candidate.median_us),
                    csv_number(r.ci.ratio), csv_number(r.ci.lo), csv_number(r.ci.hi),
                    r.ci.approximate ? "normal_approximation" : "bootstrap", csv_text(r.threshold_kind),
                    csv_number(r.effective_threshold), std::string(measure::verdict_name(r.verdict))});
  return out;
}

}  // namespace cuop::report
