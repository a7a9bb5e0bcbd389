#include "tuner/ops/norm/emit.hpp"

#include <fmt/format.h>

#include "cuop/detail/shape_features.hpp"
#include "tuner/emit/dispatch_emit.hpp"
#include "tuner/emit/model_build.hpp"
#include "tuner/emit/table_entry.hpp"
#include "tuner/ops/norm/describe.hpp"
#include "tuner/ops/norm/source.hpp"

namespace cuop::ops {

namespace kn = kernels::norm;

namespace {

struct entry : emit::table_entry {
  long long rows = 0, cols = 0;  // the shape its timing is from (0 for defaults)
  bool residual = false;
  kn::norm_config config;
};

kn::norm_config config_of(kn::norm_kind kind, const results::result_trial& t) {
  return emit::with_trial_params(kn::norm_config{.kind = kind, .type = *parse_dtype(t.dtype)}, t);
}

std::string cxx_config(const kn::norm_config& c) {
  return fmt::format("{{kernels::norm::norm_kind::{}, kernels::norm::family::{}, dtype::{}, {}, {}, {}, {}, {}}}",
                     kn::name_of(c.kind), kn::name_of(c.fam), name_of(c.type), c.vec, c.threads_per_row,
                     c.rows_per_block, c.block_threads, c.chunks);
}

emit::model_traits traits_for(kn::norm_kind kind, const std::string& target) {
  emit::model_traits t;
  t.is_baseline = [kind](const results::result_trial& r) {
    return r.instance == kn::instance_name(kn::default_config(kind, *parse_dtype(r.dtype), r.dims.at("rows"),
                                                              r.dims.at("cols"), fuses_residual(r.dims)));
  };
  t.ships = [target](const results::result_file& f, const results::result_trial& r) {
    return emit::legal_on(f, r.instance, target);
  };
  return t;
}

std::vector<entry> defaults(kn::norm_kind kind, int cc) {
  std::vector<entry> out;
  for (const dtype d : {dtype::f32, dtype::f16, dtype::bf16})
    for (const auto& c : kn::default_configs(kind, d)) {
      out.push_back(emit::default_entry<entry>(cc));
      out.back().config = c;
    }
  return out;
}

}  // namespace

emit::emitted emit_norm(const op& self, kn::norm_kind kind, const std::vector<results::result_file>& results,
                        const std::vector<std::string>& targets) {
  const std::string stem(kn::name_of(kind));
  emit::dispatch_parts<entry, kn::norm_config> op;
  op.desc = &self.desc();
  op.stem = stem;
  op.feature_count = detail::norm_feature_count;
  op.preamble = fmt::format(
      "//\n// Dispatch (docs/norm.md): the model of the running GPU's architecture, the call's dtype\n"
      "// and whether it fuses the residual add chooses among its candidates by the tuned shapes\n"
      "// nearest the call's (cuop/detail/nearest_choice.hpp); without a confident choice, the\n"
      "// default rule's configuration (kernels::norm::default_config) runs.\n"
      "#pragma once\n\n#include \"cuop/detail/dispatch_model.hpp\"\n#include \"cuop/detail/norm_table.hpp\"\n");
  op.traits = [kind](const std::string& target, int, bool) { return traits_for(kind, target); };
  op.group_fields = [](const emit::built_model& m) {
    const bool residual = m.group.ends_with("_residual");
    return fmt::format("dtype::{}, {}", residual ? m.group.substr(0, m.group.size() - 9) : m.group, residual);
  };
  op.entry_of = [kind](const emit::built_model& m, const results::result_trial& t, int cc) {
    entry e;
    emit::set_measured(e, m, t, cc);
    e.config = config_of(kind, t);
    e.rows = t.dims.at("rows");
    e.cols = t.dims.at("cols");
    e.residual = t.dims.contains("residual") && t.dims.at("residual") != 0;
    return e;
  };
  op.defaults = [kind](int cc) { return defaults(kind, cc); };
  op.defaults_noun = "default-rule configurations";
  op.kernel_of = emit::config_is_kernel<entry, kn::norm_config>;
  op.unit_kernel_of = [](const std::string& name, const kn::norm_config& c) {
    return emit::unit_kernel{name, norm_entry_includes(c), norm_entry_definition(c)};
  };
  op.runs_on = [](const kn::norm_config& c, int cc) { return kn::min_sm(c.fam) <= cc; };
  op.row = [](const entry& e, int kernel_index) {
    return fmt::format(
        "    // {}\n    {{{}, {}, dtype::{}, {}, {}, {},\n     {}, {}, detail::entry_source::{}, {:.4g}, {}}},\n",
        emit::row_comment(e, "default rule", fmt::format("{}x{}", e.rows, e.cols)), e.arch,
        emit::cxx_string_literal(e.gpu), name_of(e.config.type), e.rows, e.cols, e.residual, cxx_config(e.config),
        kernel_index, e.source, e.median_us, emit::cxx_string_literal(kn::instance_name(e.config)));
  };
  return emit::emit_dispatch(op, results, targets);
}

}  // namespace cuop::ops
