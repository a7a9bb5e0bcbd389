#include "tuner/emit/model_build.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace cuop::emit {

namespace {

// A float as a C++ literal that reads back exactly: "0.25f", "3.0f" (a point before the suffix).
std::string float_literal(float v) {
  std::string text = fmt::format("{:.9g}", v);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text + "f";
}

}  // namespace

std::vector<built_model> build_models(const chosen_results& chosen, const model_traits& traits) {
  std::vector<built_model> out;
  for (const auto* f : chosen.files) {
    // problem -> its shipping trials and baseline, per group
    std::map<std::string, std::map<std::string, model::anchor>> groups;
    std::map<std::string, int> without_baseline;
    for (const auto& t : f->trials) {
      if (t.status != "ok") continue;
      auto& a = groups[traits.group(t)][t.problem];
      a.problem = t.problem;
      if (traits.is_baseline(t)) a.baseline = &t;
      if (traits.is_baseline(t) || traits.ships(*f, t)) a.trials[t.instance] = &t;
    }
    for (auto& [group, problems] : groups) {
      built_model m;
      m.file = f;
      m.group = group;
      m.tuned = chosen.tuned;
      std::vector<model::anchor> anchors;
      for (auto& [problem, a] : problems) {
        if (!a.baseline) {
          ++m.without_baseline;
          continue;
        }
        a.features = traits.features(*a.baseline);
        anchors.push_back(std::move(a));
      }
      if (anchors.empty()) continue;
      m.fit = model::fit(std::move(anchors), model::default_params, traits.floor_features);
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::string model_report(const std::string& label, const std::vector<built_model>& models) {
  int anchors = 0, candidates = 0, trusted = 0, slower = 0, unknown = 0, defaults = 0;
  double log_sum = 0, worst = 1;
  for (const auto& m : models) {
    anchors += m.fit.loo.anchors;
    candidates += static_cast<int>(m.fit.candidates.size());
    for (const auto t : m.fit.trusted) trusted += t;
    slower += m.fit.loo.slower;
    unknown += m.fit.loo.unknown;
    log_sum += std::log(m.fit.loo.geomean) * m.fit.loo.anchors;
    worst = std::min(worst, m.fit.loo.worst);
    defaults += m.fit.group_default >= 0 ? 1 : 0;
  }
  if (models.empty())
    return fmt::format("{}: no model (no verified shape with a verified baseline): the baseline everywhere", label);
  return fmt::format(
      "{}: {} model{} of {} tuned shapes, {} candidates ({} trusted), {} with a group default; leave-one-out: {:.3f}x "
      "the baseline (geometric mean), worst {:.3f}x, {} of {} slower than {}x, {} without an outcome",
      label, models.size(), models.size() == 1 ? "" : "s", anchors, candidates, trusted, defaults,
      std::exp(anchors ? log_sum / anchors : 0.0), worst, slower, anchors, model::slower_than, unknown);
}

std::string model_arrays(const std::string& op, const std::string& model_type, int feature_count,
                         const std::vector<emitted_model>& models) {
  std::string list, features, speedups, columns, trusted;
  int anchor = 0, column = 0, speedup = 0;
  for (const auto& e : models) {
    const auto& m = *e.model;
    const auto& f = m.fit;
    const int anchors = static_cast<int>(f.anchors.size());
    const int cols = static_cast<int>(f.candidates.size());
    list += fmt::format(
        "    // {} tuned shape{} of {}, {} candidate{} <- {}\n    {{{{{}, {}, detail::entry_source::{}, {}, {}, {}, "
        "{}, {}, "
        "{{{}, {:.17g}, {:.17g}, {:.17g}}}, {}, {}, {:.17g}}}, {}}},\n",
        anchors, anchors == 1 ? "" : "s", m.group, cols, cols == 1 ? "" : "s", m.file->path, e.arch,
        cxx_string_literal(m.file->gpu), m.tuned ? "tuned" : "nearest_arch", anchor, anchors, column, cols, speedup,
        f.params.neighbours, f.params.radius, f.params.log_margin, f.params.reach, f.group_default, f.floor_features,
        f.default_floor, e.group_fields);
    for (int a = 0; a < anchors; ++a) {
      features += fmt::format("    // {}\n   ", f.anchors[static_cast<std::size_t>(a)].problem);
      for (int i = 0; i < feature_count; ++i)
        features += fmt::format(" {:.17g},", f.features[static_cast<std::size_t>(a) * feature_count + i]);
      features += "\n";
      speedups += "   ";
      for (int c = 0; c < cols; ++c) {
        const float s = f.log_speedup[static_cast<std::size_t>(a) * cols + c];
        speedups += std::isnan(s) ? " detail::unmeasured," : " " + float_literal(s) + ",";
      }
      speedups += "\n";
    }
    for (int c = 0; c < cols; ++c) {
      columns += fmt::format("    {},  // {}\n", e.columns[static_cast<std::size_t>(c)],
                             f.candidates[static_cast<std::size_t>(c)]);
      trusted += fmt::format(" {},", static_cast<int>(f.trusted[static_cast<std::size_t>(c)]));
    }
    anchor += anchors;
    column += cols;
    speedup += anchors * cols;
  }
  const auto array = [&](const std::string& type, const std::string& name, const std::string& body,
                         const std::string& empty) {
    return fmt::format("inline constexpr {} {}_{}[] = {{\n{}}};\n", type, op, name,
                       body.empty() ? "    " + empty + "\n" : body);
  };
  std::string out;
  out += fmt::format("inline constexpr int {}_model_count = {};\n", op, models.size());
  out += array("detail::" + model_type, "models", list, "{}");
  out += array("double", "model_features", features, "0");
  out += array("float", "model_speedups", speedups, "0");
  out += array("int", "model_columns", columns, "-1");
  out += array("unsigned char", "model_trusted", trusted.empty() ? "" : "   " + trusted + "\n", "0");
  return out;
}

}  // namespace cuop::emit
