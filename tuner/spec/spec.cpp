#include "tuner/spec/spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "cuop/dtype.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"
#include "tuner/ops/op_adapter.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/problem_sets.hpp"
#include "tuner/spec/problem_values.hpp"
#include "tuner/spec/strategy_keys.hpp"
#include "tuner/spec/yaml_guard.hpp"
#include "tuner/spec/yaml_reader.hpp"

namespace cuop::spec {

namespace {

using detail::entry;
using detail::error_collector;
using detail::expand_problem_set;
using detail::find;
using detail::problem_set_kind;
using detail::read_dimension;
using detail::yaml_reader;

const std::vector<std::string> top_keys = {"op",           "dtypes",  "problems", "candidates", "constraints",
                                           "targets",      "measure", "strategy", "budget",     "transfer_neighbours",
                                           "transfer_seed"};
const std::vector<std::string> dtype_names = {"f32", "f16", "bf16"};

std::string in_quotes(const std::string& s) { return core::quoted(s); }

const entry& require(const yaml_reader& r, const YAML::Node& map, const std::vector<entry>& es, const std::string& key,
                     const std::string& context) {
  const entry* e = find(es, key);
  if (!e) r.fail(map, "missing required key " + in_quotes(key) + context);
  return *e;
}

std::vector<std::string> parse_dtypes(const yaml_reader& r, const YAML::Node& n, error_collector& errors) {
  std::vector<std::string> out;
  for (const auto& item : r.list(n, "\"dtypes\"")) {
    errors.attempt([&] {
      std::string d = r.string(item, "dtype");
      if (!parse_dtype(d)) r.fail(item, "unknown dtype " + in_quotes(d) + suggest_suffix(d, dtype_names));
      if (std::find(out.begin(), out.end(), d) != out.end()) r.fail(item, "duplicate dtype " + in_quotes(d));
      out.push_back(std::move(d));
    });
  }
  return out;
}

// Where a problem was first given: a listed one (kind "") or a set's ("grid", "sample").
struct origin {
  location where;
  std::string kind;
  std::string str() const { return where.str() + (kind.empty() ? "" : ", in " + kind); }
};

// The duplicates of one set, one error per place they were first at (a grid over a grid would
// otherwise say the same thing thousands of times); the others join `out`.
void add_set_problems(std::vector<problem>&& set, const std::string& kind, const ops::op_desc& op,
                      std::unordered_map<std::string, origin>& first_at, std::vector<problem>& out,
                      error_collector& errors) {
  struct repeat {
    origin first;
    std::string key;
    std::size_t count = 0;
  };
  std::vector<repeat> repeats;  // in the order first met
  std::unordered_map<std::string, std::size_t> repeat_of_place;
  const location set_at = set.empty() ? location{} : set.front().where;  // before its problems move
  for (auto& p : set) {
    const auto [at, added] = first_at.try_emplace(p.key(op.name), origin{p.where, kind});
    if (added) {
      out.push_back(std::move(p));
      continue;
    }
    const auto [place, first_time] = repeat_of_place.try_emplace(at->second.str(), repeats.size());
    if (first_time) repeats.push_back({at->second, at->first, 0});
    ++repeats[place->second].count;
  }
  for (const auto& r : repeats)
    errors.add(set_at.str() + ": duplicate problem " + in_quotes(r.key) + " in " + kind + " (first at " +
               r.first.str() + ")" + (r.count > 1 ? fmt::format(", and {} more from there", r.count - 1) : ""));
}

// Each problem entry on its own: a bad one is reported and the next is read. Grids and samples
// (problem_sets.hpp) are expanded in place. Duplicates are found through a map of keys (linear in
// the number of problems: files of 100000 problems load in seconds).
std::vector<problem> parse_problems(const yaml_reader& r, const YAML::Node& n, const ops::op_desc& op,
                                    const std::optional<std::vector<std::string>>& default_dtypes,
                                    error_collector& errors) {
  std::vector<std::string> allowed = op.problem_dims;
  // "grid" and "sample" make an entry a set; here they only help "did you mean" for a misspelt one.
  for (const char* key : {"dtype", "dtypes", "grid", "sample"}) allowed.emplace_back(key);
  std::vector<problem> out;
  std::unordered_map<std::string, origin> first_at;
  for (const auto& item : r.list(n, "\"problems\"")) {
    if (const std::string kind = problem_set_kind(item); !kind.empty()) {
      errors.attempt([&] {
        add_set_problems(expand_problem_set(r, item, op, default_dtypes, out.size(), errors), kind, op, first_at, out,
                         errors);
      });
      continue;
    }
    errors.attempt([&] {
      const auto es = r.map(item, allowed, "key", " in problem");
      problem shape;
      shape.where = r.where(item);
      for (const auto& dim : op.problem_dims) {
        const ops::dim_desc rules = op.dim(dim);
        const entry* e = find(es, dim);
        if (!e) {
          if (!rules.fallback) r.fail(item, "missing dimension " + in_quotes(dim) + " in problem");
          shape.dims[dim] = *rules.fallback;
        } else {
          shape.dims[dim] = read_dimension(r, e->value, rules, in_quotes(dim));
        }
      }
      const entry* one = find(es, "dtype");
      const entry* many = find(es, "dtypes");
      std::vector<std::string> dtypes;
      if (one && many) r.fail(many->key_node, "problem has both \"dtype\" and \"dtypes\"");
      if (one) {
        std::string d = r.string(one->value, "\"dtype\"");
        if (!parse_dtype(d)) r.fail(one->value, "unknown dtype " + in_quotes(d) + suggest_suffix(d, dtype_names));
        dtypes.push_back(std::move(d));
      } else if (many) {
        const std::size_t errors_before = errors.added();
        dtypes = parse_dtypes(r, many->value, errors);
        if (errors.added() != errors_before) return;  // said; the problem is left out
      } else if (default_dtypes) {
        dtypes = *default_dtypes;
      } else {
        r.fail(item, "problem has no dtype (give \"dtype\" or \"dtypes\", here or at the top level)");
      }
      for (const auto& d : dtypes) {
        problem p = shape;
        p.dtype = d;
        const auto [at, added] = first_at.try_emplace(p.key(op.name), origin{p.where, ""});
        if (!added) r.fail(item, "duplicate problem " + in_quotes(at->first) + " (first at " + at->second.str() + ")");
        out.push_back(std::move(p));
      }
    });
  }
  return out;
}

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

void push_value(const yaml_reader& r, const YAML::Node& at, param_space& ps, std::set<std::int64_t>& seen,
                std::int64_t v) {
  if (!seen.insert(v).second)
    r.fail(at, "duplicate value \"" + std::to_string(v) + "\" for parameter " + in_quotes(ps.name));
  if (ps.values.size() == max_param_values)
    r.fail(ps.where,
           "parameter " + in_quotes(ps.name) + " expands to more than " + std::to_string(max_param_values) + " values");
  ps.values.push_back(v);
}

// The values a family's parameters take: the library's configurations hold them as non-negative
// ints (kernels::*::set_param refuses others), a custom kernel's template as ints.
struct value_limits {
  std::int64_t lo, hi;
};

value_limits limits_of(const ops::family_desc& fam) {
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
  const std::string what = in_quotes(kind) + " of parameter " + in_quotes(pname);
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
  const std::string what = "parameter " + in_quotes(e.key);
  std::set<std::int64_t> seen;
  const auto add = [&](const YAML::Node& n) {
    const std::string v = r.string(n, what);
    const auto at = std::find(names.begin(), names.end(), v);
    if (at == names.end()) r.fail(n, "unknown " + e.key + " " + in_quotes(v) + suggest_suffix(v, names));
    const auto index = static_cast<std::int64_t>(at - names.begin());
    if (!seen.insert(index).second) r.fail(n, "duplicate value " + in_quotes(v) + " for parameter " + in_quotes(e.key));
    ps.values.push_back(index);
  };
  if (e.value.IsScalar()) add(e.value);
  else if (e.value.IsSequence())
    for (const auto& item : r.list(e.value, what)) add(item);
  else r.fail(e.value, "expected a name or a list of names for " + what + ", got " + r.describe(e.value));
  return ps;
}

param_space parse_param(const yaml_reader& r, const entry& e, const ops::family_desc& fam) {
  if (const auto named = fam.choices.find(e.key); named != fam.choices.end())
    return parse_named_param(r, e, named->second);
  const value_limits l = limits_of(fam);
  param_space ps;
  ps.name = e.key;
  ps.where = r.where(e.value);
  const std::string what = "parameter " + in_quotes(e.key);
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
        if (!is_pow2(b[i]))
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

std::vector<constraint> parse_constraints(const yaml_reader& r, const YAML::Node& n, error_collector& errors) {
  std::vector<constraint> out;
  for (const auto& item : r.list(n, "\"constraints\""))
    errors.attempt([&] { out.push_back({r.string(item, "constraint"), r.where(item)}); });
  return out;
}

// A family takes its required and optional parameters; a custom family also any parameter whose
// name is an identifier (its template's arguments).
std::vector<std::string> parameter_names(const YAML::Node& params, const ops::family_desc& fam) {
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
                       const ops::family_desc& fam, candidate& c) {
  for (const char* key : {"source", "kernel"}) {
    const entry* e = find(es, key);
    if (!fam.user_source) {
      if (e) r.fail(e->key_node, in_quotes(key) + " belongs to family \"custom\" only, not " + in_quotes(c.family));
      continue;
    }
    if (!e) r.fail(item, "missing required key " + in_quotes(key) + " for family \"custom\"");
    const std::string value = r.string(e->value, in_quotes(key));
    if (std::string(key) == "kernel") {
      const bool name_ok = !std::isdigit(static_cast<unsigned char>(value[0])) &&
                           std::all_of(value.begin(), value.end(),
                                       [](unsigned char ch) { return std::isalnum(ch) || ch == '_' || ch == ':'; });
      if (!name_ok)
        r.fail(e->value, "\"kernel\" must name a class template, e.g. my_ns::my_softmax; got " + in_quotes(value));
      c.kernel = value;
      continue;
    }
    namespace fs = std::filesystem;
    fs::path path(value);
    if (path.is_relative()) path = fs::path(r.where(item).file).parent_path() / path;
    std::error_code ec;
    if (const auto kind = core::non_regular_kind(path.string()); !kind.empty())
      r.fail(e->value, "source file " + in_quotes(value) + " is " + kind + ", not a regular file");
    if (!fs::is_regular_file(path, ec))
      r.fail(e->value, "no such source file " + in_quotes(value) + " (looked for " + in_quotes(path.string()) + ")");
    c.source = fs::absolute(path, ec).lexically_normal().string();
  }
}

// Each candidate on its own, and within one each parameter: a bad one is reported and the parser
// goes on. A candidate with an error is left out of the result, so the checks that follow
// (constraints, the size of the space) see only what parsed.
std::vector<candidate> parse_candidates(const yaml_reader& r, const YAML::Node& n, const ops::op_desc& op,
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
      const ops::family_desc* fam = op.find_family(c.family);
      if (!fam)
        r.fail(fam_entry.value, "unknown family " + in_quotes(c.family) + " for op " + in_quotes(op.name) +
                                    suggest_suffix(c.family, op.family_names()));
      const std::string context = " for family " + in_quotes(c.family);
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
            errors.add(r.where(params->value).str() + ": missing parameter " + in_quotes(name) + context);
      } else if (!fam->params.empty()) {
        r.fail(item, "missing required key \"params\" in candidate" + context);
      }
      if (const entry* cs = find(es, "constraints")) c.constraints = parse_constraints(r, cs->value, errors);
    });
    if (errors.added() == errors_before) out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> parse_targets(const yaml_reader& r, const YAML::Node& n, error_collector& errors) {
  std::vector<std::string> out;
  for (const auto& item : r.list(n, "\"targets\"")) {
    errors.attempt([&] {
      std::string t = r.string(item, "target");
      if (!compile::find_target(t))
        r.fail(item, "unknown target " + in_quotes(t) + suggest_suffix(t, compile::target_names()));
      if (std::find(out.begin(), out.end(), t) != out.end()) r.fail(item, "duplicate target " + in_quotes(t));
      out.push_back(std::move(t));
    });
  }
  return out;
}

measure_settings parse_measure(const yaml_reader& r, const YAML::Node& n, error_collector& errors) {
  const std::vector<std::string> keys = {
      "warmup_ms",      "warmup_cap_ms", "min_samples",    "max_samples", "max_time_s",       "rel_ci",
      "stable_batches", "stable_change", "batch_below_us", "flush_l2",    "timeout_s",        "env_check",
      "max_temp_c",     "race_round_s",  "race_margin",    "race_rounds", "race_final_rounds"};
  measure_settings m;
  const auto es = r.map(n, keys, "key", " in \"measure\"", errors);
  auto at_least = [&](const entry& e, std::int64_t lo) {
    const std::int64_t v = r.integer(e.value, in_quotes(e.key));
    if (v < lo || v > 1000000)
      r.fail(e.value, "expected an integer in [" + std::to_string(lo) + ", 1000000] for " + in_quotes(e.key) +
                          ", got " + r.describe(e.value));
    return static_cast<int>(v);
  };
  auto positive = [&](const entry& e, double hi) {
    const double v = r.number(e.value, in_quotes(e.key));
    if (v <= 0 || v >= hi) {
      std::ostringstream range;
      range << "(0, " << hi << ")";
      r.fail(e.value,
             "expected a number in " + range.str() + " for " + in_quotes(e.key) + ", got " + r.describe(e.value));
    }
    return v;
  };
  auto in_range = [&](const entry& e, double lo, double hi) {  // [lo, hi)
    const double v = r.number(e.value, in_quotes(e.key));
    if (v < lo || v >= hi) {
      std::ostringstream range;
      range << "[" << lo << ", " << hi << ")";
      r.fail(e.value,
             "expected a number in " + range.str() + " for " + in_quotes(e.key) + ", got " + r.describe(e.value));
    }
    return v;
  };
  std::set<std::string> failed;
  for (const auto& e : es) {
    const bool ok = errors.attempt([&] {
      if (e.key == "warmup_ms") m.warmup_ms = at_least(e, 0);
      if (e.key == "warmup_cap_ms") m.warmup_cap_ms = at_least(e, 0);
      if (e.key == "stable_batches") m.stable_batches = at_least(e, 0);
      if (e.key == "stable_change") m.stable_change = in_range(e, 0, 1);
      if (e.key == "batch_below_us") m.batch_below_us = in_range(e, 0, 1e6);
      if (e.key == "env_check") m.env_check = r.boolean(e.value, in_quotes(e.key));
      if (e.key == "max_temp_c") m.max_temp_c = at_least(e, 1);
      if (e.key == "race_round_s") m.race_round_s = positive(e, 3600);
      if (e.key == "race_margin") m.race_margin = in_range(e, 0, 1);
      if (e.key == "race_rounds") m.race_rounds = at_least(e, 1);
      if (e.key == "race_final_rounds") m.race_final_rounds = at_least(e, 1);
      if (e.key == "min_samples") m.min_samples = at_least(e, 1);
      if (e.key == "max_samples") m.max_samples = at_least(e, 1);
      if (e.key == "max_time_s") m.max_time_s = positive(e, 3600);
      if (e.key == "rel_ci") m.rel_ci = positive(e, 1);
      if (e.key == "flush_l2") m.flush_l2 = r.boolean(e.value, in_quotes(e.key));
      if (e.key == "timeout_s") m.timeout_s = positive(e, 86400);
    });
    if (!ok) failed.insert(e.key);
  }
  // The checks between two keys, when both were read (a bad one is said already).
  const auto both_read = [&](const char* a, const char* b) { return !failed.contains(a) && !failed.contains(b); };
  auto at = [&](const char* key) { return find(es, key) ? find(es, key)->value : n; };
  if (both_read("min_samples", "max_samples") && m.min_samples > m.max_samples)
    errors.add(r.where(at("min_samples")).str() + ": min_samples \"" + std::to_string(m.min_samples) +
               "\" is greater than max_samples \"" + std::to_string(m.max_samples) + "\"");
  if (both_read("timeout_s", "max_time_s") && m.timeout_s <= m.max_time_s) {
    std::ostringstream msg;
    msg << "timeout_s \"" << m.timeout_s << "\" must be greater than max_time_s \"" << m.max_time_s << "\"";
    errors.add(r.where(at("timeout_s")).str() + ": " + msg.str());
  }
  return m;
}

}  // namespace

