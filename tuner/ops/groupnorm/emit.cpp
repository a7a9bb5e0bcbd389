#include "tuner/ops/groupnorm/emit.hpp"

#include <fmt/format.h>

#include "cuop/detail/shape_features.hpp"
#include "tuner/emit/dispatch_emit.hpp"
#include "tuner/emit/model_build.hpp"
#include "tuner/emit/table_entry.hpp"
#include "tuner/ops/groupnorm/describe.hpp"
#include "tuner/ops/groupnorm/source.hpp"

namespace cuop::ops {

namespace kg = kernels::groupnorm;

namespace {

struct entry : emit::table_entry {
  kg::groupnorm_shape shape{0, 0, 0, 0};  // the shape its timing is from (zeros for defaults)
  kg::groupnorm_config config;
};

catalog::dim_values dims_of(const results::result_trial& t) { return {t.dims.begin(), t.dims.end()}; }

kg::groupnorm_config config_of(const results::result_trial& t) {
  return emit::with_trial_params(
      kg::groupnorm_config{
          .type = *parse_dtype(t.dtype), .lay = groupnorm_layout_of(dims_of(t)), .silu = groupnorm_silu_of(dims_of(t))},
      t);
}

std::string cxx_config(const kg::groupnorm_config& c) {
  return fmt::format(
      "{{kernels::groupnorm::family::{}, dtype::{}, kernels::groupnorm::layout::{}, {}, {}, {}, {}, {}}}",
      kg::name_of(c.fam), name_of(c.type), kg::name_of(c.lay), c.silu, c.vec, c.block_threads, c.cluster, c.span);
}

emit::model_traits traits_for(const std::string& target, int cc) {
  emit::model_traits t;
  // The rule's configuration on the table's architecture: where it was not measured, the table
  // has no anchor there.
  t.is_baseline = [cc](const results::result_trial& r) {
    const auto dims = dims_of(r);
    return r.instance == kg::instance_name(kg::default_config(*parse_dtype(r.dtype), groupnorm_layout_of(dims),
                                                              groupnorm_silu_of(dims), groupnorm_shape_of(dims), cc));
  };
  // Compiled and fit there, and the configuration runs there (cluster kernels compile to a trap
  // below sm_90).
  t.ships = [target, cc](const results::result_file& f, const results::result_trial& r) {
    return emit::legal_on(f, r.instance, target) && kg::min_sm(config_of(r)) <= cc;
  };
  return t;
}

std::vector<entry> defaults(int cc) {
  std::vector<entry> out;
  for (const dtype d : {dtype::f32, dtype::f16, dtype::bf16})
    for (const kg::layout l : {kg::layout::nhwc, kg::layout::nchw})
      for (const bool silu : {false, true})
        for (const auto& c : kg::default_configs(d, l, silu, cc)) {
          out.push_back(emit::default_entry<entry>(cc));
          out.back().config = c;
        }
  return out;
}

// "bf16_nhwc_silu" -> "dtype::bf16, kernels::groupnorm::layout::nhwc, true"
std::string group_fields(const emit::built_model& m) {
  const auto first = m.group.find('_');
  const auto second = m.group.find('_', first + 1);
  const std::string layout =
      m.group.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  return fmt::format("dtype::{}, kernels::groupnorm::layout::{}, {}", m.group.substr(0, first), layout,
                     m.group.ends_with("_silu"));
}

}  // namespace

emit::emitted emit_groupnorm(const op& self, const std::vector<results::result_file>& results,
                             const std::vector<std::string>& targets) {
  emit::dispatch_parts<entry, kg::groupnorm_config> op;
  op.desc = &self.desc();
  op.stem = "groupnorm";
  op.feature_count = detail::groupnorm_feature_count;
  op.preamble =
      "//\n// Dispatch (docs/norm.md, \"GroupNorm\"): the model of the running GPU's architecture, the\n"
      "// call's dtype, layout and SiLU chooses among its candidates by the tuned shapes nearest the\n"
      "// call's (cuop/detail/nearest_choice.hpp); without a confident choice, the default rule's\n"
      "// configuration (kernels::groupnorm::default_config) runs.\n"
      "#pragma once\n\n#include \"cuop/detail/dispatch_model.hpp\"\n#include \"cuop/detail/groupnorm_table.hpp\"\n";
  op.traits = [](const std::string& target, int cc, bool) { return traits_for(target, cc); };
  op.group_fields = group_fields;
  op.entry_of = [](const emit::built_model& m, const results::result_trial& t, int cc) {
    entry e;
    emit::set_measured(e, m, t, cc);
    e.config = config_of(t);
    e.shape = groupnorm_shape_of(dims_of(t));
    return e;
  };
  op.defaults = defaults;
  op.defaults_noun = "default-rule configurations";
  op.kernel_of = emit::config_is_kernel<entry, kg::groupnorm_config>;
  op.runs_on = [](const kg::groupnorm_config& c, int cc) { return kg::min_sm(c) <= cc; };
  op.unit_kernel_of = [](const std::string& name, const kg::groupnorm_config& c) {
    return emit::unit_kernel{name, groupnorm_entry_includes(c), groupnorm_entry_definition(c)};
  };
  op.row = [](const entry& e, int kernel_index) {
    const auto& s = e.shape;
    return fmt::format(
        "    // {}\n    {{{}, {}, dtype::{}, kernels::groupnorm::layout::{}, {}, {}, {}, {}, {},\n     {}, {}, "
        "detail::entry_source::{}, {:.4g}, {}}},\n",
        emit::row_comment(e, "default rule", fmt::format("{}x{}x{} g{}", s.n, s.c, s.hw, s.groups)), e.arch,
        emit::cxx_string_literal(e.gpu), name_of(e.config.type), kg::name_of(e.config.lay), e.config.silu, s.n, s.c,
        s.hw, s.groups, cxx_config(e.config), kernel_index, e.source, e.median_us,
        emit::cxx_string_literal(kg::instance_name(e.config)));
  };
  return emit::emit_dispatch(op, results, targets);
}

}  // namespace cuop::ops
