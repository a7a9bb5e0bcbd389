#include "tuner/spec/spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "cuop/dtype.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/ops/op_adapter.hpp"
#include "tuner/ops/registry.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/yaml_reader.hpp"

namespace cuop::spec {

namespace {

using detail::entry;
using detail::find;
using detail::yaml_reader;

const std::vector<std::string> top_keys = {"op",          "dtypes",  "problems", "candidates",
                                           "constraints", "targets", "measure",  "strategy"};
const std::vector<std::string> dtype_names = {"f32", "f16", "bf16"};

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

const entry& require(const yaml_reader& r, const YAML::Node& map, const std::vector<entry>& es,
                     const std::string& key, const std::string& context) {
  const entry* e = find(es, key);
  if (!e) r.fail(map, "missing required key " + in_quotes(key) + context);
  return *e;
}

std::vector<std::string> parse_dtypes(const yaml_reader& r, const YAML::Node& n) {
  std::vector<std::string> out;
  for (const auto& item : r.list(n, "\"dtypes\"")) {
    std::string d = r.string(item, "dtype");
    if (!parse_dtype(d)) r.fail(item, "unknown dtype " + in_quotes(d) + suggest_suffix(d, dtype_names));
    if (std::find(out.begin(), out.end(), d) != out.end()) r.fail(item, "duplicate dtype " + in_quotes(d));
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<problem> parse_problems(const yaml_reader& r, const YAML::Node& n,
                                    const ops::op_desc& op,
                                    const std::optional<std::vector<std::string>>& default_dtypes) {
  std::vector<std::string> allowed = op.problem_dims;
  allowed.push_back("dtype");
  allowed.push_back("dtypes");
  std::vector<problem> out;
  for (const auto& item : r.list(n, "\"problems\"")) {
    const auto es = r.map(item, allowed, "key", " in problem");
    problem shape;
    shape.where = r.where(item);
    for (const auto& dim : op.problem_dims) {
      const ops::dim_desc rules = op.dim(dim);
      const entry* e = find(es, dim);
      if (!e) {
        if (!rules.fallback) r.fail(item, "missing dimension " + in_quotes(dim) + " in problem");
        shape.dims[dim] = *rules.fallback;
      } else if (!rules.choices.empty()) {
        const std::string v = r.string(e->value, in_quotes(dim));
        const auto at = std::find(rules.choices.begin(), rules.choices.end(), v);
        if (at == rules.choices.end())
          r.fail(e->value, "unknown " + dim + " " + in_quotes(v) + suggest_suffix(v, rules.choices));
        shape.dims[dim] = at - rules.choices.begin();
      } else {
        shape.dims[dim] = r.integer_at_least(e->value, rules.min, in_quotes(dim));
        if (shape.dims[dim] > rules.max)  // gemm and conv2d take ints: 2^32 groups would be 0
          r.fail(e->value, "expected an integer in [" + std::to_string(rules.min) + ", " +
                               std::to_string(rules.max) + "] for " + in_quotes(dim) + ", got " +
                               r.describe(e->value));
      }
    }
    const entry* one = find(es, "dtype");
    const entry* many = find(es, "dtypes");
    std::vector<std::string> dtypes;
    if (one && many) r.fail(many->key_node, "problem has both \"dtype\" and \"dtypes\"");
    if (one) {
      std::string d = r.string(one->value, "\"dtype\"");
      if (!parse_dtype(d))
        r.fail(one->value, "unknown dtype " + in_quotes(d) + suggest_suffix(d, dtype_names));
      dtypes.push_back(std::move(d));
    } else if (many) {
      dtypes = parse_dtypes(r, many->value);
    } else if (default_dtypes) {
      dtypes = *default_dtypes;
    } else {
      r.fail(item, "problem has no dtype (give \"dtype\" or \"dtypes\", here or at the top level)");
    }
    for (const auto& d : dtypes) {
      problem p = shape;
      p.dtype = d;
      const std::string key = p.key(op.name);
      for (const auto& q : out)
        if (q.key(op.name) == key)
          r.fail(item, "duplicate problem " + in_quotes(key) + " (first at " + q.where.str() + ")");
      out.push_back(std::move(p));
    }
  }
  return out;
}

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

void push_value(const yaml_reader& r, const YAML::Node& at, param_space& ps, std::int64_t v) {
  if (std::find(ps.values.begin(), ps.values.end(), v) != ps.values.end())
    r.fail(at, "duplicate value \"" + std::to_string(v) + "\" for parameter " + in_quotes(ps.name));
  if (ps.values.size() == max_param_values)
    r.fail(ps.where, "parameter " + in_quotes(ps.name) + " expands to more than " +
                         std::to_string(max_param_values) + " values");
  ps.values.push_back(v);
}

// [lo, hi] or [lo, hi, step] of a {range: ...} or {pow2: ...}.
std::vector<std::int64_t> bounds(const yaml_reader& r, const YAML::Node& n, const std::string& kind,
                                 const std::string& pname, bool step_allowed) {
  const std::string what = in_quotes(kind) + " of parameter " + in_quotes(pname);
  const auto items = r.list(n, what);
  const std::string shape = step_allowed ? "[lo, hi] or [lo, hi, step]" : "[lo, hi]";
  if (items.size() < 2 || items.size() > (step_allowed ? 3u : 2u))
    r.fail(n, "expected " + shape + " for " + what + ", got " + std::to_string(items.size()) +
                  (items.size() == 1 ? " element" : " elements"));
  std::vector<std::int64_t> out;
  for (const auto& item : items) out.push_back(r.integer(item, what));
  if (out[0] > out[1])
    r.fail(n, what + " has lo > hi: [" + std::to_string(out[0]) + ", " + std::to_string(out[1]) + "]");
  return out;
}

param_space parse_param(const yaml_reader& r, const entry& e) {
  param_space ps;
  ps.name = e.key;
  ps.where = r.where(e.value);
  const std::string what = "parameter " + in_quotes(e.key);
  const YAML::Node& n = e.value;
  if (n.IsScalar()) {
    push_value(r, n, ps, r.integer(n, what));
  } else if (n.IsSequence()) {
    for (const auto& item : r.list(n, what)) push_value(r, item, ps, r.integer(item, what));
  } else if (n.IsMap()) {
    const auto es = r.map(n, {"range", "pow2"}, "key", " in " + what);
    if (es.size() != 1)
      r.fail(n, "expected exactly one of \"range\" or \"pow2\" for " + what + ", got " +
                    std::to_string(es.size()));
    const entry& form = es.front();
    if (form.key == "range") {
      const auto b = bounds(r, form.value, "range", e.key, true);
      const std::int64_t step = b.size() == 3 ? b[2] : 1;
      if (step <= 0)
        r.fail(form.value[2], "expected a positive step for \"range\" of " + what + ", got \"" +
                                  std::to_string(step) + "\"");
      // Stops while the next step is past hi: `v <= hi; v += step` overflows near INT64_MAX.
      for (std::int64_t v = b[0];; v += step) {
        push_value(r, form.value, ps, v);
        if (static_cast<std::uint64_t>(b[1]) - static_cast<std::uint64_t>(v) < static_cast<std::uint64_t>(step)) break;
      }
    } else {
      const auto b = bounds(r, form.value, "pow2", e.key, false);
      for (int i = 0; i < 2; ++i)
        if (!is_pow2(b[i]))
          r.fail(form.value[i], "bound \"" + std::to_string(b[i]) + "\" of \"pow2\" of " + what +
                                    " is not a power of two");
      for (std::int64_t v = b[0];; v *= 2) {  // as range: v * 2 overflows past 2^62
        push_value(r, form.value, ps, v);
        if (v > b[1] / 2) break;
      }
    }
  } else {
    r.fail(n, "expected a list of integers for " + what + ", got " + r.describe(n));
  }
  return ps;
}

std::vector<constraint> parse_constraints(const yaml_reader& r, const YAML::Node& n) {
  std::vector<constraint> out;
  for (const auto& item : r.list(n, "\"constraints\""))
    out.push_back({r.string(item, "constraint"), r.where(item)});
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
    const bool identifier = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                            std::all_of(name.begin(), name.end(), [](unsigned char ch) {
                              return std::isalnum(ch) || ch == '_';
                            });
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
                           std::all_of(value.begin(), value.end(), [](unsigned char ch) {
                             return std::isalnum(ch) || ch == '_' || ch == ':';
                           });
      if (!name_ok) r.fail(e->value, "\"kernel\" must name a class template, e.g. my_ns::my_softmax; got " + in_quotes(value));
      c.kernel = value;
      continue;
    }
    namespace fs = std::filesystem;
    fs::path path(value);
    if (path.is_relative()) path = fs::path(r.where(item).file).parent_path() / path;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      r.fail(e->value, "no such source file " + in_quotes(value) + " (looked for " + in_quotes(path.string()) + ")");
    c.source = fs::absolute(path, ec).lexically_normal().string();
  }
}

std::vector<candidate> parse_candidates(const yaml_reader& r, const YAML::Node& n,
                                        const ops::op_desc& op) {
  std::vector<candidate> out;
  for (const auto& item : r.list(n, "\"candidates\"")) {
    const auto es = r.map(item, {"family", "params", "constraints", "source", "kernel"}, "key", " in candidate");
    candidate c;
    c.where = r.where(item);
    const entry& fam_entry = require(r, item, es, "family", " in candidate");
    c.family = r.string(fam_entry.value, "\"family\"");
    const ops::family_desc* fam = op.find_family(c.family);
    if (!fam)
      r.fail(fam_entry.value, "unknown family " + in_quotes(c.family) + " for op " + in_quotes(op.name) +
                                  suggest_suffix(c.family, op.family_names()));
    const std::string context = " for family " + in_quotes(c.family);
    parse_user_source(r, item, es, *fam, c);
    if (const entry* params = find(es, "params")) {
      for (const auto& pe : r.map(params->value, parameter_names(params->value, *fam), "parameter", context))
        c.params.push_back(parse_param(r, pe));
      for (const auto& name : fam->params)
        if (std::none_of(c.params.begin(), c.params.end(),
                         [&](const param_space& p) { return p.name == name; }))
          r.fail(params->value, "missing parameter " + in_quotes(name) + context);
    } else if (!fam->params.empty()) {
      r.fail(item, "missing required key \"params\" in candidate" + context);
    }
    if (const entry* cs = find(es, "constraints")) c.constraints = parse_constraints(r, cs->value);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> parse_targets(const yaml_reader& r, const YAML::Node& n) {
  std::vector<std::string> out;
  for (const auto& item : r.list(n, "\"targets\"")) {
    std::string t = r.string(item, "target");
    if (!compile::find_target(t))
      r.fail(item, "unknown target " + in_quotes(t) + suggest_suffix(t, compile::target_names()));
    if (std::find(out.begin(), out.end(), t) != out.end()) r.fail(item, "duplicate target " + in_quotes(t));
    out.push_back(std::move(t));
  }
  return out;
}

measure_settings parse_measure(const yaml_reader& r, const YAML::Node& n) {
  const std::vector<std::string> keys = {
      "warmup_ms",      "warmup_cap_ms", "min_samples", "max_samples",    "max_time_s",
      "rel_ci",         "stable_batches", "stable_change", "batch_below_us", "flush_l2",
      "timeout_s",      "env_check",     "max_temp_c",  "race_round_s",   "race_margin",
      "race_rounds",    "race_final_rounds"};
  measure_settings m;
  const auto es = r.map(n, keys, "key", " in \"measure\"");
  auto at_least = [&](const entry& e, std::int64_t lo) {
    const std::int64_t v = r.integer(e.value, in_quotes(e.key));
    if (v < lo || v > 1000000)
      r.fail(e.value, "expected an integer in [" + std::to_string(lo) + ", 1000000] for " +
                          in_quotes(e.key) + ", got " + r.describe(e.value));
    return static_cast<int>(v);
  };
  auto positive = [&](const entry& e, double hi) {
    const double v = r.number(e.value, in_quotes(e.key));
    if (v <= 0 || v >= hi) {
      std::ostringstream range;
      range << "(0, " << hi << ")";
      r.fail(e.value, "expected a number in " + range.str() + " for " + in_quotes(e.key) + ", got " +
                          r.describe(e.value));
    }
    return v;
  };
  auto in_range = [&](const entry& e, double lo, double hi) {  // [lo, hi)
    const double v = r.number(e.value, in_quotes(e.key));
    if (v < lo || v >= hi) {
      std::ostringstream range;
      range << "[" << lo << ", " << hi << ")";
      r.fail(e.value, "expected a number in " + range.str() + " for " + in_quotes(e.key) + ", got " +
                          r.describe(e.value));
    }
    return v;
  };
  for (const auto& e : es) {
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
  }
  auto at = [&](const char* key) { return find(es, key) ? find(es, key)->value : n; };
  if (m.min_samples > m.max_samples)
    r.fail(at("min_samples"), "min_samples \"" + std::to_string(m.min_samples) +
                                  "\" is greater than max_samples \"" +
                                  std::to_string(m.max_samples) + "\"");
  if (m.timeout_s <= m.max_time_s) {
    std::ostringstream msg;
    msg << "timeout_s \"" << m.timeout_s << "\" must be greater than max_time_s \"" << m.max_time_s
        << "\"";
    r.fail(at("timeout_s"), msg.str());
  }
  return m;
}

}  // namespace

std::string location::str() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
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

std::vector<std::string> strategy_names() { return {"exhaustive", "race"}; }

sweep parse(const std::string& text, const std::string& file_name) {
  const yaml_reader r(file_name);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    std::string msg = e.msg;
    if (!msg.empty()) msg[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(msg[0])));
    r.fail(r.where(e.mark), msg);
  }
  if (!root.IsDefined() || root.IsNull()) r.fail(location{file_name, 1, 1}, "empty sweep file");
  if (!root.IsMap()) r.fail(root, "expected a map of sweep settings, got " + r.describe(root));
  const auto es = r.map(root, top_keys, "key", "");

