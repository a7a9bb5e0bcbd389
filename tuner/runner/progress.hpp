// The sweep's progress display: one refreshed line on a terminal (done/total, rate, time left,
// best so far), a line every few seconds otherwise.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

namespace cuop::report {

class progress {
 public:
  // `redraw` false: a line every few seconds even on a terminal (for a second display running
  // beside another, which would otherwise overwrite each other's line).
  progress(std::string label, std::size_t total, std::FILE* out = stderr, bool redraw = true);
  void advance(std::size_t n = 1);
  // Work discovered on the way (a library's configurations, listed on the GPU).
  void add_total(std::size_t n) { m_total += n; }
  // Best median so far for a problem (kept for the display).
  void best(const std::string& problem, double median_us, double gbps);
  void finish();

 private:
  void draw(bool force);

  std::string m_label;
  std::size_t m_total;
  std::size_t m_done = 0;
  std::FILE* m_out;
  bool m_tty;
  std::chrono::steady_clock::time_point m_start, m_last_draw;
  std::string m_best_line;
};

std::string format_duration(double seconds);  // "1h02m", "3m07s", "12s"

}  // namespace cuop::report
