// A results file is untrusted input turned into C++ at build time (docs/cli.md, "Results files
// are untrusted"). Every field of a small results file of each op gets each hostile value (quotes,
// newlines, comment ends, trigraphs, NUL, escapes, preprocessor lines, values of the wrong type,
// out of range), and so does a hostile extra key in each object. Each such file is either
// refused, naming the field, or emitted into files that hold only data: the same code as the
// clean file's once string literals and comments are blanked, every generated header compiles,
// and the provenance data file parses as JSON with no raw control character in it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/ops/conv2d/emit.hpp"
#include "tuner/ops/gemm/emit.hpp"
#include "tuner/ops/softmax/emit.hpp"
#include "tuner/results/results_file.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace cuop;

const std::string source_dir = CUOP_SOURCE_DIR;

// The values every field is given in turn.
std::vector<json> hostile_values() {
  std::vector<json> out;
  for (const std::string& s : std::vector<std::string>{
           "\"", "\\", "\n", "*/", "?\?/", std::string("a\0b", 3), "#include <cstdlib>\n",
           "\"); std::system(\"id\"); //", "*/ static int p = std::system(\"id\"); /*", "x\\\n#define private public",
           "\x1b[31mred", "\u2028", "NVIDIA H200\"\n#include \"x", "", "f64"})
    out.push_back(s);
  for (const json& v : {json(-1), json(0), json(1LL << 40), json(1e300), json(-0.5), json(nullptr), json(true),
                        json::array(), json::object(), json::array({1, 2, 3})})
    out.push_back(v);
  return out;
}

// The targets every file is emitted for.
const std::vector<std::string> emit_targets = {"80", "90a", "100a"};

// The first problem of the committed results of `op`, with its trials and their builds for the
// emitted targets (builds for others are read, but emit nothing here, and would only make each of
// the test's thousands of reads longer), and its first run given family hashes: small, valid, and
// emitting entries of every kind it has.
json small_results(const std::string& op) {
  std::ifstream in(source_dir + "/results/" + op + "/nvidia-h200.json");
  json all = json::parse(in);
  json out = all;
  const std::string problem = all["trials"][0]["problem"];
  out["trials"] = json::array();
  std::set<std::string> instances;
  std::set<long long> runs;
  for (const auto& t : all["trials"])
    if (t["problem"] == problem) {
      out["trials"].push_back(t);
      instances.insert(t["instance"].get<std::string>());
      runs.insert(t["run"].get<long long>());
    }
  std::set<std::string> targets;
  for (const auto& t : emit_targets) targets.insert("sm_" + t);
  out["builds"] = json::array();
  for (const auto& b : all["builds"])
    if (instances.contains(b["instance"].get<std::string>()) && targets.contains(b["target"].get<std::string>()))
      out["builds"].push_back(b);
  out["runs"] = json::array();
  for (const auto& r : all["runs"])
    if (runs.contains(r["id"].get<long long>())) out["runs"].push_back(r);
  const auto* fam = out["trials"][0]["family"].get_ptr<const std::string*>();
  out["runs"][0]["family_hashes"] = json::object();
  if (*fam != "cublaslt" && *fam != "cudnn" && *fam != "fft")
    out["runs"][0]["family_hashes"][*fam] = "0123456789abcdef";
  return out;
}

struct emitted_files {
  std::vector<std::string> code;  // headers and units
  std::string provenance;
};

