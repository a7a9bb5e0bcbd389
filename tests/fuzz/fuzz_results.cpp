// Fuzz target: the results-file reader (cuop::results::parse_results) and the three emitters on
// what it returns, as `cuop-tune emit` runs them at the library's build time.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tests/fuzz/fuzz_support.hpp"
#include "tuner/ops/conv2d/emit.hpp"
#include "tuner/ops/gemm/emit.hpp"
#include "tuner/ops/softmax/emit.hpp"
#include "tuner/results/results_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = cuop::fuzz::text_of(data, size);
  std::vector<cuop::results::result_file> files;
  cuop::fuzz::expect_only_cuop_errors(
      [&] { files.push_back(cuop::results::parse_results(text, "fuzz/nvidia-h200.json")); });
  if (files.empty()) return 0;
  // Each emitter on its own: one refusing the file must not hide a fault in the next.
  const std::vector<std::string> targets = {"90a"};
  cuop::fuzz::expect_only_cuop_errors([&] { (void)cuop::ops::emit_softmax(files, targets); });
  cuop::fuzz::expect_only_cuop_errors([&] { (void)cuop::ops::emit_gemm(files, targets); });
  cuop::fuzz::expect_only_cuop_errors([&] { (void)cuop::ops::emit_conv(files, targets); });
  return 0;
}
