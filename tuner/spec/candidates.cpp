#include "tuner/spec/candidates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <filesystem>
#include <limits>
#include <set>

#include "tuner/core/files.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"

namespace cuop::spec::detail {

namespace {

void push_value(const yaml_reader& r, const YAML::Node& at, param_space& ps, std::set<std::int64_t>& seen,
                std::int64_t v) {
  if (!seen.insert(v).second)
    r.fail(at, "duplicate value \"" + std::to_string(v) + "\" for parameter " + core::quoted(ps.name));
  if (ps.values.size() == max_param_values)
    r.fail(ps.where, "parameter " + core::quoted(ps.name) + " expands to more than " +
                         std::to_string(max_param_values) + " values");
  ps.values.push_back(v);
}

// The values a family's parameters take: the library's configurations hold them as non-negative
// ints (kernels::*::set_param refuses others), a custom kernel's template as ints.
struct value_limits {
  std::int64_t lo, hi;
};

value_limits limits_of(const catalog::family_desc& fam) {
  return {fam.user_source ? std::numeric_limits<int>::min() : 0, std::numeric_limits<int>::max()};
}

std::int64_t param_value(const yaml_reader& r, const YAML::Node& n, const std::string& what, const value_limits& l) {
  const std::int64_t v = r.integer(n, what);
  if (v < l.lo || v > l.hi)
    r.fail(n, fmt::format("expected an integer from {} to {} for {}, got {}", l.lo, l.hi, what, r.describe(n)));
  return v;
}

// [lo, hi] or [lo, hi, step] of a {range: ...} or {pow2: ...}; lo and hi within `l`.
std::vector<std::int64_t> bounds(const yaml_reader& r, const YAML::Node& n, const std::string& kind,
                                 const std::string& pname, bool step_allowed, const value_limits& l) {
  const std::string what = core::quoted(kind) + " of parameter " + core::quoted(pname);
  const auto items = r.list(n, what);
  const std::string shape = step_allowed ? "[lo, hi] or [lo, hi, step]" : "[lo, hi]";
  if (items.size() < 2 || items.size() > (step_allowed ? 3u : 2u))
    r.fail(n, "expected " + shape + " for " + what + ", got " + std::to_string(items.size()) +
                  (items.size() == 1 ? " element" : " elements"));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out.push_back(i < 2 ? param_value(r, items[i], what, l) : r.integer(items[i], what));
  if (out[0] > out[1])
    r.fail(n, what + " has lo > hi: [" + std::to_string(out[0]) + ", " + std::to_string(out[1]) + "]");
  return out;
}

// A parameter with named values (family_desc::choices): a name or a list of names, each stored as
// its index.
param_space parse_named_param(const yaml_reader& r, const entry& e, const std::vector<std::string>& names) {
  param_space ps;
  ps.name = e.key;
  ps.where = r.where(e.value);
  ps.choices = names;
  const std::string what = "parameter " + core::quoted(e.key);
  std::set<std::int64_t> seen;
  const auto add = [&](const YAML::Node& n) {
    const std::string v = r.string(n, what);
    const auto at = std::find(names.begin(), names.end(), v);
    if (at == names.end()) r.fail(n, "unknown " + e.key + " " + core::quoted(v) + suggest_suffix(v, names));
    const auto index = static_cast<std::int64_t>(at - names.begin());
    if (!seen.insert(index).second)
      r.fail(n, "duplicate value " + core::quoted(v) + " for parameter " + core::quoted(e.key));
    ps.values.push_back(index);
  };
  if (e.value.IsScalar()) add(e.value);
  else if (e.value.IsSequence())
    for (const auto& item : r.list(e.value, what)) add(item);
  else r.fail(e.value, "expected a name or a list of names for " + what + ", got " + r.describe(e.value));
  return ps;
}

param_space parse_param(const yaml_reader& r, const entry& e, const catalog::family_desc& fam) {
  if (const auto named = fam.choices.find(e.key); named != fam.choices.end())
    return parse_named_param(r, e, named->second);
  const value_limits l = limits_of(fam);
  param_space ps;
  ps.name = e.key;
  ps.where = r.where(e.value);
  const std::string what = "parameter " + core::quoted(e.key);
  const YAML::Node& n = e.value;
  std::set<std::int64_t> seen;
  if (n.IsScalar()) {
    push_value(r, n, ps, seen, param_value(r, n, what, l));
  } else if (n.IsSequence()) {
    for (const auto& item : r.list(n, what)) push_value(r, item, ps, seen, param_value(r, item, what, l));
  } else if (n.IsMap()) {
    const auto es = r.map(n, {"range", "pow2"}, "key", " in " + what);
    if (es.size() != 1)
      r.fail(n, "expected exactly one of \"range\" or \"pow2\" for " + what + ", got " + std::to_string(es.size()));
    const entry& form = es.front();
    if (form.key == "range") {
      const auto b = bounds(r, form.value, "range", e.key, true, l);
      const std::int64_t step = b.size() == 3 ? b[2] : 1;
      if (step <= 0)
        r.fail(form.value[2],
               "expected a positive step for \"range\" of " + what + ", got \"" + std::to_string(step) + "\"");
      // Stops before a step past hi would overflow.
      for (std::int64_t v = b[0];; v += step) {
        push_value(r, form.value, ps, seen, v);
        if (static_cast<std::uint64_t>(b[1]) - static_cast<std::uint64_t>(v) < static_cast<std::uint64_t>(step)) break;
      }
    } else {
      const auto b = bounds(r, form.value, "pow2", e.key, false, l);
      for (int i = 0; i < 2; ++i)
        if (!(b[i] > 0 && std::has_single_bit(static_cast<std::uint64_t>(b[i]))))
          r.fail(form.value[i],
                 "bound \"" + std::to_string(b[i]) + "\" of \"pow2\" of " + what + " is not a power of two");
      for (std::int64_t v = b[0];; v *= 2) {
        push_value(r, form.value, ps, seen, v);
        if (v > b[1] / 2) break;
      }
    }
  } else {
    r.fail(n, "expected a list of integers for " + what + ", got " + r.describe(n));
  }
  return ps;
}

// A family takes its required and optional parameters; a custom family also any parameter whose
// name is an identifier (its template's arguments).
std::vector<std::string> parameter_names(const YAML::Node& params, const catalog::family_desc& fam) {
  std::vector<std::string> names = fam.params;
  names.insert(names.end(), fam.optional_params.begin(), fam.optional_params.end());
  if (!fam.user_source || !params.IsMap()) return names;
  for (const auto& kv : params) {
    const auto name = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const bool identifier =
        !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
        std::all_of(name.begin(), name.end(), [](unsigned char ch) { return std::isalnum(ch) || ch == '_'; });
    if (identifier && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

// "source" and "kernel": required by a custom family, refused by every other.
void parse_user_source(const yaml_reader& r, const YAML::Node& item, const std::vector<entry>& es,
                       const catalog::family_desc& fam, candidate& c) {
  for (const char* key : {"source", "kernel"}) {
    const entry* e = find(es, key);
    if (!fam.user_source) {
      if (e)
        r.fail(e->key_node, core::quoted(key) + " belongs to family \"custom\" only, not " + core::quoted(c.family));
      continue;
    }
    if (!e) r.fail(item, "missing required key " + core::quoted(key) + " for family \"custom\"");
    const std::string value = r.string(e->value, core::quoted(key));
    if (std::string(key) == "kernel") {
      const bool name_ok = !std::isdigit(static_cast<unsigned char>(value[0])) &&
                           std::all_of(value.begin(), value.end(),
                                       [](unsigned char ch) { return std::isalnum(ch) || ch == '_' || ch == ':'; });
      if (!name_ok)
        r.fail(e->value, "\"kernel\" must name a class template, e.g. my_ns::my_softmax; got " + core::quoted(value));
      c.kernel = value;
      continue;
    }
    namespace fs = std::filesystem;
    fs::path path(value);
    if (path.is_relative()) path = fs::path(r.where(item).file).parent_path() / path;
    std::error_code ec;
    if (const auto kind = core::non_regular_kind(path.string()); !kind.empty())
      r.fail(e->value, "source file " + core::quoted(value) + " is " + kind + ", not a regular file");
    if (!fs::is_regular_file(path, ec))
      r.fail(e->value,
             "no such source file " + core::quoted(value) + " (looked for " + core::quoted(path.string()) + ")");
    c.source = fs::absolute(path, ec).lexically_normal().string();
  }
}

}  // namespace

std::vector<constraint> parse_constraints(const yaml_reader& r, const YAML::Node& n, error_collector& errors) {
  std::vector<constraint> out;
  for (const auto& item : r.list(n, "\"constraints\""))
    errors.attempt([&] { out.push_back({r.string(item, "constraint"), r.where(item)}); });
  return out;
}

// Each candidate on its own, and within one each parameter: a bad one is reported and the parser
// goes on. A candidate with an error is left out of the result, so the checks that follow
// (constraints, the size of the space) see only what parsed.
std::vector<candidate> parse_candidates(const yaml_reader& r, const YAML::Node& n, const catalog::op_desc& op,
                                        error_collector& errors) {
  std::vector<candidate> out;
  for (const auto& item : r.list(n, "\"candidates\"")) {
    const std::size_t errors_before = errors.added();
    candidate c;
    errors.attempt([&] {
      const auto es =
          r.map(item, {"family", "params", "constraints", "source", "kernel"}, "key", " in candidate", errors);
      c.where = r.where(item);
      const entry& fam_entry = require(r, item, es, "family", " in candidate");
      c.family = r.string(fam_entry.value, "\"family\"");
      const catalog::family_desc* fam = op.find_family(c.family);
      if (!fam)
        r.fail(fam_entry.value, "unknown family " + core::quoted(c.family) + " for op " + core::quoted(op.name) +
                                    suggest_suffix(c.family, op.family_names()));
      const std::string context = " for family " + core::quoted(c.family);
      errors.attempt([&] { parse_user_source(r, item, es, *fam, c); });
      if (const entry* params = find(es, "params")) {
        if (params->value.IsMap() && params->value.size() > max_candidate_params)
          r.fail(params->value, fmt::format("{} parameters{}: more than the limit of {}", params->value.size(), context,
                                            max_candidate_params));
        // A parameter that failed, or that a misspelt one was meant to be ("splitk" for "split_k"), is
        // not also said to be missing.
        std::set<std::string> failed;
        const auto names = parameter_names(params->value, *fam);
        for (const auto& pe : r.map(params->value, names, "parameter", context, errors))
          if (!errors.attempt([&] { c.params.push_back(parse_param(r, pe, *fam)); })) failed.insert(pe.key);
        if (params->value.IsMap())
          for (const auto& kv : params->value)
            if (kv.first.IsScalar())
              if (const auto meant = closest_name(kv.first.Scalar(), names)) failed.insert(*meant);
        for (const auto& name : fam->params)
          if (!failed.contains(name) &&
              std::none_of(c.params.begin(), c.params.end(), [&](const param_space& p) { return p.name == name; }))
            errors.add(r.where(params->value).str() + ": missing parameter " + core::quoted(name) + context);
      } else if (!fam->params.empty()) {
        r.fail(item, "missing required key \"params\" in candidate" + context);
      }
      if (const entry* cs = find(es, "constraints")) c.constraints = parse_constraints(r, cs->value, errors);
    });
    if (errors.added() == errors_before) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace cuop::spec::detail
