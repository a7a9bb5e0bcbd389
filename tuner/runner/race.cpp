#include "tuner/runner/race.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tuner/measure/statistics.hpp"
#include "tuner/runner/trial_results.hpp"
#include "tuner/strategy/race.hpp"

namespace cuop::runner {

namespace {

struct runner_state {
  race_contender c;
  bool live = true;
  int rounds = 0;               // pooled rounds
  trial::trial_response first;  // the first round's answer (warm-up, batch, clock source)
  std::vector<double> samples, clocks;
  bool capped = false;
};

// One race: its field, and what it measures and stores with.
class race_run {
 public:
  race_run(std::vector<race_contender> field, const measure::settings& settings, const race_callbacks& cb)
      : m_settings(settings), m_cb(cb) {
    for (auto& c : field) {
      runner_state s;
      s.c = std::move(c);
      m_all.push_back(std::move(s));
    }
  }

  // Elimination rounds, then the finalists re-measured interleaved, so drift between rounds weighs
  // on all alike.
  void run() {
    for (int round = 0; round < m_settings.race_rounds; ++round)
      if (!eliminate(round)) break;
    auto finalists = live();
    if (finalists.size() > 1)
      for (int round = 0; round < m_settings.race_final_rounds; ++round)
        for (const auto i : strategy::interleaved_order(finalists.size(), round))
          if (finalists[i]->live) measure(*finalists[i]);
    const auto n = live().size();
    for (auto* s : live())
      finish(*s, "ok", n > 1 ? fmt::format("race finalist ({} of them), {} rounds", n, s->rounds) : "race winner");
  }

 private:
  // One round of `s`; false when it failed (then stored with its failure).
  bool measure(runner_state& s) {
    auto req = s.c.request;
    req.measure.max_time_s = std::min(m_settings.max_time_s, m_settings.race_round_s);
    if (s.rounds > 0) req.force_batch = s.first.batch;  // round 1: as asked (a batch plan, or the timer)
    auto r = m_cb.measure(req);
    if (r.status != "ok") {
      fill_trial(s.c.trial, r);
      s.live = false;
      m_cb.store(s.c.trial);
      m_cb.between();
      return false;
    }
    if (s.rounds == 0) {
      s.first = r;
      s.first.samples_us.clear();
      s.first.clocks_mhz.clear();
    }
    if (r.batch == s.first.batch) {
      s.samples.insert(s.samples.end(), r.samples_us.begin(), r.samples_us.end());
      if (r.clocks_mhz.size() != r.samples_us.size()) r.clocks_mhz.assign(r.samples_us.size(), 0.0);
      s.clocks.insert(s.clocks.end(), r.clocks_mhz.begin(), r.clocks_mhz.end());
      s.capped = s.capped || r.warmup_capped;
      ++s.rounds;
    }
    m_cb.between();
    return true;
  }

  void finish(runner_state& s, const char* status, const std::string& message) {
    fill_trial(s.c.trial, s.first);
    s.c.trial.status = status;
    s.c.trial.message = message;
    s.c.trial.stop_reason = "race";
    s.c.trial.sample_us = std::move(s.samples);
    s.c.trial.sample_clock_mhz = std::move(s.clocks);
    s.c.trial.warmup_capped = s.capped;
    s.live = false;
    m_cb.store(s.c.trial);
  }

  std::vector<runner_state*> live() {
    std::vector<runner_state*> out;
    for (auto& s : m_all)
      if (s.live) out.push_back(&s);
    return out;
  }

  static strategy::race_entry entry_of(const runner_state& s) {
    const auto sum = measure::summarize(s.samples);
    return strategy::race_entry{sum.median, sum.ci_lo, sum.ci_hi};
  }

  // Round `round` of elimination; false when the race is down to one (or none).
  bool eliminate(int round) {
    for (auto* s : live()) measure(*s);
    const auto field_now = live();
    if (field_now.size() <= 1) return false;
    std::vector<strategy::race_entry> entries;
    for (const auto* s : field_now) entries.push_back(entry_of(*s));
    const auto keep = strategy::race_survivors(entries, m_settings.race_margin);
    const auto lead = entries[strategy::race_leader(entries)];
    std::size_t kept = keep.size();
    for (std::size_t i = 0; i < field_now.size(); ++i) {
      if (std::binary_search(keep.begin(), keep.end(), i)) continue;
      if (field_now[i]->c.baseline) {  // measured to the end: every raced problem is a model anchor
        ++kept;
        continue;
      }
      finish(*field_now[i], "dropped_race",
             fmt::format("dropped in round {}: CI [{:.4g}, {:.4g}] us above the best's [{:.4g}, {:.4g}] by more "
                         "than {:g}%",
                         round + 1, entries[i].ci_lo, entries[i].ci_hi, lead.ci_lo, lead.ci_hi,
                         m_settings.race_margin * 100));
    }
    return kept > 1;
  }

  std::vector<runner_state> m_all;
  const measure::settings& m_settings;
  const race_callbacks& m_cb;
};

}  // namespace

void run_race(std::vector<race_contender> field, const measure::settings& settings, const race_callbacks& cb) {
  race_run(std::move(field), settings, cb).run();
}

}  // namespace cuop::runner
