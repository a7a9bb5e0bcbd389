#include "tuner/runner/progress.hpp"

#include <fmt/format.h>

#include <unistd.h>
#include <cmath>

namespace cuop::report {

std::string format_duration(double s) {
  const long t = std::lround(s);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

progress::progress(std::string label, std::size_t total, std::FILE* out, bool redraw)
    : m_label(std::move(label)),
      m_total(total),
      m_out(out),
      m_tty(redraw && isatty(fileno(out)) != 0),
      m_start(std::chrono::steady_clock::now()),
      m_last_draw(m_start) {}

void progress::advance(std::size_t n) {
  m_done += n;
  draw(false);
}

void progress::best(const std::string& problem, double median_us, double gbps) {
  m_best_line = fmt::format("best {}: {:.2f} us ({:.0f} GB/s)", problem, median_us, gbps);
}

void progress::draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  const double since_draw = std::chrono::duration<double>(now - m_last_draw).count();
  if (!force && since_draw < (m_tty ? 0.2 : 10.0)) return;
  m_last_draw = now;
  const double elapsed = std::chrono::duration<double>(now - m_start).count();
  const double rate = elapsed > 0 ? static_cast<double>(m_done) / elapsed : 0;
  const std::string eta = rate > 0 ? format_duration(static_cast<double>(m_total - m_done) / rate) : "?";
  const std::string line = fmt::format("{} {}/{} {:.1f}/s eta {} {}", m_label, m_done, m_total, rate, eta, m_best_line);
  if (m_tty) fmt::print(m_out, "\r\033[K{}", line.substr(0, 160));
  else fmt::print(m_out, "{}\n", line);
  std::fflush(m_out);
}

void progress::finish() {
  draw(true);
  if (m_tty) fmt::print(m_out, "\n");
}

}  // namespace cuop::report
