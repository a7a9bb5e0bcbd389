#include "tuner/emit/table_entry.hpp"

#include <fmt/format.h>

namespace cuop::emit {

void set_measured(table_entry& e, const built_model& m, const results::result_trial& t, int cc) {
  e.arch = cc;
  e.gpu = m.file->gpu;
  e.source = m.tuned ? "tuned" : "nearest_arch";
  e.median_us = t.median_us;
  e.provenance = run_provenance(*m.file, t.run);
}

std::string row_comment(const table_entry& e, std::string_view default_name, std::string_view shape) {
  return fmt::format("{}{}", e.source == "fallback" ? std::string(default_name) : fmt::format("{} {}", e.source, shape),
                     e.provenance.empty() ? "" : " <- " + e.provenance);
}

}  // namespace cuop::emit