std::string location::str() const {
  return core::printable(file) + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string problem::key(const std::string& op) const {
  std::string out = op + "_" + dtype + "_";
  bool first = true;
  auto add = [&](std::int64_t v) {
    if (!first) out += "x";
    out += std::to_string(v);
    first = false;
  };
  if (const ops::op_desc* d = ops::find_op(op); d && d->key_of) {
    out += d->key_of(dims);
  } else if (d) {
    for (const auto& dim : d->problem_dims)
      if (auto it = dims.find(dim); it != dims.end()) add(it->second);
  } else {
    for (const auto& [name, v] : dims) add(v);
  }
  return out;
}

std::vector<std::string> strategy_names() { return {"exhaustive", "race", "transfer"}; }

namespace {

// The file's one YAML document. Several (a "---" between them) are refused at the second: only the
// first would be read, and the rest silently ignored.
YAML::Node load_document(const yaml_reader& r, const std::string& text, const std::string& file_name) {
  // A NUL byte: binary data, which yaml-cpp reports as some escape or token error further on.
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    const auto line_start = text.rfind('\n', nul);
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(nul), '\n'));
    const int column = 1 + static_cast<int>(nul - (line_start == std::string::npos ? 0 : line_start + 1));
    r.fail(location{file_name, line, column}, "a NUL byte: a sweep file is text");
  }
  if (const auto h = detail::find_yaml_hazard(text)) r.fail(location{file_name, h->line, h->column}, h->what);
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {  // its own message is "bad file"
    r.fail(r.where(e.mark), fmt::format("lists and maps nested more than {} deep", e.depth() - 1));
  } catch (const YAML::Exception& e) {
    std::string msg = e.msg;
    if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
    r.fail(r.where(e.mark), msg);
  }
  if (docs.size() > 1)
    r.fail(r.where(docs[1].Mark()), fmt::format("a second YAML document starts here ({} in all): a sweep file is one "
                                                "document (no \"---\" between two)",
                                                docs.size()));
  if (docs.empty() || !docs[0].IsDefined() || docs[0].IsNull()) r.fail(location{file_name, 1, 1}, "empty sweep file");
  return docs[0];
}

