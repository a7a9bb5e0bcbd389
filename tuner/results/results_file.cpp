#include "tuner/results/results_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tuner/core/error.hpp"
#include "tuner/core/files.hpp"
#include "tuner/core/text.hpp"
#include "tuner/results/current_trials.hpp"
#include "tuner/results/results_aliases.hpp"
#include "tuner/results/results_schema.hpp"
#include "tuner/results/results_update.hpp"

namespace cuop::results {

namespace fs = std::filesystem;
using nlohmann::json;
using ordered = nlohmann::ordered_json;

namespace {

constexpr const char* format_tag = results_format_tag;

// Bytes that are not UTF-8 (a sweep file's name, say) are replaced, not a reason to fail.
std::string dump(const ordered& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

double round_sig(double x) {  // 5 significant digits: stable text, ample precision for timings
  if (x == 0 || !std::isfinite(x)) return 0;
  const double scale = std::pow(10.0, 4 - static_cast<int>(std::floor(std::log10(std::fabs(x)))));
  return std::round(x * scale) / scale;
}

ordered trial_json(const result_trial& t) {
  ordered j;
  j["problem"] = t.problem;
  j["dtype"] = t.dtype;
  j["dims"] = t.dims;
  j["instance"] = t.instance;
  j["family"] = t.family;
  j["params"] = t.params;
  j["status"] = t.status;
  if (t.status == "ok") {
    j["median_us"] = round_sig(t.median_us);
    j["min_us"] = round_sig(t.min_us);
    j["q1_us"] = round_sig(t.q1_us);
    j["q3_us"] = round_sig(t.q3_us);
    j["ci_us"] = {round_sig(t.ci_lo_us), round_sig(t.ci_hi_us)};
    j["samples"] = t.samples;
    if (t.batch > 1) j["batch"] = t.batch;  // absent: single launches (every file before batching)
    j["gbps"] = round_sig(t.gbps);
  }
  j["run"] = t.run;
  // Last on the line: the long array does not push the summary out of a reviewer's view.
  if (t.status == "ok" && !t.samples_us.empty()) {
    std::vector<double> rounded;
    for (double x : t.samples_us) rounded.push_back(std::round(x * 100) / 100);
    j["samples_us"] = rounded;
  }
  return j;
}

ordered build_json(const result_build& b) {
  ordered j;
  j["instance"] = b.instance;
  j["target"] = b.target;
  j["status"] = b.status;
  j["registers"] = b.registers;
  j["smem"] = b.smem;
  j["spill_stores"] = b.spill_stores;
  j["spill_loads"] = b.spill_loads;
  if (!b.message.empty()) j["message"] = b.message;
  return j;
}

}  // namespace

// Reviewable layout: the header fields, then one array element per line.
std::string render_results(const result_file& f) {
  ordered head;
  head["format"] = format_tag;
  head["op"] = f.op;
  head["gpu"] = f.gpu;
  head["cc"] = f.cc;
  head["sm_count"] = f.sm_count;
  head["driver"] = f.driver;
  head["cuda_runtime"] = f.cuda_runtime;
  head["source_hash"] = f.source_hash;
  std::string out = "{\n";
  for (auto it = head.begin(); it != head.end(); ++it)
    out += fmt::format("  {}: {},\n", dump(ordered(it.key())), dump(it.value()));
  const auto array = [&out](const char* name, const std::vector<ordered>& rows, bool last) {
    out += fmt::format("  \"{}\": [\n", name);
    for (std::size_t i = 0; i < rows.size(); ++i)
      out += fmt::format("    {}{}\n", dump(rows[i]), i + 1 < rows.size() ? "," : "");
    out += last ? "  ]\n" : "  ],\n";
  };
  std::vector<ordered> runs, trials, builds;
  for (const auto& r : f.runs) {
    ordered run{{"id", r.id},
                {"started_at", r.started_at},
                {"spec_file", r.spec_file},
                {"env_key", r.env_key},
                {"git_rev", r.git_rev}};
    if (!r.family_hashes.empty()) run["family_hashes"] = r.family_hashes;
    runs.push_back(std::move(run));
  }
  for (const auto& t : f.trials) trials.push_back(trial_json(t));
  for (const auto& b : f.builds) builds.push_back(build_json(b));
  array("runs", runs, false);
  array("trials", trials, false);
  array("builds", builds, true);
  return out + "}\n";
}

namespace {

// A run's family hashes as the database keeps them (JSON text; "" before schema 4).
std::map<std::string, std::string> family_hashes_of(const store::run_info& r) {
  if (r.family_hashes.empty()) return {};
  try {
    return json::parse(r.family_hashes).get<std::map<std::string, std::string>>();
  } catch (const json::exception& e) {
    throw error(fmt::format("run {}: its family hashes are not a JSON object of strings: {}", r.id, e.what()));
  }
}

}  // namespace

result_file read_results_file(const std::string& path) {
  return parse_results(core::read_regular_file(path, core::max_results_file_bytes, "results file"), path);
}

std::vector<result_file> read_results_path(const std::string& path) {
  if (fs::is_directory(path)) return read_results(path);
  return {read_results_file(path)};
}

result_file parse_results(const std::string& text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const std::exception& e) {
    throw error(fmt::format("{}: not a results file: {}", core::printable(path), e.what()));
  }
  upgrade_result_keys(j, path);  // files written before issue 38's renames
  if (auto report = schema_errors(j, text, path); report.total > 0)
    throw error_list(std::move(report.messages), report.total, core::printable(path));
  // Valid: every field below has its type and range.
  result_file f;
  f.path = path;
  f.op = j.at("op").get<std::string>();
  f.gpu = j.at("gpu").get<std::string>();
  f.cc = j.at("cc").get<int>();
  f.sm_count = j.value("sm_count", 0);
  f.driver = j.value("driver", "");
  f.cuda_runtime = j.value("cuda_runtime", "");
  f.source_hash = j.value("source_hash", "");
  for (const auto& r : j.at("runs"))
    f.runs.push_back({r.at("id").get<std::int64_t>(), r.at("started_at").get<std::string>(), r.value("spec_file", ""),
                      r.value("env_key", ""), r.value("git_rev", ""),
                      r.value("family_hashes", std::map<std::string, std::string>{})});
  for (const auto& t : j.at("trials")) {
    result_trial x;
    x.problem = t.at("problem").get<std::string>();
    x.dtype = t.at("dtype").get<std::string>();
    x.dims = t.at("dims").get<std::map<std::string, long long>>();
    x.instance = t.at("instance").get<std::string>();
    x.family = t.at("family").get<std::string>();
    x.params = t.at("params").get<std::map<std::string, long long>>();
    x.status = t.at("status").get<std::string>();
    x.median_us = t.value("median_us", 0.0);
    x.min_us = t.value("min_us", 0.0);
    x.q1_us = t.value("q1_us", 0.0);
    x.q3_us = t.value("q3_us", 0.0);
    if (t.contains("ci_us")) {
      x.ci_lo_us = t["ci_us"][0].get<double>();
      x.ci_hi_us = t["ci_us"][1].get<double>();
    }
    x.samples = t.value("samples", 0);
    x.batch = t.value("batch", 1);
    x.gbps = t.value("gbps", 0.0);
    x.run = t.value("run", std::int64_t{0});
    x.samples_us = t.value("samples_us", std::vector<double>{});  // absent in older files
    f.trials.push_back(std::move(x));
  }
  for (const auto& b : j.at("builds"))
    f.builds.push_back({b.at("instance").get<std::string>(), b.at("target").get<std::string>(),
                        b.at("status").get<std::string>(), b.value("message", ""), b.value("registers", 0),
                        b.value("smem", 0LL), b.value("spill_stores", 0LL), b.value("spill_loads", 0LL)});
  return f;
}

std::string slug(const std::string& gpu_name) {
  std::string s;
  for (char c : gpu_name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!s.empty() && s.back() != '-') s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "validation" : s;
}

void require_writable_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
    throw error(fmt::format("{}: cannot be written: something other than a file is in its place", path));
}

