#include "tuner/results/results_aliases.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/text.hpp"
#include "tuner/store/key_aliases.hpp"

namespace cuop::results {

namespace {

using json = nlohmann::json;

void upgrade_instance(json& entry, const std::string& where) {
  if (!entry.is_object() || !entry.contains("instance") || !entry["instance"].is_string()) return;
  try {
    if (auto current = store::renamed_instance(entry["instance"].get<std::string>())) entry["instance"] = *current;
  } catch (const error& e) {
    throw error(fmt::format("{}: {}", where, e.what()));
  }
}

void upgrade_params(json& trial, const std::string& op, const std::string& where) {
  if (!trial.is_object() || !trial.contains("params") || !trial["params"].is_object() || !trial.contains("family") ||
      !trial["family"].is_string())
    return;
  const std::string family = trial["family"].get<std::string>();
  json& params = trial["params"];
  json out = json::object();
  for (const auto& [name, value] : params.items()) {
    const auto current = store::renamed_param(op, family, name);
    if (current && params.contains(*current))
      throw error(fmt::format("{}: parameter {} is there under its old name {} too", where, core::quoted(*current),
                              core::quoted(name)));
    out[current.value_or(name)] = value;
  }
  params = std::move(out);
}

}  // namespace

void upgrade_result_keys(json& j, const std::string& path) {
  if (!j.is_object()) return;
  const std::string op = j.contains("op") && j["op"].is_string() ? j["op"].get<std::string>() : "";
  const auto each = [&](const char* list, auto&& upgrade) {
    if (!j.contains(list) || !j[list].is_array()) return;
    for (std::size_t i = 0; i < j[list].size(); ++i)
      upgrade(j[list][i], fmt::format("{}: {}[{}]", core::printable(path), list, i));
  };
  each("trials", [&](json& t, const std::string& where) {
    if (t.is_object() && t.contains("problem") && t["problem"].is_string())
      if (auto current = store::renamed_problem(t["problem"].get<std::string>())) t["problem"] = *current;
    upgrade_instance(t, where);
    upgrade_params(t, op, where);
  });
  each("builds", [&](json& b, const std::string& where) { upgrade_instance(b, where); });
}

}  // namespace cuop::results