// Points of one candidate, saturating: 4 parameters of 4096 values are 2^48 points, which no
// vector holds; the limit check only needs to know that it is over.
std::size_t points_of(const candidate& c) {
  std::size_t points = 1;
  for (const auto& p : c.params) {
    if (!p.values.empty() && points > std::numeric_limits<std::size_t>::max() / p.values.size())
      return std::numeric_limits<std::size_t>::max();
    points *= p.values.size();
  }
  return points;
}

std::string count(std::size_t n) {
  return n == std::numeric_limits<std::size_t>::max() ? std::string("more than 2^64") : std::to_string(n);
}

// The limits of docs/configs.md, "Limits": each said with the size found, before anything is
// enumerated (4 parameters of 4096 values would otherwise end in std::bad_alloc).
void check_sizes(const yaml_reader& r, const sweep& s, const entry* problems, const entry* candidates,
                 error_collector& errors) {
  if (s.problems.size() > max_problems)
    errors.add(r.where(problems->value).str() + fmt::format(": {} problems (dtypes crossed), more than the limit of {}",
                                                            s.problems.size(), max_problems));
  std::size_t total = 0;
  bool over = false;
  for (const auto& c : s.candidates) {
    const std::size_t points = points_of(c);
    if (points > max_space_points) {
      std::string sizes;
      for (const auto& p : c.params) sizes += (sizes.empty() ? "" : " x ") + std::to_string(p.values.size());
      errors.add(c.where.str() + fmt::format(": candidate {} has {} configurations ({} values), more than the limit "
                                             "of {} per sweep file",
                                             core::quoted(c.family), count(points), sizes, max_space_points));
      over = true;
    }
    total = points > max_space_points || total > max_space_points ? max_space_points + 1 : total + points;
  }
  if (over) return;
  if (total > max_space_points) {
    std::size_t exact = 0;
    for (const auto& c : s.candidates) exact += points_of(c);
    errors.add(r.where(candidates->value).str() + fmt::format(": the candidates have {} configurations in all, more "
                                                              "than the limit of {} per sweep file",
                                                              exact, max_space_points));
    return;
  }
  if (s.problems.size() <= max_problems && total > 0 && s.problems.size() > max_enumerated / total)
    errors.add(r.where(candidates->value).str() +
               fmt::format(": {} problems x {} configurations = {} to enumerate, more than the limit of {} per sweep "
                           "file",
                           s.problems.size(), total, s.problems.size() * total, max_enumerated));
}

}  // namespace

