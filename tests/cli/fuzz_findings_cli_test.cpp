// The fuzzers' findings (docs/ci.md, Fuzzing), one TEST per finding in the error catalogue's
// style: the reproducer (tests/data/fuzz/<target>/), read by the command a user runs on such a
// file, the exact message and exit code. Each crashed or broke a sanitizer's rule before its fix;
// fuzz.replay_* (tests/fuzz/) also runs them through the fuzz targets' code.
#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using cuop::test::cli_result;
using cuop::test::temp_dir;

const std::string findings = std::string(CUOP_TEST_DATA_DIR) + "/fuzz";

// What a command said about a reproducer, and the reproducer's path as the command was given it.
struct outcome {
  cli_result r;
  std::string file;
};

// cuop-tune validate on a sweep-file finding, as kept (nothing is written beside it).
outcome validate(const std::string& reproducer) {
  const auto file = findings + "/" + reproducer;
  return {cuop::test::run_cli("validate " + file), file};
}

// cuop-tune emit over a results folder that holds only `reproducer`, as softmax/nvidia-h200.json.
outcome emit_only(const temp_dir& tmp, const std::string& reproducer) {
  const auto file = tmp / "results/softmax/nvidia-h200.json";
  fs::create_directories(fs::path(file).parent_path());
  fs::copy_file(findings + "/" + reproducer, file);
  return {cuop::test::run_cli("emit --results " + (tmp / "results") + " --out " + (tmp / "gen") + " --targets 90a"),
          file};
}

// cuop-tune compare FILE FILE, the reproducer on both sides.
outcome compare_itself(const temp_dir& tmp, const std::string& reproducer) {
  const auto file = tmp / "side.json";
  fs::copy_file(findings + "/" + reproducer, file);
  return {cuop::test::run_cli("compare " + file + " " + file), file};
}

// The results schema's report on `file`: each error "<file>:<line>: <what>", the first after
// "cuop-tune: error: ", then "<file>: N errors" when there are several.
std::string errors(const std::string& file, std::initializer_list<const char*> lines) {
  std::string out = "cuop-tune: error: ";
  for (const char* line : lines) out += file + ":" + line + "\n";
  if (lines.size() > 1) out += file + ": " + std::to_string(lines.size()) + " errors\n";
  return out;
}

}  // namespace

// A conv2d problem of 2^32 groups: conv_shape holds ints, so groups became 0 and the size check
// of spec loading divided by it (SIGFPE: `cuop-tune validate` died with exit code 136).
TEST(fuzz_findings, sweep_conv_groups_of_2_pow_32) {
  const auto v = validate("spec/conv_groups_2_pow_32.yaml");
  EXPECT_EQ(v.r.code, 1);
  EXPECT_EQ(v.r.out, "cuop-tune: error: " + v.file +
                         ":4:71: expected an integer in [1, 2147483647] for \"groups\", got \"4294967296\"\n");
}

// yaml-cpp 0.7 looped, allocating gigabytes, on a ',' that starts a value outside [ ] or { }: the
// fuzzer's 120-byte file hung `validate`. The guard in front of yaml-cpp refuses it.
TEST(fuzz_findings, sweep_comma_that_starts_a_value) {
  const auto v = validate("spec/comma_starts_a_value.yaml");
  EXPECT_EQ(v.r.code, 1);
  EXPECT_EQ(v.r.out,
            "cuop-tune: error: " + v.file + ":1:1: a value cannot start with ',' outside [ ] or { } (quote it)\n");
}

// yaml-cpp 0.7 looped the same way on text after a node that ended on its line when a complex key
// (`?`) came later (minimal form `""l` then `?`): the fuzzer's 314-byte file held 2.8 GB before
// it stopped, and CI's fuzz run hung in libFuzzer's out-of-memory report.
TEST(fuzz_findings, sweep_text_after_a_closing_quote) {
  const auto v = validate("spec/text_after_a_closing_quote.yaml");
  EXPECT_EQ(v.r.code, 1);
  EXPECT_EQ(v.r.out,
            "cuop-tune: error: " + v.file +
                ":39:2: unexpected text after a closing quote, ']' or '}' (only ':' or a comment may follow)\n");
}

