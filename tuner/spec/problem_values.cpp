#include "tuner/spec/problem_values.hpp"

#include <fmt/format.h>

#include <bit>

#include <algorithm>
#include <limits>
#include <set>

#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"

namespace cuop::spec::detail {

namespace {

std::string in_quotes(const std::string& s) { return core::quoted(s); }

// "a positive integer", "an integer >= 0", "an integer in [1, 2147483647]": what `dim` accepts.
std::string accepted(const catalog::dim_desc& dim) {
  if (dim.max == std::numeric_limits<std::int64_t>::max())
    return dim.min == 1 ? std::string("a positive integer") : fmt::format("an integer >= {}", dim.min);
  return fmt::format("an integer in [{}, {}]", dim.min, dim.max);
}

std::int64_t read_choice(const yaml_reader& r, const YAML::Node& n, const catalog::dim_desc& dim,
                         const std::string& what) {
  const std::string v = r.string(n, what);
  const auto at = std::find(dim.choices.begin(), dim.choices.end(), v);
  if (at == dim.choices.end()) r.fail(n, "unknown " + dim.name + " " + in_quotes(v) + suggest_suffix(v, dim.choices));
  return at - dim.choices.begin();
}

// The value at `n` as the dimension's value (a choice's index), "duplicate" when `seen` has it.
void add_value(const yaml_reader& r, const YAML::Node& n, std::int64_t v, const catalog::dim_desc& dim,
               std::vector<std::int64_t>& out, std::set<std::int64_t>& seen) {
  if (!seen.insert(v).second)
    r.fail(n, "duplicate value " +
                  in_quotes(dim.choices.empty() ? std::to_string(v) : dim.choices[static_cast<std::size_t>(v)]) +
                  " for " + in_quotes(dim.name));
  out.push_back(v);
}

// The bounds of a form, [lo, hi] or (`step_allowed`) [lo, hi, step], as the YAML nodes; their
// count is checked here, their values by the caller.
std::vector<YAML::Node> bound_nodes(const yaml_reader& r, const YAML::Node& n, const std::string& what,
                                    bool step_allowed) {
  const auto items = r.list(n, what);
  if (items.size() < 2 || items.size() > (step_allowed ? 3u : 2u))
    r.fail(n, fmt::format("expected {} for {}, got {} {}", step_allowed ? "[lo, hi] or [lo, hi, step]" : "[lo, hi]",
                          what, items.size(), items.size() == 1 ? "element" : "elements"));
  return items;
}

void require_ordered(const yaml_reader& r, const YAML::Node& n, const std::string& what, std::int64_t lo,
                     std::int64_t hi) {
  if (lo > hi) r.fail(n, fmt::format("{} has lo > hi: [{}, {}]", what, lo, hi));
}

std::int64_t read_step(const yaml_reader& r, const std::vector<YAML::Node>& items, const std::string& what) {
  if (items.size() < 3) return 1;
  const std::int64_t step = r.integer(items[2], what);
  if (step <= 0) r.fail(items[2], "expected a positive step for " + what + ", got " + r.describe(items[2]));
  return step;
}

// How many of lo, lo + step, ... are <= hi, in unsigned arithmetic (no overflow for any int64s).
std::uint64_t steps_in(std::int64_t lo, std::int64_t hi, std::int64_t step) {
  return (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)) / static_cast<std::uint64_t>(step) + 1;
}

void require_within(const yaml_reader& r, const YAML::Node& n, const std::string& what, std::uint64_t count,
                    std::size_t limit) {
  if (count > limit) r.fail(n, fmt::format("{} has {} values, more than the limit of {}", what, count, limit));
}

// 2^62 is the largest power of two an int64 holds with room: {log2: [0, 62]}.
constexpr std::int64_t max_log2_exponent = 62;

std::vector<std::int64_t> grid_form(const yaml_reader& r, const YAML::Node& n, const catalog::dim_desc& dim,
                                    std::size_t limit) {
  const std::string name = in_quotes(dim.name);
  const auto es = r.map(n, {"range", "pow2", "log2"}, "key", " in " + name);
  if (es.size() != 1)
    r.fail(n, fmt::format("expected exactly one of \"range\", \"pow2\" or \"log2\" for {}, got {}", name, es.size()));
  const entry& form = es.front();
  const std::string what = in_quotes(form.key) + " of " + name;
  std::vector<std::int64_t> out;
  if (form.key == "range" || form.key == "pow2") {
    const bool range = form.key == "range";
    const auto items = bound_nodes(r, form.value, what, range);
    const std::int64_t lo = read_dimension(r, items[0], dim, what);
    const std::int64_t hi = read_dimension(r, items[1], dim, what);
    if (!range)
      for (int i = 0; i < 2; ++i)
        if (const std::int64_t v = i == 0 ? lo : hi; !(v > 0 && std::has_single_bit(static_cast<std::uint64_t>(v))))
          r.fail(items[static_cast<std::size_t>(i)],
                 fmt::format("bound \"{}\" of {} is not a power of two", i == 0 ? lo : hi, what));
    require_ordered(r, form.value, what, lo, hi);
    if (range) {
      const std::int64_t step = read_step(r, items, what);
      const std::uint64_t count = steps_in(lo, hi, step);
      require_within(r, form.value, what, count, limit);
      for (std::uint64_t i = 0; i < count; ++i) out.push_back(lo + static_cast<std::int64_t>(i) * step);
    } else {
      for (std::int64_t v = lo;; v *= 2) {
        out.push_back(v);
        if (v > hi / 2) break;
      }
    }
    return out;
  }
  // log2: exponents, each power checked against the dimension as a value would be.
  const auto items = bound_nodes(r, form.value, what, true);
  const catalog::dim_desc exponent{"exponent", 0, {}, {}, max_log2_exponent};
  const std::int64_t lo = read_dimension(r, items[0], exponent, what);
  const std::int64_t hi = read_dimension(r, items[1], exponent, what);
  require_ordered(r, form.value, what, lo, hi);
  const std::int64_t step = read_step(r, items, what);
  for (int i = 0; i < 2; ++i) {
    const std::int64_t power = std::int64_t{1} << (i == 0 ? lo : hi);
    if (power < dim.min || power > dim.max)
      r.fail(items[static_cast<std::size_t>(i)],
             fmt::format("expected {} for {}, got 2^{} = \"{}\"", accepted(dim), what, i == 0 ? lo : hi, power));
  }
  const std::uint64_t count = steps_in(lo, hi, step);
  require_within(r, form.value, what, count, limit);
  for (std::uint64_t i = 0; i < count; ++i)
    out.push_back(std::int64_t{1} << (lo + static_cast<std::int64_t>(i) * step));
  return out;
}

}  // namespace