sweep parse(const std::string& text, const std::string& file_name) {
  const yaml_reader r(file_name);
  const YAML::Node root = load_document(r, text, file_name);
  if (!root.IsMap()) r.fail(root, "expected a map of sweep settings, got " + r.describe(root));
  error_collector errors(file_name);
  const auto es = r.map(root, top_keys, "key", "", errors);

  sweep s;
  s.file = file_name;
  // Without a known op nothing else can be checked: its errors end the parse.
  const ops::op_desc* op = nullptr;
  errors.attempt([&] {
    const entry& op_entry = require(r, root, es, "op", "");
    s.op = r.string(op_entry.value, "\"op\"");
    op = ops::find_op(s.op);
    if (!op) r.fail(op_entry.value, "unknown op " + in_quotes(s.op) + suggest_suffix(s.op, ops::op_names()));
  });
  if (!op) errors.throw_if_any();

  std::optional<std::vector<std::string>> default_dtypes;
  const std::size_t before_dtypes = errors.added();
  if (const entry* e = find(es, "dtypes")) errors.attempt([&] { default_dtypes = parse_dtypes(r, e->value, errors); });
  // "dtypes" that is not a list is said once, not again as "no dtype" for every problem.
  if (errors.added() != before_dtypes && !default_dtypes) default_dtypes = std::vector<std::string>{};
  const entry* problems = find(es, "problems");
  errors.attempt(
      [&] { s.problems = parse_problems(r, require(r, root, es, "problems", "").value, *op, default_dtypes, errors); });
  // A shape no GPU could hold is a typo, said at its place (also catches sizes that overflow).
  constexpr double largest_bytes = 1e15;  // 1 PB: far above any GPU's memory
  for (const auto& p : s.problems)
    errors.attempt([&] {
      if (const double bytes = ops::adapter_for(s.op).bytes(p); !(bytes <= largest_bytes))
        r.fail(p.where, fmt::format("problem {} moves {:.3g} bytes: no GPU holds that (a typo?)", p.key(s.op), bytes));
    });
  const entry* candidates = find(es, "candidates");
  errors.attempt(
      [&] { s.candidates = parse_candidates(r, require(r, root, es, "candidates", "").value, *op, errors); });
  if (const entry* e = find(es, "constraints"))
    errors.attempt([&] { s.constraints = parse_constraints(r, e->value, errors); });
  if (const entry* e = find(es, "targets")) errors.attempt([&] { s.targets = parse_targets(r, e->value, errors); });
  else s.targets = compile::target_names();
  if (const entry* e = find(es, "measure")) errors.attempt([&] { s.measure = parse_measure(r, e->value, errors); });
  detail::parse_strategy_keys(r, root, es, s, errors);
  if (problems && candidates) check_sizes(r, s, problems, candidates, errors);
  for (const auto& message : space::constraint_errors(s, op->problem_dims)) errors.add(message);
  errors.throw_if_any();
  return s;
}

sweep load(const std::string& path) {
  return parse(core::read_regular_file(path, core::max_sweep_file_bytes, "sweep file"), path);
}

}  // namespace cuop::spec
