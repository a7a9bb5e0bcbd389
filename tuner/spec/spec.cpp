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
#include "tuner/catalog/catalog.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"
#include "tuner/spec/candidates.hpp"
#include "tuner/spec/constraint.hpp"
#include "tuner/spec/measure_keys.hpp"
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
using detail::parse_candidates;
using detail::parse_constraints;
using detail::parse_measure;
using detail::problem_set_kind;
using detail::read_dimension;
using detail::require;
using detail::yaml_reader;

const std::vector<std::string> top_keys = {"op",           "dtypes",  "problems", "candidates", "constraints",
                                           "targets",      "measure", "strategy", "budget",     "transfer_neighbours",
                                           "transfer_seed"};
const std::vector<std::string> dtype_names = {"f32", "f16", "bf16"};

std::string in_quotes(const std::string& s) { return core::quoted(s); }

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
void add_set_problems(std::vector<problem>&& set, const std::string& kind, const catalog::op_desc& op,
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
std::vector<problem> parse_problems(const yaml_reader& r, const YAML::Node& n, const catalog::op_desc& op,
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
        const catalog::dim_desc rules = op.dim(dim);
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
  if (const catalog::op_desc* d = catalog::find_op(op); d && d->key_of) {
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
  const catalog::op_desc* op = nullptr;
  errors.attempt([&] {
    const entry& op_entry = require(r, root, es, "op", "");
    s.op = r.string(op_entry.value, "\"op\"");
    op = catalog::find_op(s.op);
    if (!op) r.fail(op_entry.value, "unknown op " + in_quotes(s.op) + suggest_suffix(s.op, catalog::op_names()));
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
      if (const double bytes = op->bytes_of(p.dtype, p.dims); !(bytes <= largest_bytes))
        r.fail(p.where, fmt::format("problem {} moves {:.3g} bytes: no GPU holds that (a typo?)", p.key(s.op), bytes));
      if (op->check_problem)
        if (const std::string why = op->check_problem(p.dims); !why.empty())
          r.fail(p.where, fmt::format("problem {}: {}", p.key(s.op), why));
    });
  const entry* candidates = find(es, "candidates");
  errors.attempt(
      [&] { s.candidates = parse_candidates(r, require(r, root, es, "candidates", "").value, *op, errors); });
  if (const entry* e = find(es, "constraints"))
    errors.attempt([&] { s.constraints = parse_constraints(r, e->value, errors); });
  if (const entry* e = find(es, "targets")) errors.attempt([&] { s.targets = parse_targets(r, e->value, errors); });
  else s.targets = compile::default_target_names();
  if (const entry* e = find(es, "measure")) errors.attempt([&] { s.measure = parse_measure(r, e->value, errors); });
  detail::parse_strategy_keys(r, root, es, s, errors);
  if (problems && candidates) check_sizes(r, s, problems, candidates, errors);
  for (const auto& message : constraint_errors(s, op->problem_dims)) errors.add(message);
  errors.throw_if_any();
  return s;
}

sweep load(const std::string& path) {
  return parse(core::read_regular_file(path, core::max_sweep_file_bytes, "sweep file"), path);
}

}  // namespace cuop::spec
