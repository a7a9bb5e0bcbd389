#include "tuner/results/json_lines.hpp"

namespace cuop::results {

int json_lines::of(const std::string& key) const {
  const auto it = keys.find(key);
  return it == keys.end() ? 1 : it->second;
}

int json_lines::of(const std::string& key, std::size_t index) const {
  const auto it = elements.find(key);
  if (it == elements.end() || index >= it->second.size()) return of(key);
  return it->second[index];
}

json_lines scan_json_lines(std::string_view text) {
  json_lines out;
  int line = 1;
  int depth = 0;                // open objects and arrays
  std::string last_string;      // the last string read at depth 1: a key when ':' follows
  std::string array;            // the top-level array being read ("" when none)
  bool expect_element = false;  // inside a top-level array, before an element's first character
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '\n') {
      ++line;
      continue;
    }
    if (ch == ' ' || ch == '\t' || ch == '\r') continue;
    if (depth == 2 && expect_element && !array.empty() && ch != ']') {
      out.elements[array].push_back(line);
      expect_element = false;
    }
    if (ch == '"') {
      const int start_line = line;
      std::string s;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) s += text[++i];
        else s += text[i];
        if (text[i] == '\n') ++line;  // not valid JSON inside a string; kept for robustness
      }
      if (depth == 1) {
        last_string = std::move(s);
        // The key's line; a value string overwrites nothing since only keys precede ':'.
        std::size_t j = i + 1;
        while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r' || text[j] == '\n')) ++j;
        if (j < text.size() && text[j] == ':') out.keys.emplace(last_string, start_line);
      }
      continue;
    }
    if (ch == '{' || ch == '[') {
      if (depth == 1 && ch == '[') {
        array = last_string;
        out.elements[array];
        expect_element = true;
      }
      ++depth;
    } else if (ch == '}' || ch == ']') {
      --depth;
      if (depth == 1) array.clear();
    } else if (ch == ',' && depth == 2 && !array.empty()) {
      expect_element = true;
    }
  }
  return out;
}

}  // namespace cuop::results
