#include "tuner/emit/emit_common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>

#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/core/suggest.hpp"

namespace cuop::emit {

std::string normalize_target(const std::string& raw) {
  std::string t = raw;
  if (const auto dash = t.find('-'); dash != std::string::npos) t = t.substr(0, dash);
  if (t.rfind("sm_", 0) != 0) t = "sm_" + t;
  if (!compile::find_target(t))
    throw error(fmt::format("unknown target \"{}\"{}", raw, suggest_suffix(raw, compile::target_names())));
  return t;
}

std::vector<std::string> normalize_targets(const std::vector<std::string>& raw) {
  std::vector<std::string> targets;
  for (const auto& t : raw) targets.push_back(normalize_target(t));
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

chosen_results results_for_target(const std::vector<result_file>& results, const std::string& op,
                                  const std::string& target) {
  const int cc = compile::find_target(target)->cc;
  std::vector<const result_file*> measured;
  for (const auto& f : results)
    if (f.op == op && !f.gpu.empty()) measured.push_back(&f);
  chosen_results out;
  for (const auto* f : measured)
    if (f->cc == cc) out.files.push_back(f);
  out.tuned = !out.files.empty();
  if (out.tuned || measured.empty()) return out;
  int best_cc = -1;
  for (const auto* f : measured)
    if (best_cc < 0 || std::abs(f->cc - cc) < std::abs(best_cc - cc) ||
        (std::abs(f->cc - cc) == std::abs(best_cc - cc) && f->cc < best_cc))
      best_cc = f->cc;
  for (const auto* f : measured)
    if (f->cc == best_cc) out.files.push_back(f);
  return out;
}

bool legal_on(const result_file& f, const std::string& instance, const std::string& target) {
  for (const auto& b : f.builds)
    if (b.instance == instance && b.target == target) return b.status == "ok";
  return false;
}

std::map<std::string, const result_trial*> best_per_problem(
    const result_file& f, const std::function<bool(const result_trial&)>& keep) {
  std::map<std::string, const result_trial*> best;
  for (const auto& t : f.trials) {
    if (t.status != "ok" || !keep(t)) continue;
    auto& b = best[t.problem];
    if (!b || t.median_us < b->median_us ||
        (t.median_us == b->median_us && t.instance < b->instance))
      b = &t;
  }
  return best;
}

bool clearly_faster(const result_trial& challenger, const result_trial& reference) {
  return challenger.ci_hi_us > 0 && challenger.ci_hi_us < reference.ci_lo_us &&
         challenger.median_us * (1.0 + tie_margin) < reference.median_us;
}

std::vector<emit_choice> choose_for_target(const chosen_results& chosen, const std::string& target,
                                           const trial_test& is_library, const trial_test& is_reference,
                                           const trial_test& runs_on) {
  std::vector<emit_choice> out;
  for (const auto* f : chosen.files) {
    std::map<std::string, const result_trial*> references;
    for (const auto& t : f->trials)
      if (t.status == "ok" && is_reference(t)) references[t.problem] = &t;
    const auto keep = [&](const result_trial& t) {
      return is_library(t) || (legal_on(*f, t.instance, target) && (!runs_on || runs_on(t)));
    };
    for (auto [problem, t] : best_per_problem(*f, keep)) {
      if (const auto ref = references.find(problem); ref != references.end() && !clearly_faster(*t, *ref->second))
        t = ref->second;  // a tie: the reference
      out.push_back({f, t});
    }
  }
  return out;
}

std::string target_report(const std::string& label, std::size_t count, bool tuned, std::size_t defaults) {
  return fmt::format("{}: {} {} entries, {} defaults", label, count,
                     tuned ? "tuned" : (count ? "nearest-arch" : "no measured"), defaults);
}

std::string cxx_string_literal(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    const bool plain = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') || (byte >= '0' && byte <= '9') ||
                       std::string_view(" _-.,:;/()[]+=@#%&*<>!^~|{}$`'").find(ch) != std::string_view::npos;
    if (plain) out += ch;
    else out += fmt::format("\\{:03o}", byte);
  }
  return out + "\"";
}

std::string run_provenance(const result_file& f, std::int64_t run) { return fmt::format("{} run {}", f.path, run); }

nlohmann::json provenance_json(const std::set<cited_run>& cited) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& c : cited) {
    auto& file = out[c.file->path];
    file["op"] = c.file->op;
    file["gpu"] = c.file->gpu;
    file["cc"] = c.file->cc;
    if (!file.contains("runs")) file["runs"] = nlohmann::json::array();
    nlohmann::json run = {{"id", c.run}};
    for (const auto& r : c.file->runs)
      if (r.id == c.run)
        run = {{"id", r.id}, {"started_at", r.started_at}, {"spec_file", r.spec_file}, {"git_rev", r.git_rev},
               {"env_key", r.env_key}, {"family_hashes", r.family_hashes}};
    file["runs"].push_back(std::move(run));
  }
  return out;
}

std::string emit_banner(const std::vector<std::string>& targets,
                        const std::set<std::string>& provenance_lines) {
  std::string provenance;
  for (const auto& line : provenance_lines) provenance += "//   " + line + "\n";
  if (provenance.empty()) provenance = "//   (no measured results: every entry is a default)\n";
  return fmt::format("// Generated by cuop-tune emit; do not edit. Targets: {}.\n// Measured results:\n{}",
                     fmt::join(targets, ", "), provenance);
}

void finish_files(const std::string& op, const std::string& banner, std::size_t table_size,
                  const std::vector<unit_kernel>& kernels, std::string& header, std::string& unit) {
  std::string kernel_list;
  for (const auto& k : kernels) kernel_list += k.name + "\n";
  const std::string emit_id = compile::hash_hex(header + kernel_list);
  header += fmt::format(
      "}};\n\ninline constexpr int {0}_table_size = {1};\ninline constexpr int {0}_kernel_count = {2};\n"
      "inline constexpr unsigned long long {0}_emit_id = 0x{3}ull;\n\n}}  // namespace cuop::generated\n",
      op, table_size, kernels.size(), emit_id);

  unit += banner;
  unit += "// The chosen kernels, from the same source text the tuner compiled with NVRTC.\n";
  std::set<std::string> includes;
  for (const auto& k : kernels) includes.insert(k.includes.begin(), k.includes.end());
  for (const auto& inc : includes) unit += fmt::format("#include <{}>\n", inc);
  unit += "\n";
  for (const auto& k : kernels) unit += k.definition + "\n";
  unit += fmt::format(
      "#include \"cuop/generated/{0}_dispatch.hpp\"\n\n"
      "static_assert(cuop::generated::{0}_emit_id == 0x{1}ull,\n"
      "              \"{0}_dispatch.hpp and {0}_instances.cu come from different emits\");\n\n",
      op, emit_id);
  unit += fmt::format("namespace cuop::generated {{\n\nextern const void* const {}_kernels[{}] = {{\n", op,
                      std::max<std::size_t>(1, kernels.size()));
  for (const auto& k : kernels) unit += fmt::format("    reinterpret_cast<const void*>(&{}),\n", k.name);
  if (kernels.empty()) unit += "    nullptr,\n";
  unit += "};\n\n}  // namespace cuop::generated\n";
}

}  // namespace cuop::emit
