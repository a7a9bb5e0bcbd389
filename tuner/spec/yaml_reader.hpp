// Checked access to a parsed YAML document: every accessor either returns a well-typed value or
// throws cuop::error at the node's file:line:column, in the project's message style.
#pragma once

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tuner/core/error.hpp"
#include "tuner/spec/spec.hpp"

namespace cuop::spec::detail {

struct entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

// The errors of one file, collected so that `validate` can report every one (like a compiler), up
// to max_reported_errors of them and a count; a message repeated (a top-level constraint that
// fails for each candidate alike) is counted once.
class error_collector {
 public:
  explicit error_collector(std::string file) : m_file(std::move(file)) {}

  void add(const std::string& message);
  // Runs `f`; a cuop::error it throws is added and false returned.
  template <class F>
  bool attempt(F&& f) {
    try {
      f();
      return true;
    } catch (const error_list&) {
      throw;
    } catch (const error& e) {
      add(e.what());
      return false;
    }
  }
  bool empty() const { return m_total == 0; }
  // Every add() so far, repeated messages included: whether a step added an error.
  std::size_t added() const { return m_added; }
  // Throws the errors added so far as one cuop::error_list (nothing when there are none).
  void throw_if_any() const;

 private:
  std::string m_file;
  std::vector<std::string> m_messages;
  std::size_t m_total = 0;
  std::size_t m_added = 0;
};

class yaml_reader {
 public:
  explicit yaml_reader(std::string file) : m_file(std::move(file)) {}

  // 1-based; a node without a mark (absent) reports 1:1.
  location where(const YAML::Node& n) const;
  location where(const YAML::Mark& m) const;
  [[noreturn]] void fail(const location& at, const std::string& message) const;
  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const;

  // The entries of a map in file order. Rejects a non-map, duplicate keys and keys not in
  // `allowed` (with the closest one). `noun` names keys in messages ("key", "parameter");
  // `context` follows it (" for \"measure\"", or empty at the top level).
  std::vector<entry> map(const YAML::Node& n, const std::vector<std::string>& allowed, const std::string& noun,
                         const std::string& context) const;
  // The same, but an unknown or duplicate key is added to `errors` and left out, and the others
  // are returned: one misspelt key does not hide the errors after it. A non-map still throws.
  std::vector<entry> map(const YAML::Node& n, const std::vector<std::string>& allowed, const std::string& noun,
                         const std::string& context, error_collector& errors) const;

  // Scalars and lists. `what` completes "expected ... for <what>" (e.g. "\"rows\"").
  std::vector<YAML::Node> list(const YAML::Node& n, const std::string& what) const;  // non-empty
  std::string string(const YAML::Node& n, const std::string& what) const;            // a non-empty scalar
  std::int64_t integer(const YAML::Node& n, const std::string& what) const;
  std::int64_t positive_integer(const YAML::Node& n, const std::string& what) const;
  std::int64_t integer_at_least(const YAML::Node& n, std::int64_t min, const std::string& what) const;
  double number(const YAML::Node& n, const std::string& what) const;
  bool boolean(const YAML::Node& n, const std::string& what) const;

  // "a map", "a list", "nothing" or the scalar quoted (core::quoted): the "got ..." of a type
  // error.
  static std::string describe(const YAML::Node& n);

 private:
  void map_into(const YAML::Node& n, const std::vector<std::string>& allowed, const std::string& noun,
                const std::string& context, std::vector<entry>& out,
                const std::function<void(const YAML::Node&, const std::string&)>& bad_key) const;

  std::string m_file;
};

// Finds an entry by key; nullptr when absent.
const entry* find(const std::vector<entry>& entries, const std::string& key);
// The entry `key` of `map`; fails at the map with "missing required key "<key>"<context>".
const entry& require(const yaml_reader& r, const YAML::Node& map, const std::vector<entry>& es, const std::string& key,
                     const std::string& context);

}  // namespace cuop::spec::detail
