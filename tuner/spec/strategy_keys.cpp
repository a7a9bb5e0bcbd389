#include "tuner/spec/strategy_keys.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>

#include "tuner/core/suggest.hpp"
#include "tuner/core/text.hpp"

namespace cuop::spec::detail {

namespace {

// The largest trial count and neighbour count a file may ask for.
constexpr std::int64_t max_trials_per_problem = 1000000;
constexpr std::int64_t max_transfer_neighbours = 64;
constexpr double max_budget_seconds = 7 * 24 * 3600.0;  // a week

std::int64_t integer_in(const yaml_reader& r, const entry& e, std::int64_t lo, std::int64_t hi) {
  const std::int64_t v = r.integer(e.value, core::quoted(e.key));
  if (v < lo || v > hi)
    r.fail(e.value, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] for " +
                        core::quoted(e.key) + ", got " + r.describe(e.value));
  return v;
}

// Any 64-bit seed, written as a plain decimal.
std::uint64_t seed_of(const yaml_reader& r, const entry& e) {
  std::uint64_t v = 0;
  const std::string text = e.value.IsScalar() ? e.value.Scalar() : std::string();
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    r.fail(e.value,
           "expected an integer in [0, 18446744073709551615] for \"transfer_seed\", got " + r.describe(e.value));
  return v;
}

void parse_budget(const yaml_reader& r, const entry& budget, transfer_settings& t, error_collector& errors) {
  const auto es = r.map(budget.value, {"trials_per_problem", "fraction", "seconds"}, "key", " in \"budget\"", errors);
  const entry* trials = find(es, "trials_per_problem");
  const entry* fraction = find(es, "fraction");
  const entry* seconds = find(es, "seconds");
  if (trials && fraction)
    r.fail(fraction->key_node, "\"budget\" gives both \"trials_per_problem\" and \"fraction\": give one");
  if (seconds) {
    const double v = r.number(seconds->value, "\"seconds\"");
    if (!(v > 0 && v <= max_budget_seconds))
      r.fail(seconds->value, "expected a number in (0, 604800] for \"seconds\", got " + r.describe(seconds->value));
    t.seconds = v;
  }
  if (!trials && !fraction && !seconds) {
    if (es.size() == budget.value.size())  // not a key said to be unknown already
      r.fail(budget.value,
             "\"budget\" needs \"trials_per_problem\" (trials per problem), \"fraction\" (of "
             "each problem's candidates) or \"seconds\" (of measuring in all)");
    return;
  }
  if (trials) t.trials_per_problem = integer_in(r, *trials, 1, max_trials_per_problem);
  if (fraction) {
    const double v = r.number(fraction->value, "\"fraction\"");
    if (!(v > 0 && v <= 1))
      r.fail(fraction->value, "expected a number in (0, 1] for \"fraction\", got " + r.describe(fraction->value));
    t.fraction = v;
  }
}

}  // namespace

void parse_strategy_keys(const yaml_reader& r, const YAML::Node& root, const std::vector<entry>& es, sweep& s,
                         error_collector& errors) {
  const entry* strategy = find(es, "strategy");
  bool known = true;
  if (strategy)
    known = errors.attempt([&] {
      s.strategy = r.string(strategy->value, "\"strategy\"");
      const auto names = strategy_names();
      if (std::find(names.begin(), names.end(), s.strategy) == names.end())
        r.fail(strategy->value, "unknown strategy " + core::quoted(s.strategy) + suggest_suffix(s.strategy, names));
    });
  const bool transfer = known && s.strategy == "transfer";
  const entry* budget = find(es, "budget");
  for (const char* key : {"budget", "transfer_neighbours", "transfer_seed"}) {
    const entry* e = find(es, key);
    if (!e) continue;
    errors.attempt([&] {
      if (known && !transfer)
        r.fail(e->key_node, core::quoted(key) + " applies to strategy \"transfer\" only (the file's strategy is " +
                                core::quoted(s.strategy) + ")");
      if (!known) return;  // the strategy's own error is said
      if (e == budget) parse_budget(r, *e, s.transfer, errors);
      if (std::string(key) == "transfer_neighbours")
        s.transfer.neighbours = static_cast<int>(integer_in(r, *e, 0, max_transfer_neighbours));
      if (std::string(key) == "transfer_seed") s.transfer.seed = seed_of(r, *e);
    });
  }
  if (transfer && !budget)
    errors.add(r.where(strategy ? strategy->value : root).str() +
               ": strategy \"transfer\" needs a \"budget\": {trials_per_problem: N}, {fraction: F} or {seconds: S}");
}

}  // namespace cuop::spec::detail
