// Schema version 6 of the store (PRAGMA user_version = 6): the keys of issue 38. No table changes:
// conv2d's problem keys ("..._r7x7_s1_p3_d1_g512" -> "..._filter7x7_stride1_pad3_dil1_groups512")
// and the instance names of our kernel families are rewritten from their old spelling to the current
// one (key_aliases.hpp: "..._m128_n128_k32_wm64_wn64_s3_g8_sk1" -> "..._block128x128x32_warp64x64_
// stages3_groupm8_splitk1"), and parameters that were renamed (the depthwise family's "stage",
// now "algo", values unchanged) are renamed in params_json. Every row keeps its id, so builds and
// trials keep their configuration; nothing is deleted.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "tuner/store/key_aliases.hpp"
#include "tuner/store/migrations.hpp"

namespace cuop::store::detail {

const char schema_v6_sql[] = "";

namespace {

struct config_row {
  std::int64_t id;
  std::string op, family, instance, params_json;
};

// params_json with renamed parameters under their current names, written as new rows are (sorted
// keys); unchanged text when nothing is renamed.
std::string renamed_params(const config_row& r) {
  auto params = nlohmann::json::parse(r.params_json, nullptr, false);
  if (!params.is_object()) return r.params_json;
  nlohmann::json out = nlohmann::json::object();
  bool renamed = false;
  for (const auto& [name, value] : params.items()) {
    const auto current = renamed_param(r.op, r.family, name);
    renamed = renamed || current.has_value();
    out[current.value_or(name)] = value;
  }
  return renamed ? out.dump() : r.params_json;
}

}  // namespace

namespace {

void rename_problems(connection& c) {
  std::vector<std::pair<std::int64_t, std::string>> renamed;
  {
    statement s(c, "SELECT id, key FROM problems", "reading problems");
    while (s.step())
      if (auto key = renamed_problem(s.text(1))) renamed.emplace_back(s.int64(0), *key);
  }
  statement update(c, "UPDATE problems SET key = ? WHERE id = ?", "renaming problems");
  for (const auto& [id, key] : renamed) {
    update.bind_all(key, id).run();
    update.reset();
  }
}

}  // namespace

void rename_keys_v6(connection& c) {
  rename_problems(c);
  std::vector<config_row> rows;
  {
    statement s(c, "SELECT id, op, family, instance, params_json FROM configs", "reading configurations");
    while (s.step()) rows.push_back({s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4)});
  }
  statement update(c, "UPDATE configs SET instance = ?, params_json = ? WHERE id = ?", "renaming configurations");
  for (const auto& r : rows) {
    const std::string instance = renamed_instance(r.instance).value_or(r.instance);
    const std::string params = renamed_params(r);
    if (instance == r.instance && params == r.params_json) continue;
    update.bind_all(instance, params, r.id).run();
    update.reset();
  }
}

}  // namespace cuop::store::detail