  sweep s;
  s.file = file_name;
  const entry& op_entry = require(r, root, es, "op", "");
  s.op = r.string(op_entry.value, "\"op\"");
  const ops::op_desc* op = ops::find_op(s.op);
  if (!op) r.fail(op_entry.value, "unknown op " + in_quotes(s.op) + suggest_suffix(s.op, ops::op_names()));

  std::optional<std::vector<std::string>> default_dtypes;
  if (const entry* e = find(es, "dtypes")) default_dtypes = parse_dtypes(r, e->value);
  s.problems = parse_problems(r, require(r, root, es, "problems", "").value, *op, default_dtypes);
  // A shape no GPU could hold is a typo, said at its place (also catches sizes that overflow).
  constexpr double largest_bytes = 1e15;  // 1 PB: far above any GPU's memory
  for (const auto& p : s.problems)
    if (const double bytes = ops::adapter_for(s.op).bytes(p); !(bytes <= largest_bytes))
      r.fail(p.where, fmt::format("problem {} moves {:.3g} bytes: no GPU holds that (a typo?)", p.key(s.op), bytes));
  s.candidates = parse_candidates(r, require(r, root, es, "candidates", "").value, *op);
  if (const entry* e = find(es, "constraints")) s.constraints = parse_constraints(r, e->value);
  if (const entry* e = find(es, "targets"))
    s.targets = parse_targets(r, e->value);
  else
    s.targets = compile::target_names();
  if (const entry* e = find(es, "measure")) s.measure = parse_measure(r, e->value);
  if (const entry* e = find(es, "strategy")) {
    s.strategy = r.string(e->value, "\"strategy\"");
    const auto names = strategy_names();
    if (std::find(names.begin(), names.end(), s.strategy) == names.end())
      r.fail(e->value, "unknown strategy " + in_quotes(s.strategy) + suggest_suffix(s.strategy, names));
  }
  space::check_constraints(s, op->problem_dims);
  return s;
}

sweep load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error("cannot open sweep file \"" + path + "\"");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw error("cannot read sweep file \"" + path + "\"");
  return parse(text.str(), path);
}

}  // namespace cuop::spec
