// The SQLite implementation of store::database. Split over open.cpp (opening, pragmas, schema
// checks), runs.cpp, builds.cpp and trials.cpp.
#pragma once

#include <functional>
#include <string_view>

#include "tuner/store/sqlite_handle.hpp"
#include "tuner/store/store.hpp"

namespace cuop::store::detail {

class sqlite_database final : public database {
 public:
  sqlite_database(const std::string& path, open_mode mode, int busy_timeout_ms);

  int user_version() override;

  std::int64_t begin_run(const run_info& r) override;
  void finish_run(std::int64_t run_id, const std::string& state) override;
  void finish_run(std::int64_t run_id, const std::string& state, const std::string& reason) override;
  bool abandon_run(std::int64_t run_id, const std::string& reason) override;
  void set_env_checks(std::int64_t run_id, const std::string& checks_json) override;
  std::vector<run_info> runs() override;
  std::int64_t copy_run(const run_info& r) override;
  std::optional<run_info> run(std::int64_t id) override;

  void put_config(const config_record& c) override;
  void put_build(const build_record& b) override;
  std::vector<build_record> builds(const std::string& op) override;
  std::vector<config_record> configs() override;

  std::int64_t put_trial(const trial_record& t) override;
  bool has_trial(const std::string& env_key, const std::string& problem_key, const std::string& instance) override;
  std::vector<trial_record> trials(const trial_filter& f) override;

 private:
  void require_writable(std::string_view what) const;
  std::int64_t upsert_config(const config_record& c, std::string_view what);
  std::int64_t upsert_problem(const problem_record& p, std::string_view what);

  connection m_conn;
  open_mode m_mode;
};

// Tests only: called inside put_trial's transaction after every row is written, before COMMIT,
// so a test can kill the process or read from another connection mid-write.
extern std::function<void()> put_trial_before_commit;

}  // namespace cuop::store::detail
