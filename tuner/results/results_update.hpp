// `export --update`: a few problems measured again replace theirs in a committed results file,
// and the file keeps every other problem. The way to refresh part of a baseline whose whole sweep
// took hours without measuring all of it again.
#pragma once

#include "tuner/results/results_file.hpp"

namespace cuop::results {

// `fresh` (one op and GPU, from a database) with the problems of `old` that `fresh` does not
// hold: old problems keep their place, replaced ones take theirs, new ones go last; the old
// runs still referenced are kept, the fresh runs renumbered after them; builds are united, the
// fresh build of an (instance, target) winning. Throws cuop::error naming `old.path` when the two
// describe different measurement set-ups (op, GPU, compute capability, SMs, driver, CUDA
// runtime): a results file records one set-up for all its trials.
result_file update_results(const result_file& old, result_file fresh);

// `old` with `fresh`'s trials added (one more candidate measured at problems already there): a
// trial of `old` gives way only to one of `fresh` of the same problem and instance, and `fresh`'s
// trials of a problem follow its old ones (a baseline measured again is the one a model reads);
// runs and builds as update_results does, the same set-up required.
result_file add_results(const result_file& old, result_file fresh);

}  // namespace cuop::results
