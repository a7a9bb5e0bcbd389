#include "tuner/spec/problem_sets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <unordered_set>

#include "cuop/dtype.hpp"
#include "tuner/core/seeded_random.hpp"
#include "tuner/core/text.hpp"
#include "tuner/spec/constraint.hpp"
#include "tuner/spec/problem_values.hpp"

namespace cuop::spec::detail {

namespace {

std::string in_quotes(const std::string& s) { return core::quoted(s); }

// A set's `where`: a constraint over the problem's dimensions and elem_bytes, compiled once by
// the candidates' machinery (a candidate without parameters holds it).
class where_filter {
 public:
  where_filter(const constraint& c, const catalog::op_desc& op) : m_holder(std::make_unique<candidate>()) {
    m_holder->constraints = {c};
    m_set = std::make_unique<detail::constraint_set>(*m_holder, std::vector<constraint>{}, op.problem_dims);
  }
  const std::string& expr() const { return m_holder->constraints.front().expr; }

  bool holds(const problem& p, const std::string& key) const {
    for (const auto& [name, v] : p.dims) m_set->set_symbol(name, static_cast<double>(v));
    m_set->set_symbol("elem_bytes", static_cast<double>(size_of(*parse_dtype(p.dtype))));
    return m_set->first_false([&] { return "problem " + key; }) == nullptr;
  }

