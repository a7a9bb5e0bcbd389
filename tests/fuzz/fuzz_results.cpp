// Fuzz target: the results-file reader (cuop::emit::parse_results) and the three emitters on
// what it returns, as `cuop-tune emit` runs them at the library's build time.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tests/fuzz/fuzz_support.hpp"
#include "tuner/emit/conv_emit.hpp"
#include "tuner/emit/gemm_emit.hpp"
#include "tuner/emit/results_file.hpp"
#include "tuner/emit/softmax_emit.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = cuop::fuzz::text_of(data, size);
  std::vector<cuop::emit::result_file> files;
  cuop::fuzz::expect_only_cuop_errors(
      [&] { files.push_back(cuop::emit::parse_results(text, "fuzz/nvidia-h200.json")); });
  if (files.empty()) return 0;
  // Each emitter on its own: one refusing the file must not hide a fault in the next.
  const std::vector<std::string> targets = {"90a"};
  cuop::fuzz::expect_only_cuop_errors([&] { (void)cuop::emit::emit_softmax(files, targets); });
  cuop::fuzz::expect_only_cuop_errors([&] { (void)cuop::emit::emit_gemm(files, targets); });
  cuop::fuzz::expect_only_cuop_errors([&] { (void)cuop::emit::emit_conv(files, targets); });
  return 0;
}
