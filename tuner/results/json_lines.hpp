// Where things are in a JSON text, for messages: nlohmann::json parses without positions, so
// this scans the (already parsed, hence well-formed) text once for the lines of the top-level
// keys and of the elements of the top-level arrays.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cuop::results {

struct json_lines {
  std::map<std::string, int> keys;                   // top-level key -> its line (1-based)
  std::map<std::string, std::vector<int>> elements;  // top-level array -> each element's line

  // The line of `key`, or of element `index` of array `key`; 1 when unknown.
  int of(const std::string& key) const;
  int of(const std::string& key, std::size_t index) const;
};

// `text` must be valid JSON (parse it first): a malformed text gives partial answers.
json_lines scan_json_lines(std::string_view text);

}  // namespace cuop::results
