// A small XML well-formedness check for the JUnit output: balanced and properly nested tags,
// quoted attributes, no raw '<' or stray '&' in text or attribute values. Counts elements by
// name. Enough to prove the file parses; not a validating parser.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cuop::test {

struct xml_check {
  bool ok = false;
  std::string problem;  // why not, when !ok
  std::map<std::string, int> elements;
};

inline bool xml_text_ok(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') return false;
    if (s[i] == '&') {
      const auto end = s.find(';', i);
      if (end == std::string::npos || end == i + 1) return false;
      const auto name = s.substr(i + 1, end - i - 1);
      if (name != "amp" && name != "lt" && name != "gt" && name != "quot" && name != "apos" && name[0] != '#')
        return false;
    }
  }
  return true;
}

inline xml_check check_xml(const std::string& doc) {
  xml_check r;
  std::vector<std::string> open;
  std::size_t i = 0;
  if (doc.rfind("<?xml", 0) == 0) i = doc.find("?>") + 2;
  bool root_seen = false;
  while (i < doc.size()) {
    const auto lt = doc.find('<', i);
    const auto text = doc.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (!xml_text_ok(text)) return r.problem = "bad text: " + text, r;
    if (open.empty() && text.find_first_not_of(" \n\t\r") != std::string::npos)
      return r.problem = "text outside the root", r;
    if (lt == std::string::npos) break;
    // Attribute values may not hold '>' unescaped in what we write, so the tag ends at the first '>'.
    const auto gt = doc.find('>', lt);
    if (gt == std::string::npos) return r.problem = "unterminated tag", r;
    std::string tag = doc.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (!tag.empty() && tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return r.problem = "mismatched </" + tag.substr(1) + ">", r;
      open.pop_back();
      continue;
    }
    const bool self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.pop_back();
    const auto name_end = tag.find_first_of(" \n\t");
    const auto name = tag.substr(0, name_end);
    if (name.empty()) return r.problem = "empty tag name", r;
    if (open.empty() && root_seen) return r.problem = "two roots", r;
    root_seen = true;
    // Attributes: name="value" pairs, separated by spaces.
    std::size_t a = name_end == std::string::npos ? tag.size() : name_end;
    while (a < tag.size()) {
      if (tag[a] == ' ') {
        ++a;
        continue;
      }
      const auto eq = tag.find('=', a);
      if (eq == std::string::npos || eq + 1 >= tag.size() || tag[eq + 1] != '"')
        return r.problem = "bad attribute in <" + name + ">", r;
      const auto close = tag.find('"', eq + 2);
      if (close == std::string::npos) return r.problem = "unterminated attribute in <" + name + ">", r;
      if (!xml_text_ok(tag.substr(eq + 2, close - eq - 2)))
        return r.problem = "bad attribute value in <" + name + ">", r;
      a = close + 1;
    }
    ++r.elements[name];
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return r.problem = "unclosed <" + open.back() + ">", r;
  if (!root_seen) return r.problem = "no root element", r;
  r.ok = true;
  return r;
}

}  // namespace cuop::test
