// `add-targets`: every kernel configuration of a results file compiled for more targets, the
// builds added, the trials untouched (docs/cli.md, add-targets).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"

using cuop::test::read_file;
using cuop::test::run_cli;
using cuop::test::temp_dir;

namespace {

const std::string h200_db = std::string(CUOP_SOURCE_DIR) + "/tests/data/store/h200-softmax.db";

// The H200 database's results file cut to the trials of two configurations (a warp_row and a
// block_row one) and their builds, at <dir>/softmax/nvidia-h200.json.
std::string small_results(const temp_dir& tmp) {
  const auto exported = run_cli("export --db " + h200_db + " --out " + (tmp / "full"));
  EXPECT_EQ(exported.code, 0) << exported.out;
  auto j = nlohmann::json::parse(read_file(tmp / "full/softmax/nvidia-h200.json"));
  std::set<std::string> keep;
  for (const char* family : {"warp_row", "block_row"})
    for (const auto& t : j["trials"])
      if (t["family"] == family) {
        keep.insert(t["instance"].get<std::string>());
        break;
      }
  nlohmann::json trials = nlohmann::json::array(), builds = nlohmann::json::array();
  for (const auto& t : j["trials"])
    if (keep.contains(t["instance"].get<std::string>())) trials.push_back(t);
  for (const auto& b : j["builds"])
    if (keep.contains(b["instance"].get<std::string>())) builds.push_back(b);
  j["trials"] = trials;
  j["builds"] = builds;
  std::filesystem::create_directories(tmp / "results/softmax");
  const auto path = tmp / "results/softmax/nvidia-h200.json";
  std::ofstream(path) << j.dump(1) << "\n";
  return path;
}

}  // namespace

TEST(cli_add_targets, adds_each_configurations_build_and_keeps_the_trials) {
  temp_dir tmp;
  const auto path = small_results(tmp);
  const auto before = nlohmann::json::parse(read_file(path));
  const auto r = run_cli("add-targets " + (tmp / "results") + " --targets sm_86,sm_120 --cache " + (tmp / "cache"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(path + ": 4 builds added\n  sm_86: 2 ok, 0 not\n  sm_120: 2 ok, 0 not\n"), std::string::npos)
      << r.out;
  const auto after = nlohmann::json::parse(read_file(path));
  EXPECT_EQ(after["trials"], before["trials"]);
  EXPECT_EQ(after["runs"], before["runs"]);
  std::set<std::string> targets;
  for (const auto& b : after["builds"]) {
    targets.insert(b["target"].get<std::string>());
    if (b["target"] == "sm_86") {
      EXPECT_EQ(b["status"], "ok");
      EXPECT_GT(b["registers"].get<int>(), 0);
    }
  }
  EXPECT_TRUE(targets.contains("sm_86") && targets.contains("sm_120") && targets.contains("sm_90a"));
  // Nothing left to add: the file is not rewritten.
  const auto again = run_cli("add-targets " + path + " --targets sm_86 --cache " + (tmp / "cache"));
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find(path + ": 0 builds added (unchanged)"), std::string::npos) << again.out;
  // emit serves 8.6 from those builds.
  const auto emitted = run_cli("emit --results " + (tmp / "results") + " --out " + (tmp / "gen") + " --targets 86");
  ASSERT_EQ(emitted.code, 0) << emitted.out;
  EXPECT_NE(emitted.out.find("cuop-tune emit: CUDA architecture 86 (compute capability 8.6): the sm_86 table"),
            std::string::npos);
}

TEST(cli_add_targets, unknown_targets_and_misnamed_configurations_are_errors_that_write_nothing) {
  temp_dir tmp;
  const auto path = small_results(tmp);
  const auto unknown = run_cli("add-targets " + path + " --targets sm_91");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.out.find("--targets: unknown target \"sm_91\" (did you mean \"sm_90\"?)"), std::string::npos)
      << unknown.out;
  // A configuration stored under a name its family no longer gives it.
  auto j = nlohmann::json::parse(read_file(path));
  const std::string stored = j["trials"][0]["instance"];
  for (auto& t : j["trials"])
    if (t["instance"] == stored) t["instance"] = stored + "_old";
  for (auto& b : j["builds"])
    if (b["instance"] == stored) b["instance"] = stored + "_old";
  std::ofstream(path) << j.dump(1) << "\n";
  const auto text = read_file(path);
  const auto renamed = run_cli("add-targets " + path + " --targets sm_86 --cache " + (tmp / "cache"));
  EXPECT_EQ(renamed.code, 1);
  EXPECT_NE(renamed.out.find("trials[0].instance: \"" + stored + "_old\" is not the name of its configuration"),
            std::string::npos)
      << renamed.out;
  EXPECT_EQ(read_file(path), text);
}
