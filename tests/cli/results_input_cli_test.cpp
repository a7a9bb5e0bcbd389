// Results files as untrusted input, one case per TEST with its exact message and exit code
// (docs/cli.md, "Results files are untrusted" and "Freshness"): emit refuses a file that fails the
// schema and keeps its old output; free text reaches only the provenance data file; `validate`
// checks a results folder's form and freshness; a sweep records its kernel sources.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using cuop::test::run_cli;
using cuop::test::run_cli_without_gpu;
using cuop::test::temp_dir;

const std::string source = CUOP_SOURCE_DIR;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The committed results in tmp/results, emitted once into tmp/gen.
void emit_committed(const temp_dir& tmp) {
  fs::copy(source + "/results", tmp / "results", fs::copy_options::recursive);
  const auto r = run_cli("emit --quiet --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  ASSERT_EQ(r.code, 0) << r.out;
}

// The softmax results file with its first trial's line changed by `edit` (a JSON object).
void edit_first_trial(const temp_dir& tmp, const std::function<void(nlohmann::json&)>& edit) {
  const auto path = tmp / "results/softmax/nvidia-h200.json";
  std::string text = read_bytes(path);
  const auto start = text.find("    {\"problem\"");
  const auto end = text.find('\n', start);
  const bool comma = text[end - 1] == ',';
  auto trial = nlohmann::json::parse(text.substr(start + 4, end - start - 4 - (comma ? 1 : 0)));
  edit(trial);
  text.replace(start, end - start, "    " + trial.dump() + (comma ? "," : ""));
  write_file(path, text);
}

std::string header_bytes(const temp_dir& tmp) { return read_bytes(tmp / "gen/cuop/generated/softmax_dispatch.hpp"); }

TEST(results_input, emit_refuses_an_unknown_dtype_and_keeps_its_output) {
  temp_dir tmp;
  emit_committed(tmp);
  const auto before = header_bytes(tmp);
  edit_first_trial(tmp, [](nlohmann::json& t) { t["dtype"] = "f64"; });
  const auto r = run_cli("emit --quiet --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "cuop-tune: error: " + (tmp / "results/softmax/nvidia-h200.json") +
                       ":15: trials[0].dtype: unknown dtype \"f64\" (expected one of: f32, f16, bf16)\n");
  EXPECT_EQ(header_bytes(tmp), before);
}

TEST(results_input, emit_refuses_a_parameter_value_the_family_does_not_take) {
  temp_dir tmp;
  emit_committed(tmp);
  edit_first_trial(tmp, [](nlohmann::json& t) { t["params"]["vec"] = 1LL << 40; });
  const auto r = run_cli("emit --quiet --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "cuop-tune: error: " + (tmp / "results/softmax/nvidia-h200.json") +
                       ":15: trials[0].params: parameter \"vec\" = 1099511627776 is not one of family \"block_row\"\n");
}

TEST(results_input, emit_refuses_an_unknown_parameter_instead_of_dropping_it) {
  temp_dir tmp;
  emit_committed(tmp);
  edit_first_trial(tmp, [](nlohmann::json& t) { t["params"]["unroll"] = 4; });
  const auto r = run_cli("emit --quiet --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "cuop-tune: error: " + (tmp / "results/softmax/nvidia-h200.json") +
                       ":15: trials[0].params: unknown parameter \"unroll\" of family \"block_row\"\n");
}

TEST(results_input, emit_refuses_empty_dims_and_names_each_missing_one) {
  temp_dir tmp;
  emit_committed(tmp);
  edit_first_trial(tmp, [](nlohmann::json& t) { t["dims"] = nlohmann::json::object(); });
  const auto r = run_cli("emit --quiet --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  const auto file = tmp / "results/softmax/nvidia-h200.json";
  EXPECT_EQ(r.out, "cuop-tune: error: " + file + ":15: trials[0].dims: missing field \"rows\"\n" + file +
                       ":15: trials[0].dims: missing field \"cols\"\n" + file + ": 2 errors\n");
}

TEST(results_input, emit_refuses_an_instance_its_configuration_does_not_name) {
  temp_dir tmp;
  emit_committed(tmp);
  edit_first_trial(tmp, [](nlohmann::json& t) { t["instance"] = "softmax_bf16_block_row\", \"x"; });
  const auto r = run_cli("emit --quiet --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "cuop-tune: error: " + (tmp / "results/softmax/nvidia-h200.json") +
                       ":15: trials[0].instance: \"softmax_bf16_block_row\", \"x\" is not the name of its "
                       "configuration (\"softmax_bf16_block_row_vec2_threads1024_chunks1\")\n");
}

// The case carried to code execution before: a spec file name closing the comment it was written
// into and adding a static initializer. It is free text: data in the provenance file, escaped.
TEST(results_input, a_spec_file_name_with_code_in_it_stays_data) {
  temp_dir tmp;
  emit_committed(tmp);
  const auto path = tmp / "results/softmax/nvidia-h200.json";
  const std::string evil = "x\\n#endif\\n#include <cstdlib>\\nstatic int p = std::system(\\\"touch pwned\\\");\\n//";
  std::string text = read_bytes(path);
  const auto at = text.find("\"spec_file\":\"configs/softmax.yaml\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"spec_file\":\"configs/softmax.yaml\"").size(), "\"spec_file\":\"" + evil + "\"");
  write_file(path, text);
  const auto r = run_cli("emit --quiet --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* f : {"gen/cuop/generated/softmax_dispatch.hpp", "gen/softmax_instances.cu"})
    EXPECT_EQ(read_bytes(tmp / f).find("system"), std::string::npos) << f;
  const auto provenance = nlohmann::json::parse(read_bytes(tmp / "gen/dispatch_provenance.json"));
  EXPECT_EQ(provenance["softmax/nvidia-h200.json"]["runs"][0]["spec_file"],
            "x\n#endif\n#include <cstdlib>\nstatic int p = std::system(\"touch pwned\");\n//");
}

TEST(results_input, a_results_file_out_of_its_place_is_refused) {
  temp_dir tmp;
  emit_committed(tmp);
  fs::rename(tmp / "results/softmax/nvidia-h200.json", tmp / "results/softmax/h200\nx.json");
  const auto r = run_cli("emit --quiet --results " + (tmp / "results") + " --out " + (tmp / "gen"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "cuop-tune: error: " + (tmp / "results/softmax/h200\\nx.json") +
                       ": a results file of op \"softmax\" on \"NVIDIA H200\" belongs at softmax/nvidia-h200.json\n");
}

TEST(results_input, validate_accepts_the_committed_results) {
  const auto r = run_cli("validate " + source + "/results");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("/results/softmax/nvidia-h200.json: ok (softmax op, "), std::string::npos) << r.out;
}

TEST(results_input, validate_fails_on_results_of_changed_kernel_sources) {
  temp_dir tmp;
  fs::copy(source + "/results", tmp / "results", fs::copy_options::recursive);
  // Without its acknowledgement, run 3's split_row trials were measured on other sources.
  std::string acks = read_bytes(tmp / "results/stale.txt");
  const auto line = acks.find("softmax split_row ");
  ASSERT_NE(line, std::string::npos);
  const std::string removed = acks.substr(line, acks.find('\n', line) + 1 - line);
  acks.erase(line, removed.size());
  write_file(tmp / "results/stale.txt", acks);
  const auto r = run_cli("validate " + (tmp / "results"));
  EXPECT_EQ(r.code, 1);
  std::istringstream words(removed);
  std::string op, family, measured, current;
  words >> op >> family >> measured >> current;
  EXPECT_NE(
      r.out.find("cuop-tune: error: " + (tmp / "results") +
                 "/softmax/nvidia-h200.json: 230 trials of family "
                 "\"split_row\" (run 3) were measured on kernel sources " +
                 measured + " (now " + current +
                 "): measure them again (cuop-tune sweep, then export --update) or acknowledge the change in " +
                 (tmp / "results/stale.txt") + ": \"softmax split_row " + measured + " " + current + " <why>\"\n"),
      std::string::npos)
      << r.out;
}

TEST(results_input, validate_fails_on_an_acknowledgement_nothing_needs) {
  temp_dir tmp;
  fs::copy(source + "/results", tmp / "results", fs::copy_options::recursive);
  std::ifstream committed(tmp / "results/stale.txt");
  const auto lines = std::count(std::istreambuf_iterator<char>(committed), std::istreambuf_iterator<char>(), '\n');
  committed.close();
  std::ofstream(tmp / "results/stale.txt", std::ios::app) << "gemm mma 0000000000000000 1111111111111111 no such run\n";
  const auto r = run_cli("validate " + (tmp / "results"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find(tmp / "results/stale.txt" + ":" + std::to_string(lines + 1) +
                       ": acknowledges a change no results file has (gemm mma "
                       "0000000000000000 -> 1111111111111111): remove the line"),
            std::string::npos)
      << r.out;
}

TEST(results_input, validate_fails_on_a_results_file_edited_by_hand) {
  temp_dir tmp;
  fs::copy(source + "/results", tmp / "results", fs::copy_options::recursive);
  // Valid, but not as export writes it: export rounds every figure to 5 significant digits.
  edit_first_trial(tmp, [](nlohmann::json& t) { t["gbps"] = 1000.123456; });
  const auto r = run_cli("validate " + (tmp / "results"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("cuop-tune: error: " + (tmp / "results") +
                       "/softmax/nvidia-h200.json: not in the form export writes (edited by hand? export it again)"),
            std::string::npos)
      << r.out;
}

TEST(results_input, sources_prints_each_kernel_familys_hash) {
  const auto r = run_cli("sources --op gemm");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.size(), 1u);
  EXPECT_EQ(j["gemm"].size(), 3u);  // mma, skinny, wgmma
  EXPECT_EQ(j["gemm"]["mma"].get<std::string>().size(), 16u);
  const auto bad = run_cli("sources --op gem");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(
      bad.out,
      "cuop-tune: error: --op: gem not in {softmax,gemm,conv2d,layernorm,rmsnorm,groupnorm}\nRun with --help for more "
      "information.\n");
}

// A compile-validation sweep records the kernel sources with its run; export writes them.
TEST(results_input, a_sweep_records_its_kernel_sources) {
  temp_dir tmp;
  const auto r = run_cli_without_gpu("sweep --db " + (tmp / "s.db") + " --cache " + (tmp / "cache") + " " + source +
                                     "/tests/data/bad_input/tiny.yaml");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto e = run_cli("export --db " + (tmp / "s.db") + " --out " + (tmp / "results"));
  ASSERT_EQ(e.code, 0) << e.out;
  const auto exported = nlohmann::json::parse(read_bytes(tmp / "results/softmax/validation.json"));
  const auto now = nlohmann::json::parse(run_cli("sources --op softmax").out);
  EXPECT_EQ(exported["runs"][0]["family_hashes"], now["softmax"]);
}

}  // namespace
