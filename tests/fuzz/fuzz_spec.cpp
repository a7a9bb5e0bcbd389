// Fuzz target: the sweep-file reader and the constraint compiler (cuop::spec::parse, which
// checks every constraint), then the space of the first problem (cuop::space::enumerate), which
// evaluates the constraints at every point.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_support.hpp"
#include "tuner/space/space.hpp"
#include "tuner/spec/spec.hpp"

namespace {

// Points enumerated at most: a valid file may describe a space of 4096^k points, which would
// only time the fuzzer out. Counted saturating, per candidate (space_size() is not: a product
// of many parameters wraps around).
constexpr std::size_t max_points = 1 << 14;

std::size_t bounded_size(const cuop::spec::sweep& s) {
  std::size_t total = 0;
  for (const auto& c : s.candidates) {
    std::size_t points = 1;
    for (const auto& p : c.params) {
      if (p.values.empty()) points = 0;
      else if (points > max_points / p.values.size()) return max_points + 1;
      else points *= p.values.size();
    }
    total += points;
    if (total > max_points) return total;
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = cuop::fuzz::text_of(data, size);
  cuop::fuzz::expect_only_cuop_errors([&] {
    const auto s = cuop::spec::parse(text, "fuzz.yaml");
    if (s.problems.empty() || bounded_size(s) > max_points) return;
    const auto points = cuop::space::enumerate(s, s.problems.front());
    for (const auto& v : points) (void)cuop::space::str(v.config);
  });
  return 0;
}
