#include "tuner/spec/yaml_guard.hpp"

#include <cstddef>
#include <vector>

namespace cuop::spec::detail {

namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }
bool ends_token(std::string_view s, std::size_t i) { return i >= s.size() || blank(s[i]); }

// Skips what may come before a value's first character: indicators ("- ", "? ", ": ", "---",
// "...") and node properties (&anchor, !tag), with the blanks between them.
std::size_t value_start(std::string_view s, std::size_t i) {
  for (;;) {
    while (i < s.size() && blank(s[i])) ++i;
    if (i >= s.size()) return i;
    if ((s.substr(i, 3) == "---" || s.substr(i, 3) == "...") && ends_token(s, i + 3)) {
      i += 3;
    } else if ((s[i] == '-' || s[i] == '?' || s[i] == ':') && ends_token(s, i + 1)) {
      ++i;
    } else if (s[i] == '&' || s[i] == '!') {  // a name ends at a blank or a flow indicator
      ++i;
      while (i < s.size() && !blank(s[i]) && std::string_view(",[]{}").find(s[i]) == std::string_view::npos) ++i;
    } else {
      return i;
    }
  }
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, (end == std::string_view::npos ? text.size() : end) - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::optional<yaml_hazard> find_yaml_hazard(std::string_view text) {
  const auto lines = split_lines(text);
  int flow = 0;           // depth of [ ] and { }
  char quote = 0;         // the open quote, carried over lines
  int block_indent = -1;  // inside a block scalar: lines indented more than this are its text
  for (std::size_t n = 0; n < lines.size(); ++n) {
    std::string_view s = lines[n];
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    std::size_t indent = 0;
    while (indent < s.size() && s[indent] == ' ') ++indent;
    if (block_indent >= 0) {
      if (indent == s.size() || static_cast<int>(indent) > block_indent) continue;
      block_indent = -1;
    }
    std::size_t i = 0;
    const auto check = [&](std::size_t at) -> std::optional<yaml_hazard> {
      const std::size_t v = value_start(s, at);
      if (v < s.size() && s[v] == ',')
        return yaml_hazard{static_cast<int>(n + 1), static_cast<int>(v + 1),
                           "a value cannot start with ',' outside [ ] or { } (quote it)"};
      return std::nullopt;
    };
    if (quote == 0 && flow == 0) {
      if (auto h = check(0)) return h;
    }
    char last = ' ';      // the character before s[i]
    bool closed = false;  // a quoted scalar or a flow collection ended on this line, outside flows
    // Where a value may start: a quote there opens a quoted scalar; elsewhere (inside a plain
    // scalar such as `it's "so"`) it is text.
    std::size_t value_at = quote == 0 ? value_start(s, 0) : s.size();
    for (; i < s.size(); last = s[i], ++i) {
      const char c = s[i];
      if (quote == '"') {
        if (c == '\\' && i + 1 < s.size()) ++i;  // an escape; at the line's end it escapes the break
        else if (c == '"') quote = 0, closed = flow == 0;
        continue;
      }
      if (quote == '\'') {
        if (c == '\'' && i + 1 < s.size() && s[i + 1] == '\'') ++i;
        else if (c == '\'') quote = 0, closed = flow == 0;
        continue;
      }
      if (c == '#' && blank(last)) break;  // a comment
      if (closed && !blank(c)) {
        if (c != ':' || !ends_token(s, i + 1))
          return yaml_hazard{static_cast<int>(n + 1), static_cast<int>(i + 1),
                             "unexpected text after a closing quote, ']' or '}' (only ':' or a comment may follow)"};
        closed = false;
      }
      if ((c == '"' || c == '\'') && i == value_at) {
        quote = c;
      } else if ((c == '[' || c == '{') && (flow > 0 || i == value_at)) {  // else text: `a[1]`
        ++flow;
        value_at = value_start(s, i + 1);
      } else if ((c == ']' || c == '}') && flow > 0) {
        closed = --flow == 0;
      } else if (flow > 0 && (c == ',' || (c == ':' && ends_token(s, i + 1)))) {
        value_at = value_start(s, i + 1);
      } else if (flow == 0 && c == ':' && ends_token(s, i + 1)) {
        if (auto h = check(i + 1)) return h;
        value_at = value_start(s, i + 1);
      } else if (flow == 0 && (c == '|' || c == '>') && blank(last)) {
        // A block scalar's header ("|", ">-", "|2"): the lines after it are text.
        std::size_t j = i + 1;
        while (j < s.size() && (s[j] == '-' || s[j] == '+' || (s[j] >= '1' && s[j] <= '9'))) ++j;
        while (j < s.size() && blank(s[j])) ++j;
        if (j == s.size() || s[j] == '#') {
          block_indent = static_cast<int>(indent);
          break;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace cuop::spec::detail
