#include "tuner/runner/device_pool.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <tuple>

#include "tuner/core/error.hpp"

namespace cuop::runner {

std::vector<int> parse_devices(const std::string& text, int device_count) {
  std::vector<int> out;
  if (text == "all") {
    if (device_count <= 0) throw error("--devices all: no GPU is present");
    for (int i = 0; i < device_count; ++i) out.push_back(i);
    return out;
  }
  std::set<int> seen;
  for (std::size_t a = 0, b; a <= text.size(); a = b + 1) {
    b = text.find(',', a);
    if (b == std::string::npos) b = text.size();
    const std::string entry = text.substr(a, b - a);
    int index = -1;
    const auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), index);
    if (entry.empty() || ec != std::errc() || end != entry.data() + entry.size() || index < 0)
      throw error(
          fmt::format("--devices \"{}\": \"{}\" is not a device index (all, or indices like 0,1)", text, entry));
    if (index >= device_count)
      throw error(fmt::format("--devices \"{}\": device {} requested but {} present", text, index, device_count));
    if (!seen.insert(index).second) throw error(fmt::format("--devices \"{}\": device {} is named twice", text, index));
    out.push_back(index);
  }
  return out;
}

std::string device_pool::uuid() const {
  std::vector<std::string> ids;
  for (const auto& d : devices) ids.push_back(d.uuid);
  std::ranges::sort(ids);
  return fmt::format("{}", fmt::join(ids, ","));
}

std::string device_pool::describe() const {
  std::vector<int> indices;
  for (const auto& d : devices) indices.push_back(d.index);
  const std::string name = devices.empty() ? "(none)" : devices.front().name;
  return devices.size() == 1 ? fmt::format("{} (device {})", name, indices.front())
                             : fmt::format("{} x{} (devices {})", name, devices.size(), fmt::join(indices, ", "));
}

std::vector<device_pool> pools_by_model(const std::vector<trial::device_info>& devices) {
  std::vector<device_pool> out;
  const auto model = [](const trial::device_info& d) {
    return std::tie(d.name, d.cc, d.sm_count, d.l2_bytes, d.driver, d.runtime);
  };
  for (const auto& d : devices) {
    if (!d.present) continue;
    const auto it =
        std::ranges::find_if(out, [&](const device_pool& p) { return model(p.devices.front()) == model(d); });
    if (it == out.end()) out.push_back({{d}});
    else it->devices.push_back(d);
  }
  return out;
}

}  // namespace cuop::runner
