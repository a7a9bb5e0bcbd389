// Which table serves which CUDA architecture of a build (docs/packaging.md, "Architectures").
// A build names architectures as CMake does (CMAKE_CUDA_ARCHITECTURES: "75", "86-real",
// "90a", "sm_120", "100f"); the tuner validates a few tables (compile::target). Each named
// architecture gets its own table where one exists, else the table of the newest portable target
// at or below it, whose code and limits hold there. Its entries carry the named architecture's
// compute capability, and the kernels they name are compiled for it: what the dispatch picks at
// run time is what the device runs.
#pragma once

#include <string>
#include <vector>

namespace cuop::emit {

struct served_arch {
  std::string spelling;   // as named, "86-real"
  std::string name;       // the architecture alone, "86" ("90a" for "sm_90a-real")
  int cc = 0;             // 86
  bool specific = false;  // "90a", "100f": its code runs on its own compute capability (family) only
  std::string table;      // the validated target whose table it gets, "sm_86"
};

// Throws cuop::error naming `raw` for an architecture CUDA 13 does not build, or one below every
// table (the oldest is sm_75).
served_arch serve(const std::string& raw);

// Each of `raw` once, in order of compute capability; throws for two that compile for one
// compute capability with different code ("90" and "90a").
std::vector<served_arch> serve_all(const std::vector<std::string>& raw);

// "CUDA architecture 90 (compute capability 9.0): the sm_89 table" for the build log.
std::string describe(const served_arch& a);

}  // namespace cuop::emit
