#include "tuner/emit/arch_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"

namespace cuop::emit {

namespace {

// The compute capabilities CUDA 13's nvcc builds (x 10), and the suffixes each takes: "a"
// (arch-specific) from 9.0, "f" (family-specific) from 10.0.
constexpr std::array<int, 12> k_known_cc = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};

std::vector<std::string> known_spellings() {
  std::vector<std::string> out;
  for (const int cc : k_known_cc) {
    out.push_back(std::to_string(cc));
    if (cc >= 90) out.push_back(std::to_string(cc) + "a");
    if (cc >= 100) out.push_back(std::to_string(cc) + "f");
  }
  return out;
}

[[noreturn]] void unknown(const std::string& raw, const std::string& core) {
  throw error(fmt::format("unknown target \"{}\"{}", raw, suggest_suffix(core, known_spellings())));
}

// The validated table for `cc`: the target of that exact spelling, else the newest portable one
// at or below it.
const compile::target* table_for(const std::string& name, int cc) {
  if (const auto* exact = compile::find_target(name)) return exact;
  const compile::target* best = nullptr;
  for (const auto& t : compile::target_names()) {
    const auto* c = compile::find_target(t);
    if (!c->arch_specific && c->cc <= cc && (!best || c->cc > best->cc)) best = c;
  }
  return best;
}

}  // namespace

served_arch serve(const std::string& raw) {
  std::string core = raw.substr(0, raw.find('-'));  // "-real", "-virtual"
  for (const std::string_view prefix : {"sm_", "compute_"})
    if (core.starts_with(prefix)) core = core.substr(prefix.size());
  const std::string suffix =
      !core.empty() && (core.back() == 'a' || core.back() == 'f') ? core.substr(core.size() - 1) : "";
  const std::string digits = core.substr(0, core.size() - suffix.size());
  int cc = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cc);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() ||
      std::find(k_known_cc.begin(), k_known_cc.end(), cc) == k_known_cc.end() || (suffix == "a" && cc < 90) ||
      (suffix == "f" && cc < 100))
    unknown(raw, core);
  served_arch out{raw, core, cc, !suffix.empty(), {}};
  const auto* table = table_for("sm_" + core, cc);
  if (!table) throw error(fmt::format("target \"{}\": no table serves it (the oldest is sm_75)", raw));
  out.table = table->name;
  return out;
}

std::vector<served_arch> serve_all(const std::vector<std::string>& raw) {
  std::vector<served_arch> out;
  for (const auto& r : raw) {
    auto a = serve(r);
    const auto same = std::find_if(out.begin(), out.end(), [&](const served_arch& o) { return o.cc == a.cc; });
    if (same == out.end()) out.push_back(std::move(a));
    else if (same->specific != a.specific || same->table != a.table)
      throw error(fmt::format("targets \"{}\" and \"{}\" both compile for compute capability {}.{}: name one",
                              same->spelling, a.spelling, a.cc / 10, a.cc % 10));
  }
  std::sort(out.begin(), out.end(), [](const served_arch& a, const served_arch& b) { return a.cc < b.cc; });
  return out;
}

std::string describe(const served_arch& a) {
  return fmt::format("CUDA architecture {} (compute capability {}.{}{}): the {} table", a.name, a.cc / 10, a.cc % 10,
                     a.specific ? ", its own only" : "", a.table);
}

}  // namespace cuop::emit