catalog::dim_desc dtype_dim() { return {"dtype", 0, {}, {"f32", "f16", "bf16"}}; }

std::int64_t read_dimension(const yaml_reader& r, const YAML::Node& n, const catalog::dim_desc& dim,
                            const std::string& what) {
  if (!dim.choices.empty()) return read_choice(r, n, dim, what);
  const std::int64_t v = r.integer_at_least(n, dim.min, what);
  if (v > dim.max)  // gemm and conv2d take ints: 2^32 groups would be 0
    r.fail(n, "expected " + accepted(dim) + " for " + what + ", got " + r.describe(n));
  return v;
}

std::vector<std::int64_t> grid_values(const yaml_reader& r, const YAML::Node& n, const catalog::dim_desc& dim,
                                      std::size_t limit) {
  const std::string name = in_quotes(dim.name);
  std::vector<std::int64_t> out;
  std::set<std::int64_t> seen;
  if (n.IsSequence()) {
    require_within(r, n, name, n.size(), limit);
    for (const auto& item : r.list(n, name)) add_value(r, item, read_dimension(r, item, dim, name), dim, out, seen);
    return out;
  }
  if (n.IsMap() && dim.choices.empty()) return grid_form(r, n, dim, limit);
  if (n.IsMap()) r.fail(n, "expected a name or a list of names for " + name + ", got a map");
  return {read_dimension(r, n, dim, name)};
}

draw_law sample_law(const yaml_reader& r, const YAML::Node& n, const catalog::dim_desc& dim) {
  const std::string name = in_quotes(dim.name);
  draw_law law;
  const auto choice_of = [&](const YAML::Node& list) {
    law.kind = draw_law::form::choice;
    for (const auto& item : r.list(list, name)) law.values.push_back(read_dimension(r, item, dim, name));
  };
  if (n.IsSequence()) {
    choice_of(n);
    return law;
  }
  if (!n.IsMap()) {
    law.values = {read_dimension(r, n, dim, name)};
    return law;
  }
  const std::vector<std::string> forms = dim.choices.empty()
                                             ? std::vector<std::string>{"choice", "uniform", "log_uniform"}
                                             : std::vector<std::string>{"choice"};
  const auto es = r.map(n, forms, "key", " in " + name);
  if (es.size() != 1) {
    std::string names;
    for (std::size_t i = 0; i < forms.size(); ++i)
      names += (i == 0 ? "" : i + 1 == forms.size() ? " or " : ", ") + in_quotes(forms[i]);
    r.fail(n, fmt::format("expected exactly one of {} for {}, got {}", names, name, es.size()));
  }
  const entry& form = es.front();
  if (form.key == "choice") {
    choice_of(form.value);
    return law;
  }
  const std::string what = in_quotes(form.key) + " of " + name;
  const auto items = bound_nodes(r, form.value, what, false);
  catalog::dim_desc bounds = dim;
  law.kind = draw_law::form::uniform;
  if (form.key == "log_uniform") {  // a logarithm needs 1 <= lo, and the fixed point hi < 2^62
    law.kind = draw_law::form::log_uniform;
    bounds.min = std::max<std::int64_t>(bounds.min, 1);
    bounds.max = std::min(bounds.max, core::max_log_uniform);
  }
  law.lo = read_dimension(r, items[0], bounds, what);
  law.hi = read_dimension(r, items[1], bounds, what);
  require_ordered(r, form.value, what, law.lo, law.hi);
  return law;
}

std::int64_t draw_law::draw(core::seeded_random& rng) const {
  switch (kind) {
    case form::fixed: return values.front();
    case form::choice: return values[static_cast<std::size_t>(rng.below(values.size()))];
    case form::uniform: return rng.uniform(lo, hi);
    case form::log_uniform: return rng.log_uniform(lo, hi);
  }
  return values.front();
}

}  // namespace cuop::spec::detail
