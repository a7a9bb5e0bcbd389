#include "tuner/core/error.hpp"
#include "tuner/store/sqlite_database.hpp"

namespace cuop::store::detail {

std::int64_t sqlite_database::upsert_config(const config_record& c, std::string_view what) {
  // Empty fields never overwrite known ones (a trial or build may carry only the instance).
  if (c.instance.empty()) throw error(m_conn.path() + ": " + std::string(what) + ": empty instance");
  statement up(m_conn,
               "INSERT INTO configs (instance, op, family, dtype, params_json) VALUES (?,?,?,?,?) "
               "ON CONFLICT (instance) DO UPDATE SET "
               "op = coalesce(nullif(excluded.op, ''), op), "
               "family = coalesce(nullif(excluded.family, ''), family), "
               "dtype = coalesce(nullif(excluded.dtype, ''), dtype), "
               "params_json = coalesce(nullif(excluded.params_json, '{}'), params_json)",
               what);
  up.bind_all(c.instance, c.op, c.family, c.dtype, c.params_json.empty() ? "{}" : c.params_json);
  up.run();
  statement id(m_conn, "SELECT id FROM configs WHERE instance = ?", what);
  id.bind(1, c.instance);
  if (!id.step()) throw error(m_conn.path() + ": " + std::string(what) + ": config row missing");
  return id.int64(0);
}

void sqlite_database::put_config(const config_record& c) {
  constexpr const char* what = "put_config";
  require_writable(what);
  transaction tx(m_conn, what);
  upsert_config(c, what);
  tx.commit();
}

void sqlite_database::put_build(const build_record& b) {
  constexpr const char* what = "put_build";
  require_writable(what);
  if (b.instance.empty()) throw error(m_conn.path() + ": put_build: empty instance");
  transaction tx(m_conn, what);
  // A build may be stored before its configuration: a stub row keeps the foreign key valid and
  // is filled in by put_config / put_trial.
  statement stub(m_conn, "INSERT INTO configs (instance) VALUES (?) ON CONFLICT DO NOTHING", what);
  stub.bind(1, b.instance).run();
  statement s(m_conn,
              "INSERT INTO builds (config_id, target, source_hash, status, message, registers, "
              "smem_static, stack_bytes, spill_stores, spill_loads, cubin_hash, compile_ms) "
              "SELECT id, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12 FROM configs "
              "WHERE instance = ?1 "
              "ON CONFLICT (config_id, target, source_hash) DO UPDATE SET status = excluded.status, "
              "message = excluded.message, registers = excluded.registers, "
              "smem_static = excluded.smem_static, stack_bytes = excluded.stack_bytes, "
              "spill_stores = excluded.spill_stores, spill_loads = excluded.spill_loads, "
              "cubin_hash = excluded.cubin_hash, compile_ms = excluded.compile_ms",
              what);
  s.bind_all(b.instance, b.target, b.source_hash, b.status, b.message, b.registers, b.smem_static, b.stack_bytes,
             b.spill_stores, b.spill_loads, b.cubin_hash, b.compile_ms);
  s.run();
  tx.commit();
}

std::vector<build_record> sqlite_database::builds(const std::string& op) {
  statement s(m_conn,
              "SELECT c.instance, b.target, b.source_hash, b.status, b.message, b.registers, "
              "b.smem_static, b.stack_bytes, b.spill_stores, b.spill_loads, b.cubin_hash, "
              "b.compile_ms FROM builds b JOIN configs c ON c.id = b.config_id "
              "WHERE ?1 = '' OR c.op = ?1 "
              "ORDER BY c.instance, b.target, b.source_hash",
              "builds");
  s.bind(1, op);
  std::vector<build_record> out;
  while (s.step()) {
    build_record b;
    b.instance = s.text(0);
    b.target = s.text(1);
    b.source_hash = s.text(2);
    b.status = s.text(3);
    b.message = s.text(4);
    b.registers = static_cast<int>(s.int64(5));
    b.smem_static = s.int64(6);
    b.stack_bytes = s.int64(7);
    b.spill_stores = s.int64(8);
    b.spill_loads = s.int64(9);
    b.cubin_hash = s.text(10);
    b.compile_ms = s.real(11);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<config_record> sqlite_database::configs() {
  statement s(m_conn, "SELECT instance, op, family, dtype, params_json FROM configs ORDER BY instance", "configs");
  std::vector<config_record> out;
  while (s.step()) out.push_back({s.text(0), s.text(1), s.text(2), s.text(3), s.text(4)});
  return out;
}

}  // namespace cuop::store::detail
