#include "tuner/ops/softmax/emit.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "cuop/detail/shape_features.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/core/error.hpp"
#include "tuner/emit/dispatch_emit.hpp"
#include "tuner/emit/emit_common.hpp"
#include "tuner/emit/model_build.hpp"
#include "tuner/emit/table_entry.hpp"
#include "tuner/ops/softmax/custom.hpp"
#include "tuner/ops/softmax/softmax_op.hpp"
#include "tuner/ops/softmax/source.hpp"

namespace cuop::ops {

namespace ks = kernels::softmax;

namespace {

struct entry : emit::table_entry {
  long long rows = 0, cols = 0;  // the shape its timing is from (0 for defaults)
  ks::softmax_config config;
};

ks::softmax_config config_of(const results::result_trial& t) {
  return emit::with_trial_params(ks::softmax_config{.type = *parse_dtype(t.dtype)}, t);
}

std::string cxx_config(const ks::softmax_config& c) {
  return fmt::format("{{kernels::softmax::family::{}, dtype::{}, {}, {}, {}, {}, {}, {}, {}, {}}}", ks::name_of(c.fam),
                     name_of(c.type), c.vec, c.threads_per_row, c.rows_per_block, c.block_threads, c.chunks, c.cluster,
                     c.persistent, c.smem_chunks);
}

emit::model_traits traits_for(const std::string& target, int cc) {
  emit::model_traits t;
  t.is_baseline = [](const results::result_trial& r) {
    return r.instance ==
           ks::instance_name(ks::default_config(*parse_dtype(r.dtype), r.dims.at("rows"), r.dims.at("cols")));
  };
  // Compiled and fit there, and the family runs there (cluster_row compiles to a trap below
  // sm_90). A custom kernel (the sweep file's own source) is not part of the library.
  t.ships = [target, cc](const results::result_file& f, const results::result_trial& r) {
    return r.family != ops::custom_family && emit::legal_on(f, r.instance, target) &&
           ks::min_sm(config_of(r).fam) <= cc;
  };
  return t;
}

entry entry_of(const emit::built_model& m, const results::result_trial& t, int cc) {
  entry e;
  emit::set_measured(e, m, t, cc);
  e.config = config_of(t);
  e.rows = t.dims.at("rows");
  e.cols = t.dims.at("cols");
  return e;
}

// The default rule's configurations: the baseline, for every dtype.
std::vector<entry> defaults(int cc) {
  std::vector<entry> out;
  for (const dtype d : {dtype::f32, dtype::f16, dtype::bf16})
    for (const auto& c : ks::default_configs(d)) {
      out.push_back(emit::default_entry<entry>(cc));
      out.back().config = c;
    }
  return out;
}

}  // namespace

emit::emitted emit_softmax(const std::vector<results::result_file>& results, const std::vector<std::string>& targets) {
  emit::dispatch_parts<entry, ks::softmax_config> op;
  op.desc = &softmax_op().desc();
  op.stem = "softmax";
  op.feature_count = detail::softmax_feature_count;
  op.preamble =
      "//\n// Dispatch (docs/dispatch.md): the model of the running GPU's architecture and the call's\n"
      "// dtype (one measured on the running GPU first) chooses among its candidates by the tuned\n"
      "// shapes nearest the call's (cuop/detail/nearest_choice.hpp); without a confident choice,\n"
      "// the default rule's configuration (kernels::softmax::default_config) runs, or the first\n"
      "// default-rule configuration of the dtype that can.\n"
      "#pragma once\n\n#include \"cuop/detail/dispatch_model.hpp\"\n#include \"cuop/detail/softmax_table.hpp\"\n";
  op.traits = [](const std::string& target, int cc, bool) { return traits_for(target, cc); };
  op.group_fields = [](const emit::built_model& m) { return fmt::format("dtype::{}", m.group); };
  op.entry_of = entry_of;
  op.defaults = defaults;
  op.defaults_noun = "default-rule configurations";
  op.kernel_of = emit::config_is_kernel<entry, ks::softmax_config>;
  op.unit_kernel_of = [](const std::string& name, const ks::softmax_config& c) {
    return emit::unit_kernel{name, ops::softmax_entry_includes(c), ops::softmax_entry_definition(c)};
  };
  op.runs_on = [](const ks::softmax_config& c, int cc) { return ks::min_sm(c.fam) <= cc; };
  op.row = [](const entry& e, int kernel_index) {
    return fmt::format(
        "    // {}\n    {{{}, {}, dtype::{}, {}, {}, {},\n     {}, detail::entry_source::{}, {:.4g}, {}}},\n",
        emit::row_comment(e, "default rule", fmt::format("{}x{}", e.rows, e.cols)), e.arch,
        emit::cxx_string_literal(e.gpu), name_of(e.config.type), e.rows, e.cols, cxx_config(e.config), kernel_index,
        e.source, e.median_us, emit::cxx_string_literal(ks::instance_name(e.config)));
  };
  return emit::emit_dispatch(op, results, targets);
}

}  // namespace cuop::ops
