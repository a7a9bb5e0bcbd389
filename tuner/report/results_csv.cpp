#include "tuner/report/results_csv.hpp"

#include "tuner/report/csv.hpp"

namespace cuop::report {

std::string results_csv(const results::result_file& f, const std::vector<std::string>& dims) {
  std::vector<std::string> header{"gpu", "problem", "dtype"};
  header.insert(header.end(), dims.begin(), dims.end());
  for (const char* name : {"family", "instance", "params", "status", "median_us", "min_us", "q1_us", "q3_us",
                           "ci_lo_us", "ci_hi_us", "samples", "batch", "gbps", "run"})
    header.emplace_back(name);
  std::string out = csv_row(header);
  for (const auto& t : f.trials) {
    std::vector<std::string> row{csv_text(f.gpu), csv_text(t.problem), csv_text(t.dtype)};
    for (const auto& d : dims) {
      const auto it = t.dims.find(d);
      row.push_back(it == t.dims.end() ? std::string() : std::to_string(it->second));
    }
    std::string params;
    for (const auto& [name, value] : t.params)
      params += (params.empty() ? "" : " ") + name + "=" + std::to_string(value);
    row.insert(row.end(), {csv_text(t.family), csv_text(t.instance), csv_text(params), csv_text(t.status),
                           csv_number(t.median_us), csv_number(t.min_us), csv_number(t.q1_us), csv_number(t.q3_us),
                           csv_number(t.ci_lo_us), csv_number(t.ci_hi_us), std::to_string(t.samples),
                           std::to_string(t.batch), csv_number(t.gbps), std::to_string(t.run)});
    out += csv_row(row);
  }
  return out;
}

}  // namespace cuop::report
