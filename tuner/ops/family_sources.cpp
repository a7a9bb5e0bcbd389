#include "tuner/ops/family_sources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/hash.hpp"

namespace cuop::ops {

namespace fs = std::filesystem;

namespace {

// The text with comments replaced by one space; string and character literals kept as they are.
std::string without_comments(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (ch == '/' && next == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else if (ch == '/' && next == '*') {
      const auto end = text.find("*/", i + 2);
      for (std::size_t j = i; j < std::min(end, text.size()); ++j)
        if (text[j] == '\n') out += '\n';  // keep the lines: a directive ends at its newline
      out += ' ';
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (ch == '"' || ch == '\'') {
      out += ch;
      for (++i; i < text.size() && text[i] != ch && text[i] != '\n'; ++i) {
        out += text[i];
        if (text[i] == '\\' && i + 1 < text.size()) out += text[++i];
      }
      if (i < text.size()) out += text[i];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string normalized_source(std::string_view text) {
  std::string out;
  std::string line;
  const auto flush = [&] {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty()) out += line + "\n";
    line.clear();
  };
  for (const char ch : without_comments(text)) {
    if (ch == '\n') {
      flush();
    } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
      if (!line.empty() && line.back() != ' ') line += ' ';
    } else {
      line += ch;
    }
  }
  flush();
  return out;
}

std::vector<std::string> header_closure(const std::vector<std::string>& headers, const std::string& include_dir) {
  static const std::regex include(R"re(^\s*#\s*include\s*[<"]([^>"]+)[>"])re");
  std::set<std::string> seen;
  std::vector<std::string> todo = headers;
  while (!todo.empty()) {
    const std::string h = todo.back();
    todo.pop_back();
    if (!seen.insert(h).second) continue;
    const auto path = (fs::path(include_dir) / h).string();
    const auto text = core::read_file(path);
    if (!text) throw error(fmt::format("{}: cannot read kernel header \"{}\"", path, h));
    std::istringstream lines(*text);
    std::smatch m;
    for (std::string line; std::getline(lines, line);) {
      std::error_code ec;
      if (std::regex_search(line, m, include) && fs::is_regular_file(fs::path(include_dir) / m[1].str(), ec))
        todo.push_back(m[1].str());  // a project header (CUDA's and the standard library's are not ours)
    }
  }
  return {seen.begin(), seen.end()};
}

std::map<std::string, std::string> family_source_hashes(const catalog::op_desc& op) {
  const std::string dir = compile::kernels_include_dir();
  std::string flags;
  for (const auto& f : compile::device_flags()) flags += f + "\n";
  std::map<std::string, std::string> out;
  for (const auto& fam : op.families) {
    if (fam.headers.empty()) continue;
    std::uint64_t h = fnv1a64(flags);
    for (const auto& header : header_closure(fam.headers, dir)) {
      h = fnv1a64(header + "\n", h);
      h = fnv1a64(normalized_source(core::read_file((fs::path(dir) / header).string()).value_or("")), h);
    }
    out[fam.name] = to_hex(h);
  }
  return out;
}

}  // namespace cuop::ops