// The same after a flow collection: `[],` (the minimal form of this 5-kB file).
TEST(fuzz_findings, sweep_comma_after_a_closed_flow) {
  const auto v = validate("spec/comma_after_a_closed_flow.yaml");
  EXPECT_EQ(v.r.code, 1);
  EXPECT_EQ(v.r.out,
            "cuop-tune: error: " + v.file +
                ":5:32: unexpected text after a closing quote, ']' or '}' (only ':' or a comment may follow)\n");
}

// The same root for gemm, without a crash: m = 2^32 + 1 was accepted ("ok") and would have been
// measured as m = 1.
TEST(fuzz_findings, sweep_gemm_m_of_2_pow_32_plus_1) {
  const auto v = validate("spec/gemm_m_2_pow_32_plus_1.yaml");
  EXPECT_EQ(v.r.code, 1);
  EXPECT_EQ(v.r.out, "cuop-tune: error: " + v.file +
                         ":3:9: expected an integer in [1, 2147483647] for \"m\", got \"4294967297\"\n");
}

// `[]`: nlohmann's type_error 306 ("cannot use value() with array") escaped the reader, before
// the try that turns JSON errors into messages.
TEST(fuzz_findings, results_file_that_is_a_json_array) {
  temp_dir tmp;
  const auto e = emit_only(tmp, "results/top_level_array.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(e.r.out, errors(e.file, {"1: expected an object of results, got a list"}));
  EXPECT_FALSE(fs::exists(tmp / "gen"));
}

// `{"format": [...], ...}`: type_error 302 ("type must be string, but is array") escaped it the same way.
TEST(fuzz_findings, results_format_that_is_not_a_string) {
  temp_dir tmp;
  const auto e = emit_only(tmp, "results/format_is_an_array.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(e.r.out, errors(e.file, {"2: unknown results format a list (expected \"cuop-tune results 1\")"}));
  EXPECT_FALSE(fs::exists(tmp / "gen"));
}

// A trial whose "ci_us" holds one number: the reader took [0] and [1] unchecked and read past
// the array (AddressSanitizer: heap-buffer-overflow).
TEST(fuzz_findings, results_ci_us_of_one_number) {
  temp_dir tmp;
  const auto e = emit_only(tmp, "results/ci_us_of_one_number.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(
      e.r.out,
      errors(e.file,
             {"16: trials[2].sam: unknown field (expected one of: problem, dtype, dims, instance, family, "
              "params, status, median_us, min_us, q1_us, q3_us, ci_us, samples, batch, gbps, run, samples_us)",
              "16: trials[2]: missing field \"run\"",
              "21: trials[7].instance: \"gemm_bf16_bf16_col_mma_m16_n128_k64`wm16_wn64_s4_g1_sk4\" is not the "
              "name of its configuration (\"gemm_bf16_bf16_col_mma_block16x128x64_warp16x64_stages4_groupm1_splitk4\")",
              "26: trials[12].ci_us: expected [lo, hi] with 0 <= lo <= hi, got a list"}));
  EXPECT_FALSE(fs::exists(tmp / "gen"));
}

// A parameter of 77 digits: nlohmann holds it as a float, and get<long long>() cast 1.2e76
// (undefined behaviour; UBSan: "outside the range of representable values").
TEST(fuzz_findings, results_param_of_77_digits) {
  temp_dir tmp;
  const auto e = emit_only(tmp, "results/param_of_77_digits.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(e.r.out, errors(e.file, {"22: trials[8].params.cluster: expected an integer, got 1.2222222222222222e+76",
                                     "38: trials[24].problem: \"softmax_f32_256x2.2144\" is not the key of its dims "
                                     "and dtype (\"softmax_f32_256x262144\")"}));
  EXPECT_FALSE(fs::exists(tmp / "gen"));
}

// "samples": 112429496729649.2, cast to int the same way.
TEST(fuzz_findings, results_samples_of_1e14) {
  temp_dir tmp;
  const auto e = emit_only(tmp, "results/samples_of_1e14.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(
      e.r.out,
      errors(e.file,
             {"1: cuda_r: unknown field (expected one of: format, op, gpu, cc, sm_count, driver, cuda_runtime, "
              "source_hash, runs, trials, builds)",
              "29: trials[14].min_usSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS: "
              "unknown field (expected one of: problem, dtype, dims, instance, family, params, status, median_us, "
              "min_us, q1_us, q3_us, ci_us, samples, batch, gbps, run, samples_us)",
              "29: trials[14]: missing field \"min_us\"", "41: trials[26]: missing field \"gbps\"",
              "41: trials[26].samples: expected an integer, got 112429496729649.2",
              "57: trials[42].dims.v: unknown field (expected one of: n, h, w, c, k, r, s, stride, pad, dilation, "
              "groups, tf32, layout)",
              "57: trials[42].dims: missing field \"n\""}));
  EXPECT_FALSE(fs::exists(tmp / "gen"));
}

