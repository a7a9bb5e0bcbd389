// Reads the resource usage of one entry from ptxas -v output. Both spellings are accepted: NVRTC's
// ("ptxas         .     0 bytes stack frame, ...") and nvcc's ("    0 bytes stack frame, ...").
#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <sstream>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"

namespace cuop::compile {

namespace {

// The integer right before `what` in `line` (e.g. 1024 in "1024 bytes smem"), if `what` is there.
std::optional<long long> number_before(std::string_view line, std::string_view what) {
  const auto pos = line.find(what);
  if (pos == std::string_view::npos) return std::nullopt;
  auto end = pos;
  while (end > 0 && line[end - 1] == ' ') --end;
  auto begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  if (begin == end) return std::nullopt;
  return std::stoll(std::string(line.substr(begin, end - begin)));
}

// The name quoted after `prefix` ("Compiling entry function 'k1' for ..." gives k1), or the rest
// of the line when the name is not quoted ("Function properties for k1").
std::optional<std::string> name_after(std::string_view line, std::string_view prefix) {
  const auto pos = line.find(prefix);
  if (pos == std::string_view::npos) return std::nullopt;
  auto rest = line.substr(pos + prefix.size());
  if (!rest.empty() && rest.front() == '\'') {
    rest.remove_prefix(1);
    return std::string(rest.substr(0, rest.find('\'')));
  }
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
  return std::string(rest);
}

}  // namespace

resource_usage parse_ptxas_log(const std::string& log, const std::string& entry) {
  resource_usage usage;
  bool entry_seen = false, used_seen = false, stack_seen = false;
  std::string compiling;   // entry whose "Used" line comes next
  std::string properties;  // function whose stack/spill line comes next
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (auto name = name_after(line, "Compiling entry function ")) {
      compiling = *name;
      entry_seen = entry_seen || compiling == entry;
    } else if (auto name = name_after(line, "Function properties for ")) {
      properties = *name;
    } else if (auto stack = number_before(line, " bytes stack frame")) {
      if (properties == entry && !stack_seen) {
        stack_seen = true;
        usage.stack_bytes = *stack;
        usage.spill_stores = number_before(line, " bytes spill stores").value_or(0);
        usage.spill_loads = number_before(line, " bytes spill loads").value_or(0);
      }
      properties.clear();
    } else if (line.find("Used ") != std::string::npos && compiling == entry && !used_seen) {
      used_seen = true;
      usage.registers = static_cast<int>(number_before(line, " registers").value_or(0));
      usage.smem_static = number_before(line, " bytes smem").value_or(0);
      compiling.clear();  // a second compilation of the same name (another arch) is ignored
    }
  }
  if (!entry_seen) throw error(fmt::format("ptxas log: entry function \"{}\" not found", entry));
  if (!used_seen) throw error(fmt::format("ptxas log: no resource usage for entry function \"{}\"", entry));
  return usage;
}

}  // namespace cuop::compile
