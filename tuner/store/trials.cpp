#include <algorithm>
#include <string>

#include "tuner/core/error.hpp"
#include "tuner/store/sqlite_database.hpp"

namespace cuop::store::detail {

std::function<void()> put_trial_before_commit;

std::int64_t sqlite_database::upsert_problem(const problem_record& p, std::string_view what) {
  if (p.key.empty()) throw error(m_conn.path() + ": " + std::string(what) + ": empty problem key");
  statement up(m_conn,
               "INSERT INTO problems (key, op, dtype, dims_json, bytes) VALUES (?,?,?,?,?) "
               "ON CONFLICT (key) DO UPDATE SET op = excluded.op, dtype = excluded.dtype, "
               "dims_json = excluded.dims_json, bytes = excluded.bytes",
               what);
  up.bind_all(p.key, p.op, p.dtype, p.dims_json.empty() ? "{}" : p.dims_json, p.bytes);
  up.run();
  statement id(m_conn, "SELECT id FROM problems WHERE key = ?", what);
  id.bind(1, p.key);
  if (!id.step()) throw error(m_conn.path() + ": " + std::string(what) + ": problem row missing");
  return id.int64(0);
}

std::int64_t sqlite_database::put_trial(const trial_record& t) {
  constexpr const char* what = "put_trial";
  require_writable(what);
  if (t.status.empty()) throw error(m_conn.path() + ": put_trial: empty status for \"" + t.config.instance + "\"");

  transaction tx(m_conn, what);  // rolls back if anything below throws
  const std::int64_t problem_id = upsert_problem(t.problem, what);
  const std::int64_t config_id = upsert_config(t.config, what);

  // Replace: the old trial's samples go with it (ON DELETE CASCADE).
  statement del(m_conn, "DELETE FROM trials WHERE env_key = ? AND problem_id = ? AND config_id = ?", what);
  del.bind_all(t.env_key, problem_id, config_id).run();

  statement ins(m_conn,
                "INSERT INTO trials (run_id, env_key, problem_id, config_id, device, status, "
                "message, min_us, median_us, q1_us, q3_us, mean_us, stdev_us, ci_lo_us, ci_hi_us, "
                "samples, gbps, max_error, stop_reason, created_at, warmup_ms, warmup_cap_ms, warmup_capped, "
                "batch, clock_source) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                what);
  ins.bind_all(std::int64_t{0}, t.env_key, problem_id, config_id, t.device, t.status, t.message, t.min_us, t.median_us,
               t.q1_us, t.q3_us, t.mean_us, t.stdev_us, t.ci_lo_us, t.ci_hi_us, t.samples, t.gbps, t.max_error,
               t.stop_reason, t.created_at.empty() ? utc_now() : t.created_at, t.warmup_ms, t.warmup_cap_ms,
               t.warmup_capped ? 1 : 0, t.batch, t.clock_source);
  if (t.run_id == 0) ins.bind_null(1);  // not part of a run
  else ins.bind(1, t.run_id);
  ins.run();
  const std::int64_t trial_id = m_conn.last_insert_rowid();

  statement smp(m_conn, "INSERT INTO samples (trial_id, idx, time_us, sm_clock_mhz) VALUES (?,?,?,?)", what);
  for (std::size_t i = 0; i < t.sample_us.size(); ++i) {
    const double mhz = i < t.sample_clock_mhz.size() ? t.sample_clock_mhz[i] : 0.0;
    smp.bind_all(trial_id, static_cast<std::int64_t>(i), t.sample_us[i], mhz);
    smp.run();
    smp.reset();
  }

  if (put_trial_before_commit) put_trial_before_commit();
  tx.commit();
  return trial_id;
}

bool sqlite_database::has_trial(const std::string& env_key, const std::string& problem_key,
                                const std::string& instance) {
  // At most one row: trials are unique on (env_key, problem, config). A trial of a run marked
  // invalid does not count: the next sweep measures it again (and replaces it).
  statement s(m_conn,
              "SELECT t.status FROM trials t JOIN problems p ON p.id = t.problem_id "
              "JOIN configs c ON c.id = t.config_id LEFT JOIN runs r ON r.id = t.run_id "
              "WHERE t.env_key = ? AND p.key = ? AND c.instance = ? "
              "AND (r.state IS NULL OR r.state != 'invalid')",
              "has_trial");
  s.bind_all(env_key, problem_key, instance);
  if (!s.step()) return false;
  const std::string status = s.text(0);
  return std::ranges::any_of(final_statuses, [&](std::string_view f) { return f == status; });
}

std::vector<trial_record> sqlite_database::trials(const trial_filter& f) {
  statement s(m_conn,
              "SELECT t.id, t.run_id, t.env_key, t.device, t.status, t.message, t.min_us, "
              "t.median_us, t.q1_us, t.q3_us, t.mean_us, t.stdev_us, t.ci_lo_us, t.ci_hi_us, "
              "t.samples, t.gbps, t.max_error, t.stop_reason, t.created_at, "
              "p.key, p.op, p.dtype, p.dims_json, p.bytes, "
              "c.instance, c.op, c.family, c.dtype, c.params_json, "
              "t.warmup_ms, t.warmup_capped, t.batch, t.clock_source, t.warmup_cap_ms "
              "FROM trials t JOIN problems p ON p.id = t.problem_id "
              "JOIN configs c ON c.id = t.config_id "
              "WHERE (?1 = '' OR p.op = ?1) AND (?2 = '' OR t.env_key = ?2) "
              "AND (?3 = 0 OR t.run_id = ?3) AND (?4 = 0 OR t.status = 'ok') "
              "ORDER BY p.key, c.instance, t.env_key, t.id",
              "trials");
  s.bind_all(f.op, f.env_key, f.run_id, std::int64_t{f.ok_only ? 1 : 0});

  std::vector<trial_record> out;
  transaction snapshot(m_conn, "trials", transaction::kind::read);  // rows and samples agree
  while (s.step()) {
    trial_record t;
    t.id = s.int64(0);
    t.run_id = s.int64(1);  // NULL reads as 0
    t.env_key = s.text(2);
    t.device = static_cast<int>(s.int64(3));
    t.status = s.text(4);
    t.message = s.text(5);
    t.min_us = s.real(6);
    t.median_us = s.real(7);
    t.q1_us = s.real(8);
    t.q3_us = s.real(9);
    t.mean_us = s.real(10);
    t.stdev_us = s.real(11);
    t.ci_lo_us = s.real(12);
    t.ci_hi_us = s.real(13);
    t.samples = static_cast<int>(s.int64(14));
    t.gbps = s.real(15);
    t.max_error = s.real(16);
    t.stop_reason = s.text(17);
    t.created_at = s.text(18);
    t.problem = {s.text(19), s.text(20), s.text(21), s.text(22), s.real(23)};
    t.config = {s.text(24), s.text(25), s.text(26), s.text(27), s.text(28)};
    t.warmup_ms = s.real(29);
    t.warmup_capped = s.int64(30) != 0;
    t.batch = static_cast<int>(s.int64(31));
    t.clock_source = s.text(32);
    t.warmup_cap_ms = static_cast<int>(s.int64(33));
    out.push_back(std::move(t));
  }

  if (f.with_samples) {
    statement smp(m_conn, "SELECT time_us, sm_clock_mhz FROM samples WHERE trial_id = ? ORDER BY idx", "trials");
    for (trial_record& t : out) {
      smp.bind(1, t.id);
      while (smp.step()) {
        t.sample_us.push_back(smp.real(0));
        t.sample_clock_mhz.push_back(smp.real(1));
      }
      smp.reset();
    }
  }
  snapshot.commit();
  return out;
}

}  // namespace cuop::store::detail
