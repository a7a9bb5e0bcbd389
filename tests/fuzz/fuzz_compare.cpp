// Fuzz target: `cuop-tune compare`'s inputs. The bytes are written to a file and loaded the way
// compare loads a side (cuop::gate::load_result_set: a SQLite database when the bytes start with
// its header, else a results file), compared with themselves and against a fixed baseline
// (tests/data/compare/baseline), and every report format is rendered.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "tests/fuzz/fuzz_support.hpp"
#include "tuner/gate/comparison.hpp"
#include "tuner/gate/result_set.hpp"
#include "tuner/report/compare_report.hpp"

namespace {

namespace fs = std::filesystem;

// One file per process (libFuzzer's -fork and -jobs run several), removed at exit.
const std::string& input_path() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    auto p =
        (fs::path(tmp && *tmp ? tmp : "/tmp") / ("cuop-fuzz-compare-" + std::to_string(getpid()) + ".json")).string();
    std::atexit([] { std::remove(input_path().c_str()); });
    return p;
  }();
  return path;
}

const cuop::gate::result_set& baseline() {
  static const auto set = cuop::gate::load_result_set(CUOP_SOURCE_DIR "/tests/data/compare/baseline", {});
  return set;
}

void render_all(const cuop::gate::comparison& c) {
  using cuop::report::compare_format;
  for (auto f : {compare_format::table, compare_format::markdown, compare_format::json, compare_format::junit})
    (void)cuop::report::render_comparison(c, f);
}

cuop::gate::compare_options options(bool per_config, bool allow_different_env) {
  cuop::gate::compare_options o;  // compare's defaults, but fewer resamples: the same code, faster
  o.bootstrap.resamples = 64;
  o.per_config = per_config;
  o.allow_different_env = allow_different_env;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)baseline();  // loaded once, outside the measured runs; a broken fixture aborts here
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(input_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::optional<cuop::gate::result_set> set;
  cuop::fuzz::expect_only_cuop_errors([&] { set = cuop::gate::load_result_set(input_path(), {}); });
  if (!set) return 0;
  cuop::fuzz::expect_only_cuop_errors([&] { render_all(cuop::gate::compare(*set, *set, options(true, false))); });
  cuop::fuzz::expect_only_cuop_errors([&] { render_all(cuop::gate::compare(baseline(), *set, options(false, true))); });
  cuop::fuzz::expect_only_cuop_errors([&] { render_all(cuop::gate::compare(*set, baseline(), options(true, true))); });
  return 0;
}