 private:
  std::unique_ptr<candidate> m_holder;  // the set keeps pointers into its constraints
  std::unique_ptr<detail::constraint_set> m_set;
};

// What a set's fields say, read and checked; the laws of a sample or the values of a grid.
struct set_fields {
  std::map<std::string, std::vector<std::int64_t>> values;  // grid: each dimension's values
  std::map<std::string, draw_law> laws;                     // sample: each dimension's law
  std::vector<std::string> crossed_dtypes;                  // every problem in each of these
  std::optional<draw_law> drawn_dtype;                      // sample: `dtype` drawn (an index of dtype_dim)
  std::unique_ptr<where_filter> where;
  std::int64_t count = 0;  // sample: how many draws to keep
  std::uint64_t seed = 0;
};

std::vector<std::string> names_of(const std::vector<std::int64_t>& indexes) {
  const auto all = dtype_dim().choices;
  std::vector<std::string> out;
  for (auto i : indexes) out.push_back(all[static_cast<std::size_t>(i)]);
  return out;
}

// Reads every field of the set at `body`; a bad one is added to `errors` and the next read.
set_fields read_fields(const yaml_reader& r, const YAML::Node& body, const std::string& kind,
                       const catalog::op_desc& op, const std::optional<std::vector<std::string>>& default_dtypes,
                       error_collector& errors) {
  const bool grid = kind == "grid";
  std::vector<std::string> allowed = op.problem_dims;
  for (const char* key : {"dtype", "dtypes", "where"}) allowed.emplace_back(key);
  // The sample's size is "count", not "n": gemm and conv2d have a dimension n. Where an op has
  // none, "n" is read only to say so.
  const bool n_is_a_dimension = std::find(op.problem_dims.begin(), op.problem_dims.end(), "n") != op.problem_dims.end();
  if (!grid) allowed.insert(allowed.end(), {"count", "seed"});
  if (!grid && !n_is_a_dimension) allowed.emplace_back("n");
  const auto es = r.map(body, allowed, "key", " in " + kind, errors);
  const entry* misnamed_count = grid || n_is_a_dimension ? nullptr : find(es, "n");
  if (misnamed_count)
    errors.add(r.where(misnamed_count->key_node).str() +
               ": unknown key \"n\" in sample (the number of problems is "
               "\"count\": other ops have a dimension \"n\")");
  set_fields f;
  if (!grid) {  // first, as the syntax shows them: how many, from which seed
    errors.attempt([&] {
      const entry* e = find(es, "count");
      if (!e && misnamed_count) return;  // said
      if (!e) r.fail(body, "missing required key \"count\" in sample");
      f.count = r.positive_integer(e->value, "\"count\"");
      if (f.count > static_cast<std::int64_t>(max_set_problems))
        r.fail(e->value, fmt::format("expected an integer in [1, {}] for \"count\", got {}", max_set_problems,
                                     r.describe(e->value)));
    });
    errors.attempt([&] {
      const entry* e = find(es, "seed");
      if (!e) r.fail(body, "missing required key \"seed\" in sample");
      f.seed = static_cast<std::uint64_t>(r.integer_at_least(e->value, 0, "\"seed\""));
    });
  }
  for (const auto& dim : op.problem_dims) {
    errors.attempt([&] {
      const catalog::dim_desc rules = op.dim(dim);
      const entry* e = find(es, dim);
      if (!e && !rules.fallback) r.fail(body, "missing dimension " + in_quotes(dim) + " in " + kind);
      if (!e) {
        f.values[dim] = {*rules.fallback};
        f.laws[dim].values = {*rules.fallback};
      } else if (grid) {
        f.values[dim] = grid_values(r, e->value, rules, max_set_problems);
      } else {
        f.laws[dim] = sample_law(r, e->value, rules);
      }
    });
  }
  errors.attempt([&] {
    const entry* one = find(es, "dtype");
    const entry* many = find(es, "dtypes");
    if (one && many) r.fail(many->key_node, kind + " has both \"dtype\" and \"dtypes\"");
    if (many) {
      r.list(many->value, "\"dtypes\"");
      f.crossed_dtypes = names_of(grid_values(r, many->value, dtype_dim(), max_set_problems));
    } else if (one && grid) {
      f.crossed_dtypes = names_of(grid_values(r, one->value, dtype_dim(), max_set_problems));
    } else if (one) {
      f.drawn_dtype = sample_law(r, one->value, dtype_dim());
    } else if (default_dtypes) {
      f.crossed_dtypes = *default_dtypes;
    } else {
      r.fail(body, kind + " has no dtype (give \"dtype\" or \"dtypes\", here or at the top level)");
    }
  });
  if (const entry* e = find(es, "where"))
    errors.attempt([&] {
      f.where = std::make_unique<where_filter>(constraint{r.string(e->value, "\"where\""), r.where(e->value)}, op);
    });
  return f;
}

// How many problems a set of `count` makes, refused past the per-set limit and past what the
// file can still take after the `before` problems ahead of the set. `sizes` says what was
// multiplied ("1024 rows x 2 dtypes").
void check_count(const yaml_reader& r, const location& at, const std::string& kind, std::uint64_t count,
                 const std::string& sizes, std::size_t before) {
  if (count > max_set_problems)
    r.fail(at,
           fmt::format("{} has {} problems ({}), more than the limit of {} per set", kind,
                       count == std::numeric_limits<std::uint64_t>::max() ? "more than 2^64" : std::to_string(count),
                       sizes, max_set_problems));
  if (before >= max_problems || count > max_problems - before)
    r.fail(at, fmt::format("{} has {} problems: with the {} before it, more than the limit of {} per sweep file", kind,
                           count, before, max_problems));
}

std::string dtypes_size(std::size_t n) { return fmt::format("{} dtype{}", n, n == 1 ? "" : "s"); }

std::vector<problem> expand_grid(const yaml_reader& r, const location& at, const set_fields& f,
                                 const catalog::op_desc& op, std::size_t before) {
  std::uint64_t count = f.crossed_dtypes.size();
  std::string sizes;
  for (const auto& dim : op.problem_dims) {
    const std::uint64_t k = f.values.at(dim).size();
    count =
        count > std::numeric_limits<std::uint64_t>::max() / k ? std::numeric_limits<std::uint64_t>::max() : count * k;
    if (k > 1) sizes += fmt::format("{} {} x ", k, dim);
  }
  check_count(r, at, "grid", count, sizes + dtypes_size(f.crossed_dtypes.size()), before);

  // An odometer over the dimensions in the op's order, the last turning fastest; each shape in
  // every dtype, in the listed order (as a listed problem with `dtypes`).
  std::vector<problem> out;
  const std::size_t dims = op.problem_dims.size();
  std::vector<std::size_t> digit(dims, 0);
  for (bool done = false; !done;) {
    problem shape;
    shape.where = at;
    for (std::size_t i = 0; i < dims; ++i) shape.dims[op.problem_dims[i]] = f.values.at(op.problem_dims[i])[digit[i]];
    for (const auto& d : f.crossed_dtypes) {
      problem p = shape;
      p.dtype = d;
      if (!f.where || f.where->holds(p, p.key(op.name))) out.push_back(std::move(p));
    }
    std::size_t i = dims;
    while (i > 0 && ++digit[i - 1] == f.values.at(op.problem_dims[i - 1]).size()) digit[--i] = 0;
    done = i == 0;
  }
  if (out.empty())
    r.fail(at, fmt::format("where {} holds for none of the grid's {} problems", in_quotes(f.where->expr()), count));
  return out;
}

// At most this many draws per problem asked, and this many in all: a sample whose `where` or
// ranges leave too few distinct problems ends with an error, not a loop without end.
constexpr std::uint64_t draws_per_problem = 100;
constexpr std::uint64_t max_draws = 1000000;

std::vector<problem> draw_sample(const yaml_reader& r, const location& at, const set_fields& f,
                                 const catalog::op_desc& op, std::size_t before) {
  const std::uint64_t per_draw = f.drawn_dtype ? 1 : f.crossed_dtypes.size();
  const auto n = static_cast<std::uint64_t>(f.count);
  check_count(r, at, "sample", n * per_draw, fmt::format("count {} x {}", n, dtypes_size(per_draw)), before);

  // Each draw: the dimensions in the op's order, then the dtype when it is drawn. A draw is kept
  // when its problems (one, or one per crossed dtype) all satisfy `where` and none was drawn
  // before; otherwise it is drawn again.
  core::seeded_random rng(f.seed);
  const auto dtype_names = dtype_dim().choices;
  std::vector<problem> out;
  std::unordered_set<std::string> drawn;
  std::uint64_t kept = 0;
  const std::uint64_t budget = std::min(n * draws_per_problem, max_draws);
  std::uint64_t draws = 0;
  for (; kept < n && draws < budget; ++draws) {
    problem shape;
    shape.where = at;
    for (const auto& dim : op.problem_dims) shape.dims[dim] = f.laws.at(dim).draw(rng);
    std::vector<problem> these;
    for (std::size_t i = 0; i < per_draw; ++i) {
      problem p = shape;
      p.dtype = f.drawn_dtype ? dtype_names[static_cast<std::size_t>(f.drawn_dtype->draw(rng))] : f.crossed_dtypes[i];
      these.push_back(std::move(p));
    }
    const bool fits = std::all_of(these.begin(), these.end(), [&](const problem& p) {
      const std::string key = p.key(op.name);
      return !drawn.contains(key) && (!f.where || f.where->holds(p, key));
    });
    if (!fits) continue;
    for (auto& p : these) {
      drawn.insert(p.key(op.name));
      out.push_back(std::move(p));
    }
    ++kept;
  }
  if (kept < n)
    r.fail(at,
           fmt::format("sample found {} of the {} problems asked in {} draws (distinct{}): widen the ranges, {}lower "
                       "\"count\" or change \"seed\"",
                       kept * per_draw, n * per_draw, draws,
                       f.where ? ", and where " + in_quotes(f.where->expr()) + " holds" : std::string(),
                       f.where ? "loosen \"where\", " : ""));
  return out;
}

}  // namespace

std::string problem_set_kind(const YAML::Node& item) {
  if (!item.IsMap()) return "";
  for (const auto& kv : item)
    if (kv.first.IsScalar() && (kv.first.Scalar() == "grid" || kv.first.Scalar() == "sample")) return kv.first.Scalar();
  return "";
}

std::vector<problem> expand_problem_set(const yaml_reader& r, const YAML::Node& item, const catalog::op_desc& op,
                                        const std::optional<std::vector<std::string>>& default_dtypes,
                                        std::size_t before, error_collector& errors) {
  const std::string kind = problem_set_kind(item);
  for (const auto& kv : item)
    if (!kv.first.IsScalar() || kv.first.Scalar() != kind)
      r.fail(kv.first, fmt::format("{} next to {}: a problem set is a map with the one key \"grid\" or \"sample\"",
                                   kv.first.IsScalar() ? "key " + in_quotes(kv.first.Scalar())
                                                       : "a key that is " + r.describe(kv.first),
                                   in_quotes(kind)));
  const YAML::Node body = item[kind];
  if (!body.IsMap()) r.fail(body, "expected a map for " + in_quotes(kind) + ", got " + r.describe(body));
  const std::size_t errors_before = errors.added();
  const set_fields f = read_fields(r, body, kind, op, default_dtypes, errors);
  if (errors.added() != errors_before) return {};             // said; the set is left out
  if (!f.drawn_dtype && f.crossed_dtypes.empty()) return {};  // top-level "dtypes" unreadable: said there
  const location at = r.where(item);
  return kind == "grid" ? expand_grid(r, at, f, op, before) : draw_sample(r, at, f, op, before);
}

}  // namespace cuop::spec::detail