// Writes `results` where emit reads it, reads and emits it for every target. Throws cuop::error
// when the file is refused.
emitted_files emit_from(const fs::path& dir, const json& results) {
  fs::remove_all(dir);
  const std::string gpu =
      results.contains("gpu") && results["gpu"].is_string() ? results["gpu"].get<std::string>() : "";
  std::string op = results.contains("op") && results["op"].is_string() ? results["op"].get<std::string>() : "x";
  if (op.empty() || op.find_first_of(std::string("/\0", 2)) != std::string::npos) op = "x";  // a folder name
  const auto path = dir / op / (results::slug(gpu) + ".json");
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << results.dump(-1, ' ', false, json::error_handler_t::replace);
  const auto files = results::read_results(dir.string());
  emitted_files out;
  std::set<emit::cited_run> cited;
  for (const auto& e : {cuop::ops::emit_softmax(files, emit_targets), cuop::ops::emit_gemm(files, emit_targets),
                        cuop::ops::emit_conv(files, emit_targets)}) {
    out.code.push_back(e.header);
    out.code.push_back(e.instantiation);
    for (const auto& u : e.kernel_units) out.code.push_back(u);
    cited.insert(e.cited.begin(), e.cited.end());
  }
  out.provenance = emit::provenance_json(cited).dump(1, ' ', false, json::error_handler_t::replace);
  return out;
}

std::string literals_blanked(const std::string& text);

// C++ text with comments removed, every string and character literal emptied and the emit id
// (a digest of the data) blanked: what is left is the code. Two emits whose code is equal differ
// only in data.
std::string code_of(const std::string& text) {
  return std::regex_replace(literals_blanked(text), std::regex("0x[0-9a-f]{16}ull"), "0xIDull");
}

std::string literals_blanked(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      out += '\n';
    } else if (ch == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) return out + "<unterminated comment>";
      ++i;
    } else if (ch == '"' || ch == '\'') {
      for (++i; i < text.size() && text[i] != ch; ++i)
        if (text[i] == '\\') ++i;
        else if (text[i] == '\n') return out + "<newline in a literal>";
      out += ch;
      out += ch;
    } else {
      out += ch;
    }
  }
  return out;
}

// Every leaf and every object of `j` (header, first run, first trial, first build), as JSON
// pointers: the places a hostile value goes.
void places(const json& j, const json::json_pointer& at, int depth, std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) places(v, at / k, depth + 1, out);
  } else if (j.is_array() && !j.empty() && (depth == 1 || j.size() == 2)) {
    places(j[0], at / 0, depth + 1, out);  // runs, trials, builds (depth 1) and ci_us: the first element
  }
}

// g++ -fsyntax-only on each generated header (the units need nvcc; their code is compared above).
bool headers_compile(const fs::path& dir, const emitted_files& files) {
  const auto gen = dir / "gen";
  fs::create_directories(gen / "cuop" / "generated");
  const char* names[] = {"softmax", "gemm", "conv"};
  std::string includes;
  for (int i = 0; i < 3; ++i) {
    core::write_atomically((gen / "cuop" / "generated" / (std::string(names[i]) + "_dispatch.hpp")).string(),
                           files.code[(2 + emit::kernel_unit_count) * static_cast<std::size_t>(i)]);
    includes += fmt::format("#include \"cuop/generated/{}_dispatch.hpp\"\n", names[i]);
  }
  core::write_atomically((gen / "all.cpp").string(), includes);
  const auto cmd = fmt::format("{} -std=c++20 -fsyntax-only -I{} -I{} -I{} {} 2>{}", CUOP_CXX, gen.string(),
                               CUOP_KERNELS_INCLUDE_DIR, CUOP_CUDA_INCLUDE_DIR, (gen / "all.cpp").string(),
                               (gen / "errors.txt").string());
  const bool ok = std::system(cmd.c_str()) == 0;
  if (!ok) ADD_FAILURE() << core::read_file((gen / "errors.txt").string()).value_or("");
  return ok;
}

class emit_hostile : public ::testing::TestWithParam<std::string> {};