bool write_if_changed(const std::string& path, const std::string& content) {
  require_writable_file(path);
  if (const auto old = core::read_file(path); old && *old == content) return false;
  core::write_atomically(path, content);
  return true;
}

namespace {

// The results of one GPU model as export writes them (the trials current_trials selected), and
// the runs its trials come from.
result_file file_of(store::database& db, const std::string& op, const gpu_results& current, export_samples samples,
                    std::set<std::int64_t>& used_runs) {
  result_file f;
  const auto& env = current.runs.back().env;  // the newest run's environment describes the file
  f.op = op;
  f.gpu = env.gpu_name;
  f.cc = env.cc;
  f.sm_count = env.sm_count;
  f.driver = env.driver;
  f.cuda_runtime = env.cuda_runtime;
  f.source_hash = env.source_hash;
  const auto best = winners(current.trials);
  for (const auto& t : current.trials) {
    result_trial x;
    x.problem = t.problem.key;
    x.dtype = t.problem.dtype;
    x.dims = json::parse(t.problem.dims_json).get<std::map<std::string, long long>>();
    x.instance = t.config.instance;
    x.family = t.config.family;
    x.params = json::parse(t.config.params_json).get<std::map<std::string, long long>>();
    x.status = t.status;
    x.median_us = t.median_us;
    x.min_us = t.min_us;
    x.q1_us = t.q1_us;
    x.q3_us = t.q3_us;
    x.ci_lo_us = t.ci_lo_us;
    x.ci_hi_us = t.ci_hi_us;
    x.samples = t.samples;
    x.batch = t.batch;
    x.gbps = t.gbps;
    x.run = t.run_id;
    const auto w = best.find(t.problem.key);
    if (samples == export_samples::all || (samples == export_samples::winners && w != best.end() && w->second == &t))
      x.samples_us = t.sample_us;
    used_runs.insert(t.run_id);
    f.trials.push_back(std::move(x));
  }
  for (const auto& r : current.runs)
    if (used_runs.contains(r.id) || f.gpu.empty())
      f.runs.push_back({r.id, r.started_at, r.spec_file, r.env.key(), r.env.git_rev, family_hashes_of(r)});
  // Builds are GPU-independent; the newest per (instance, target) goes with every file.
  std::map<std::pair<std::string, std::string>, store::build_record> builds;
  for (auto& b : db.builds(op)) builds[{b.instance, b.target}] = std::move(b);
  for (const auto& [key, b] : builds)
    f.builds.push_back(
        {b.instance, b.target, b.status, b.message, b.registers, b.smem_static, b.spill_stores, b.spill_loads});
  return f;
}

}  // namespace

