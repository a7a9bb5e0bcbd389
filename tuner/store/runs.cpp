#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"
#include "tuner/store/sqlite_database.hpp"

namespace cuop::store::detail {
namespace {

constexpr const char* run_columns =
    "id, started_at, finished_at, spec_file, spec_hash, op, mode, state, gpu_name, gpu_uuid, "
    "sm_count, l2_bytes, cc, driver, cuda_runtime, libraries, git_rev, build_flags, source_hash, "
    "hostname, state_reason, env_checks, shard, provenance, family_hashes, pid, pid_start";

run_info read_run(const statement& s) {
  run_info r;
  r.id = s.int64(0);
  r.started_at = s.text(1);
  r.finished_at = s.text(2);                 // NULL reads as ""
  r.spec_file = core::printable(s.text(3));  // any bytes a path held, as valid UTF-8 (see copy_run)
  r.spec_hash = s.text(4);
  r.op = s.text(5);
  r.mode = s.text(6);
  r.state = s.text(7);
  environment& e = r.env;
  e.gpu_name = s.text(8);
  e.gpu_uuid = s.text(9);
  e.sm_count = static_cast<int>(s.int64(10));
  e.l2_bytes = s.int64(11);
  e.cc = static_cast<int>(s.int64(12));
  e.driver = s.text(13);
  e.cuda_runtime = s.text(14);
  e.libraries = s.text(15);
  e.git_rev = s.text(16);
  e.build_flags = s.text(17);
  e.source_hash = s.text(18);
  e.hostname = s.text(19);
  r.state_reason = s.text(20);
  r.env_checks = s.text(21);
  r.shard = s.text(22);
  r.provenance = core::printable(s.text(23));
  r.family_hashes = s.text(24);
  r.pid = s.int64(25);
  r.pid_start = s.int64(26);
  return r;
}

}  // namespace

std::int64_t sqlite_database::begin_run(const run_info& r) {
  run_info fresh = r;  // a run that starts now: nothing of its end, checks or origin yet
  if (fresh.started_at.empty()) fresh.started_at = utc_now();
  if (fresh.state.empty()) fresh.state = "running";
  fresh.finished_at.clear();
  fresh.state_reason.clear();
  fresh.env_checks.clear();
  fresh.provenance.clear();
  return copy_run(fresh);
}

std::int64_t sqlite_database::copy_run(const run_info& r) {
  constexpr const char* what = "copy_run";
  require_writable(what);
  const environment& e = r.env;
  statement s(
      m_conn,
      "INSERT INTO runs (started_at, finished_at, spec_file, spec_hash, op, mode, state, env_key, "
      "gpu_name, gpu_uuid, sm_count, l2_bytes, cc, driver, cuda_runtime, libraries, "
      "git_rev, build_flags, source_hash, hostname, state_reason, env_checks, shard, provenance, "
      "family_hashes, pid, pid_start) VALUES (?,NULLIF(?,''),?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
      what);
  // Paths are stored as printable, valid UTF-8: a file name may hold any bytes, and every reader
  // (export writes JSON, which must be UTF-8; messages) gets text it can show.
  s.bind_all(r.started_at, r.finished_at, core::printable(r.spec_file), r.spec_hash, r.op, r.mode, r.state, e.key(),
             e.gpu_name, e.gpu_uuid, e.sm_count, e.l2_bytes, e.cc, e.driver, e.cuda_runtime, e.libraries, e.git_rev,
             e.build_flags, e.source_hash, e.hostname, r.state_reason, r.env_checks, r.shard,
             core::printable(r.provenance), r.family_hashes, r.pid, r.pid_start);
  s.run();
  return m_conn.last_insert_rowid();
}

void sqlite_database::finish_run(std::int64_t run_id, const std::string& state) { finish_run(run_id, state, ""); }

void sqlite_database::finish_run(std::int64_t run_id, const std::string& state, const std::string& reason) {
  constexpr const char* what = "finish_run";
  require_writable(what);
  statement s(m_conn, "UPDATE runs SET finished_at = ?, state = ?, state_reason = ? WHERE id = ?", what);
  s.bind_all(utc_now(), state, reason, run_id);
  s.run();
  if (m_conn.changes() == 0) throw error(m_conn.path() + ": finish_run: no run with id " + std::to_string(run_id));
}

bool sqlite_database::abandon_run(std::int64_t run_id, const std::string& reason) {
  constexpr const char* what = "abandon_run";
  require_writable(what);
  statement s(m_conn, "UPDATE runs SET state = 'interrupted', state_reason = ? WHERE id = ? AND state = 'running'",
              what);
  s.bind_all(reason, run_id);
  s.run();
  return m_conn.changes() > 0;
}

void sqlite_database::set_env_checks(std::int64_t run_id, const std::string& checks_json) {
  constexpr const char* what = "set_env_checks";
  require_writable(what);
  statement s(m_conn, "UPDATE runs SET env_checks = ? WHERE id = ?", what);
  s.bind_all(checks_json, run_id);
  s.run();
  if (m_conn.changes() == 0) throw error(m_conn.path() + ": set_env_checks: no run with id " + std::to_string(run_id));
}

std::vector<run_info> sqlite_database::runs() {
  statement s(m_conn, std::string("SELECT ") + run_columns + " FROM runs ORDER BY id", "runs");
  std::vector<run_info> out;
  while (s.step()) out.push_back(read_run(s));
  return out;
}

std::optional<run_info> sqlite_database::run(std::int64_t id) {
  statement s(m_conn, std::string("SELECT ") + run_columns + " FROM runs WHERE id = ?", "run");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_run(s);
}

}  // namespace cuop::store::detail