TEST_P(emit_hostile, every_field_is_refused_or_stays_data) {
  const std::string op = GetParam();
  const auto dir = fs::temp_directory_path() / ("cuop-emit-hostile-" + op + "-" + std::to_string(::getpid()));
  const json clean = small_results(op);
  const auto reference = emit_from(dir, clean);
  ASSERT_EQ(reference.code.size(), 3u * (2 + emit::kernel_unit_count));  // per op: header, unit, kernel units
  ASSERT_TRUE(headers_compile(dir, reference));
  std::vector<std::string> reference_code;
  for (const auto& c : reference.code) reference_code.push_back(code_of(c));

  std::vector<json::json_pointer> at;
  places(clean, json::json_pointer(), 0, at);
  int refused = 0, accepted = 0;
  bool compiled_text = false;
  int compiled = 0;
  for (const auto& pointer : at) {
    std::vector<json> files;
    for (const auto& value : hostile_values()) {
      if (pointer.empty()) break;  // the whole file: another test's (not an object of results)
      json bad = clean;
      bad[pointer] = value;
      files.push_back(std::move(bad));
    }
    if (clean[pointer].is_object()) {  // a hostile key
      json bad = clean;
      bad[pointer]["x\"\n#include <cstdlib>"] = 1;
      files.push_back(std::move(bad));
    }
    for (const auto& bad : files) {
      emitted_files out;
      try {
        out = emit_from(dir, bad);
      } catch (const error& e) {
        ++refused;
        // The message names the place: the run, trial or build ("trials[0]"), or for the
        // header's fields the file.
        const std::string message = e.what();
        const std::string at = pointer.to_string();  // "" for the root, else "/trials/0/dtype"
        const std::string top = at.empty() ? "" : at.substr(1, at.find('/', 1) - 1);
        const bool element =
            at.find('/', 1) != std::string::npos && (top == "runs" || top == "trials" || top == "builds");
        // A run's id is also the trials' reference to it: they say they lost their run.
        const bool named = message.find(element ? top + "[0]" : std::string(".json")) != std::string::npos ||
                           (top == "runs" && message.find(".run: run ") != std::string::npos);
        EXPECT_TRUE(named) << pointer.to_string() << ": " << message;
        continue;
      }
      ++accepted;
      ASSERT_EQ(out.code.size(), reference_code.size());
      const std::string what = pointer.to_string() + " = " + bad[pointer].dump(-1, ' ', true);
      EXPECT_NO_THROW([[maybe_unused]] const json parsed = json::parse(out.provenance)) << what;
      for (const std::string& text : out.code)
        for (unsigned char ch : text) ASSERT_TRUE(ch >= 0x20 || ch == '\n') << what;
      if (bad[pointer].is_string()) {
        // Text is data: the code is the clean file's, whatever the text holds.
        for (std::size_t i = 0; i < out.code.size(); ++i) EXPECT_EQ(code_of(out.code[i]), reference_code[i]) << what;
      } else if (compiled < 4) {
        // An accepted number or list may change which entries there are (no builds: nothing is
        // legal anywhere): still code that compiles.
        ++compiled;
        EXPECT_TRUE(headers_compile(dir, out)) << what;
      }
      if (!compiled_text && bad[pointer].is_string() && bad[pointer] != clean[pointer]) {
        compiled_text = true;  // one compile of a file that took hostile text
        EXPECT_TRUE(headers_compile(dir, out)) << what;
      }
    }
  }
  EXPECT_GT(refused, 100);  // most places refuse most values
  EXPECT_GT(accepted, 0);   // free text (spec_file, build messages, GPU names) is accepted as data
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(ops, emit_hostile, ::testing::Values("softmax", "gemm", "conv2d"));

// A GPU name is free text that reaches code: only as an escaped literal that keeps its bytes.
TEST(emit_hostile_literal, escapes_keep_every_byte_and_nothing_else) {
  EXPECT_EQ(emit::cxx_string_literal("NVIDIA H200"), "\"NVIDIA H200\"");
  EXPECT_EQ(emit::cxx_string_literal("a\"b\\c?\n"), "\"a\\042b\\134c\\077\\012\"");
  EXPECT_EQ(emit::cxx_string_literal(std::string("\0"
                                                 "9",
                                                 2)),
            "\"\\0009\"");  // octal: never runs into the next digit
  EXPECT_EQ(emit::cxx_string_literal("\xc3\xa9"), "\"\\303\\251\"");
}

}  // namespace
