#include "tuner/spec/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>

#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"

namespace cuop::spec::detail {

void error_collector::add(const std::string& message) {
  ++m_added;
  if (std::find(m_messages.begin(), m_messages.end(), message) != m_messages.end()) return;
  ++m_total;
  if (m_messages.size() < max_reported_errors) m_messages.push_back(message);
}

void error_collector::throw_if_any() const {
  if (m_total > 0) throw error_list(m_messages, m_total, core::printable(m_file));
}

location yaml_reader::where(const YAML::Mark& m) const {
  if (m.is_null() || m.line < 0) return {m_file, 1, 1};
  return {m_file, m.line + 1, m.column + 1};
}

location yaml_reader::where(const YAML::Node& n) const {
  return n.IsDefined() ? where(n.Mark()) : location{m_file, 1, 1};
}

void yaml_reader::fail(const location& at, const std::string& message) const { throw error(at.str() + ": " + message); }

void yaml_reader::fail(const YAML::Node& at, const std::string& message) const { fail(where(at), message); }

std::string yaml_reader::describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  return core::quoted(n.Scalar());
}

std::vector<entry> yaml_reader::map(const YAML::Node& n, const std::vector<std::string>& allowed,
                                    const std::string& noun, const std::string& context) const {
  std::vector<entry> out;
  map_into(n, allowed, noun, context, out,
           [&](const YAML::Node& at, const std::string& message) { fail(at, message); });
  return out;
}

std::vector<entry> yaml_reader::map(const YAML::Node& n, const std::vector<std::string>& allowed,
                                    const std::string& noun, const std::string& context,
                                    error_collector& errors) const {
  std::vector<entry> out;
  map_into(n, allowed, noun, context, out,
           [&](const YAML::Node& at, const std::string& message) { errors.add(where(at).str() + ": " + message); });
  return out;
}

void yaml_reader::map_into(const YAML::Node& n, const std::vector<std::string>& allowed, const std::string& noun,
                           const std::string& context, std::vector<entry>& out,
                           const std::function<void(const YAML::Node&, const std::string&)>& bad_key) const {
  if (!n.IsMap()) fail(n, "expected a map" + context + ", got " + describe(n));
  for (auto it = n.begin(); it != n.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) {
      bad_key(key, "expected a name as " + noun + context + ", got " + describe(key));
      continue;
    }
    const std::string& name = key.Scalar();
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      bad_key(key, "unknown " + noun + " " + core::quoted(name) + context + suggest_suffix(name, allowed));
      continue;
    }
    if (find(out, name)) {
      bad_key(key, "duplicate " + noun + " " + core::quoted(name) + context);
      continue;
    }
    out.push_back({name, key, it->second});
  }
}

std::vector<YAML::Node> yaml_reader::list(const YAML::Node& n, const std::string& what) const {
  if (!n.IsSequence()) fail(n, "expected a list for " + what + ", got " + describe(n));
  if (n.size() == 0) fail(n, "empty list for " + what);
  std::vector<YAML::Node> out;
  for (const auto& item : n) out.push_back(item);
  return out;
}

std::string yaml_reader::string(const YAML::Node& n, const std::string& what) const {
  if (!n.IsScalar() || n.Scalar().empty()) fail(n, "expected a string for " + what + ", got " + describe(n));
  return n.Scalar();
}

namespace {

// The whole scalar as a number (a leading '+' allowed), or nothing.
template <class T>
std::optional<T> scalar_as(const YAML::Node& n) {
  if (!n.IsScalar()) return std::nullopt;
  const std::string& s = n.Scalar();
  const char* first = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
  const char* last = s.data() + s.size();
  T v{};
  const auto [end, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || end != last || first == last) return std::nullopt;
  return v;
}

}  // namespace

std::int64_t yaml_reader::integer(const YAML::Node& n, const std::string& what) const {
  if (const auto v = scalar_as<std::int64_t>(n)) return *v;
  fail(n, "expected an integer for " + what + ", got " + describe(n));
}

std::int64_t yaml_reader::positive_integer(const YAML::Node& n, const std::string& what) const {
  const auto v = scalar_as<std::int64_t>(n);
  if (!v || *v <= 0) fail(n, "expected a positive integer for " + what + ", got " + describe(n));
  return *v;
}

std::int64_t yaml_reader::integer_at_least(const YAML::Node& n, std::int64_t min, const std::string& what) const {
  if (min == 1) return positive_integer(n, what);
  const auto v = scalar_as<std::int64_t>(n);
  if (!v || *v < min)
    fail(n, "expected an integer >= " + std::to_string(min) + " for " + what + ", got " + describe(n));
  return *v;
}

double yaml_reader::number(const YAML::Node& n, const std::string& what) const {
  const auto v = scalar_as<double>(n);
  if (!v || !std::isfinite(*v)) fail(n, "expected a number for " + what + ", got " + describe(n));
  return *v;
}

bool yaml_reader::boolean(const YAML::Node& n, const std::string& what) const {
  bool v = false;
  if (n.IsScalar() && YAML::convert<bool>::decode(n, v)) return v;
  fail(n, "expected true or false for " + what + ", got " + describe(n));
}

const entry* find(const std::vector<entry>& entries, const std::string& key) {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

const entry& require(const yaml_reader& r, const YAML::Node& map, const std::vector<entry>& es, const std::string& key,
                     const std::string& context) {
  const entry* e = find(es, key);
  if (!e) r.fail(map, "missing required key " + core::quoted(key) + context);
  return *e;
}

}  // namespace cuop::spec::detail