// A trial of dtype "bf32": the emitters dereferenced the empty optional parse_dtype() gave (an
// assertion with _GLIBCXX_ASSERTIONS; in a release build a dtype read from nothing).
TEST(fuzz_findings, results_dtype_bf32) {
  temp_dir tmp;
  const auto e = emit_only(tmp, "results/dtype_bf32.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(e.r.out, errors(e.file, {"26: trials[12].dtype: unknown dtype \"bf32\" (did you mean \"f32\"?)",
                                     "30: trials[16].sample3: unknown field (did you mean \"samples\"?)",
                                     "30: trials[16]: missing field \"samples\""}));
  EXPECT_FALSE(fs::exists(tmp / "gen"));
}

// A softmax trial whose dims say "rpws" for "rows": emit_softmax's dims.at("rows") threw
// std::out_of_range ("cuop-tune: error: map::at").
TEST(fuzz_findings, results_dims_without_rows) {
  temp_dir tmp;
  const auto e = emit_only(tmp, "results/dims_without_rows.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(
      e.r.out,
      errors(e.file, {"14: trials[0].instance: \"softmax_bf17_block_row_vec2_threads1024_chunks1\" is not the name "
                      "of its configuration (\"softmax_bf16_block_row_vec2_threads1024_chunks1\")",
                      "15: trials[1].dims.rpws: unknown field (did you mean \"rows\"?)",
                      "15: trials[1].dims: missing field \"rows\"",
                      "18: builds[0].targe\"t: unknown field (did you mean \"target\"?)"}));
  EXPECT_FALSE(fs::exists(tmp / "gen"));
}

// compare's side `"algo"`: type_error 306 again, through compare's loader.
TEST(fuzz_findings, compare_side_that_is_a_json_string) {
  temp_dir tmp;
  const auto e = compare_itself(tmp, "compare/top_level_string.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(e.r.out, errors(e.file, {"1: expected an object of results, got \"algo\""}));
}

// The float "samples" through compare, which reads results files with the same reader.
TEST(fuzz_findings, compare_side_with_samples_of_1e14) {
  temp_dir tmp;
  const auto e = compare_itself(tmp, "results/samples_of_1e14.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(
      e.r.out,
      errors(e.file,
             {"1: cuda_r: unknown field (expected one of: format, op, gpu, cc, sm_count, driver, cuda_runtime, "
              "source_hash, runs, trials, builds)",
              "29: trials[14].min_usSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS: "
              "unknown field (expected one of: problem, dtype, dims, instance, family, params, status, median_us, "
              "min_us, q1_us, q3_us, ci_us, samples, batch, gbps, run, samples_us)",
              "29: trials[14]: missing field \"min_us\"", "41: trials[26]: missing field \"gbps\"",
              "41: trials[26].samples: expected an integer, got 112429496729649.2",
              "57: trials[42].dims.v: unknown field (expected one of: n, h, w, c, k, r, s, stride, pad, dilation, "
              "groups, tf32, layout)",
              "57: trials[42].dims: missing field \"n\""}));
}

// A "driver" of 30000 digits: the schema matched it against "[0-9]+(\.[0-9]+)*|" with std::regex,
// which recurses once per character: a stack overflow (SIGSEGV, exit 139) in emit and compare.
// Found by probing the schema under fuzz_results' AddressSanitizer, not by its mutations.
TEST(fuzz_findings, results_driver_of_30000_digits) {
  temp_dir tmp;
  const auto e = emit_only(tmp, "results/driver_of_30000_digits.json");
  EXPECT_EQ(e.r.code, 1);
  EXPECT_EQ(e.r.out, errors(e.file, {"7: driver: longer than 256 bytes"}));
  EXPECT_FALSE(fs::exists(tmp / "gen"));
  const auto c = compare_itself(tmp, "results/driver_of_30000_digits.json");
  EXPECT_EQ(c.r.code, 1);
  EXPECT_EQ(c.r.out, errors(c.file, {"7: driver: longer than 256 bytes"}));
}