std::vector<std::string> export_results(store::database& db, const std::string& op, const std::string& dir,
                                        export_samples samples, export_merge merge) {
  std::vector<std::string> written;
  for (auto& [s, current] : current_trials(db, op, samples != export_samples::none)) {
    std::set<std::int64_t> used_runs;
    result_file f = file_of(db, op, current, samples, used_runs);
    const auto path = (fs::path(dir) / op / (s + ".json")).string();
    if (std::error_code ec; merge != export_merge::replace && fs::exists(path, ec)) {
      // Each problem measured is replaced whole: a run that did not finish may hold only part
      // of one, and would take the rest of the committed configurations with it.
      for (const auto& r : current.runs)
        if (used_runs.contains(r.id) && r.state != "finished")
          throw error(
              fmt::format("{}: cannot update from run {}, which is {}: a problem it measured in part "
                          "would replace all of the problem's committed results; finish the sweep first",
                          path, r.id, r.state.empty() ? "unfinished" : r.state));
      f = merge == export_merge::add ? add_results(read_results_file(path), std::move(f))
                                     : update_results(read_results_file(path), std::move(f));
    }
    write_if_changed(path, render_results(f));
    written.push_back(path);
  }
  return written;
}

std::vector<result_file> database_results(store::database& db, const std::string& op, const std::string& label) {
  std::vector<result_file> out;
  for (auto& [s, current] : current_trials(db, op, false)) {
    std::set<std::int64_t> used_runs;
    const auto path = fmt::format("{}/{}.json", op, s);
    // Through the text and its schema: what a database holds is checked as a results file is.
    out.push_back(parse_results(render_results(file_of(db, op, current, export_samples::none, used_runs)),
                                fmt::format("{} ({})", label, path)));
    out.back().path = path;
  }
  return out;
}

std::vector<result_file> read_results(const std::string& dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".json") paths.push_back(it->path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<result_file> out;
  for (const auto& p : paths) {
    out.push_back(read_results_file(p));
    // Relative to the results folder: generated files must not depend on where the checkout is.
    // Export writes <op>/<gpu slug>.json and nothing else, so any other name (one that holds a
    // newline, say: it is quoted in generated files) is not a results file of this folder.
    const auto rel = fs::relative(p, dir).generic_string();
    const auto expected = fmt::format("{}/{}.json", out.back().op, slug(out.back().gpu));
    if (rel != expected)
      throw error(fmt::format("{}: a results file of op \"{}\" on {} belongs at {}", core::printable(p), out.back().op,
                              core::quoted(out.back().gpu.empty() ? "no GPU" : out.back().gpu), expected));
    out.back().path = rel;
  }
  return out;
}

}  // namespace cuop::results
