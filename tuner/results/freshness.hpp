// Results tied to the code that produced them (docs/cli.md, "Freshness"): a results file's runs
// record the hash of each kernel family's sources (ops/family_sources.hpp); trials of a family
// whose sources changed since were measured on other code. `emit` says so, and `validate` on a
// results folder fails on them unless results/stale.txt acknowledges the exact change.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tuner/results/results_file.hpp"

namespace cuop::results {

// The trials of one kernel family from one run, measured on sources other than the current ones.
struct stale_group {
  std::string family;
  std::int64_t run = 0;
  std::string measured;  // the recorded hash; "" when the run recorded none
  std::string current;
  std::size_t trials = 0;
};

// Per (run, family) of `f`'s trials of our kernel families (`current` holds their hashes now),
// those whose recorded hash differs; sorted by run, then family. `only` (when set) limits the
// count to those trials (the entries emit chose).
std::vector<stale_group> stale_groups(const result_file& f, const std::map<std::string, std::string>& current,
                                      const std::vector<const result_trial*>* only = nullptr);

// One line of results/stale.txt: "OP FAMILY MEASURED CURRENT REASON...", a change of a family's
// sources its committed results were not measured again for, acknowledged in review.
struct acknowledgement {
  std::string op, family, measured, current, reason;
  int line = 0;
};

// The acknowledgements in `path` (none when it does not exist). Throws cuop::error at a malformed
// line ("results/stale.txt:4: expected OP FAMILY MEASURED CURRENT REASON").
std::vector<acknowledgement> read_acknowledgements(const std::string& path);

// "<path>: 230 trials of family \"split_row\" (run 3) were measured on kernel sources 91e2...
// (now 3fa0...)"
std::string describe(const std::string& path, const stale_group& g);

}  // namespace cuop::results
