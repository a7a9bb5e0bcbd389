#include "tuner/ops/gemm/emit.hpp"

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
#include "tuner/ops/gemm/gemm_op.hpp"

namespace cuop::ops {

namespace kg = kernels::gemm;

namespace {

struct entry : emit::table_entry {
  dtype in = dtype::bf16, out = dtype::bf16;
  kg::b_layout b = kg::b_layout::col;
  long long m = 0, n = 0, k = 0;  // the shape its timing is from (0 for defaults)
  std::string kind;               // kernel, cublaslt, cublaslt_heuristic
  kg::gemm_config config;
  std::string lt_id;
  std::string instance;
};

bool is_library(const results::result_trial& t) { return t.family == ops::cublaslt_family; }

// "gemm_bf16_cublaslt_<id>" -> "<id>" ("heuristic", or "heuristic_pk1" on packed operands).
// Results files are validated: a library instance has this prefix.
std::string library_id(const results::result_trial& t) {
  return t.instance.substr(fmt::format("gemm_{}_cublaslt_", t.dtype).size());
}

bool is_baseline(const results::result_trial& t) { return is_library(t) && library_id(t) == "heuristic"; }

kg::gemm_config config_of(const results::result_trial& t) {
  const dtype type = *parse_dtype(t.dtype);
  return emit::with_trial_params(kg::gemm_config{.in = type, .out = type, .b = kg::b_layout::col}, t);
}

std::string cxx_config(const kg::gemm_config& c) {
  return fmt::format(
      "{{kernels::gemm::family::{}, dtype::{}, dtype::{}, kernels::gemm::b_layout::{}, {}, {}, {}, "
      "{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}}",
      kg::name_of(c.fam), name_of(c.in), name_of(c.out), kg::name_of(c.b), c.block_m, c.block_n, c.block_k, c.warp_m,
      c.warp_n, c.stages, c.group_m, c.threads, c.m_tile, c.k_chunk, c.split_k, c.pack, c.consumers, c.cluster);
}

std::string heuristic_instance(dtype in, dtype out, kg::b_layout b) {
  return fmt::format("gemm_{}_{}_{}_cublaslt_heuristic", name_of(in), name_of(out), kg::name_of(b));
}

emit::model_traits traits_for(const std::string& target, bool tuned) {
  emit::model_traits t;
  t.is_baseline = is_baseline;
  // Our kernels where they compiled and fit; a cuBLASLt configuration on the architecture it was
  // measured on (its identifier is the installed library's on that GPU), the heuristic's choice
  // on packed operands anywhere.
  t.ships = [target, tuned](const results::result_file& f, const results::result_trial& r) {
    if (!is_library(r)) return emit::legal_on(f, r.instance, target);
    return tuned || library_id(r).rfind("heuristic", 0) == 0;
  };
  return t;
}

entry entry_of(const emit::built_model& m, const results::result_trial& t, int cc) {
  entry e;
  emit::set_measured(e, m, t, cc);
  e.in = e.out = *parse_dtype(t.dtype);
  e.m = t.dims.at("m");
  e.n = t.dims.at("n");
  e.k = t.dims.at("k");
  if (!is_library(t)) {
    e.kind = "kernel";
    e.config = config_of(t);
    e.instance = kg::instance_name(e.config);
  } else {
    e.kind = "cublaslt";
    e.lt_id = library_id(t);
    e.instance = t.instance;
  }
  return e;
}

// The baseline: cuBLASLt's heuristic for every type and layout the API accepts.
std::vector<entry> defaults(int cc) {
  std::vector<entry> out;
  for (const dtype in : {dtype::f16, dtype::bf16})
    for (const dtype o : {in, dtype::f32})
      for (const kg::b_layout b : {kg::b_layout::col, kg::b_layout::row}) {
        entry e = emit::default_entry<entry>(cc);
        e.in = in;
        e.out = o;
        e.b = b;
        e.kind = "cublaslt_heuristic";
        e.instance = heuristic_instance(in, o, b);
        out.push_back(std::move(e));
      }
  return out;
}

}  // namespace

emit::emitted emit_gemm(const std::vector<results::result_file>& results, const std::vector<std::string>& targets) {
  emit::dispatch_parts<entry, kg::gemm_config> op;
  op.desc = &gemm_op().desc();
  op.stem = "gemm";
  op.feature_count = detail::gemm_feature_count;
  op.preamble =
      "//\n// Dispatch (docs/dispatch.md): the model of the running GPU's architecture and the call's\n"
      "// types and layout (one measured on the running GPU first) chooses among its candidates by the\n"
      "// tuned shapes nearest the call's (cuop/detail/nearest_choice.hpp); without a confident choice,\n"
      "// and for types or layouts never tuned, cuBLASLt's heuristic runs. A cuBLASLt configuration the\n"
      "// installed library rejects is not chosen (at a tuned shape: the heuristic, said once).\n"
      "#pragma once\n\n#include \"cuop/detail/gemm_table.hpp\"\n";
  op.traits = [](const std::string& target, int, bool tuned) { return traits_for(target, tuned); };
  op.group_fields = [](const emit::built_model& m) {
    const bool misaligned = m.group.ends_with(ops::gemm_misaligned_group_suffix);
    const std::string type =
        misaligned ? m.group.substr(0, m.group.size() - ops::gemm_misaligned_group_suffix.size()) : m.group;
    return fmt::format("dtype::{0}, dtype::{0}, kernels::gemm::b_layout::{1}, {2}", name_of(*parse_dtype(type)),
                       kg::name_of(kg::b_layout::col), misaligned);
  };
  op.entry_of = entry_of;
  op.defaults = defaults;
  op.defaults_noun = "cuBLASLt heuristic defaults";
  op.kernel_of = emit::kernel_kind_is_kernel<entry, kg::gemm_config>;
  op.unit_kernel_of = [](const std::string& name, const kg::gemm_config& c) {
    return emit::unit_kernel{name, ops::gemm_entry_includes(c), ops::gemm_entry_definition(c)};
  };
  op.row = [](const entry& e, int kernel_index) {
    return fmt::format(
        "    // {}\n    {{{}, {}, dtype::{}, dtype::{}, kernels::gemm::b_layout::{}, {}, {}, {}, "
        "detail::gemm_kind::{},\n     {},\n     {}, {}, detail::entry_source::{}, {:.4g}, {}}},\n",
        emit::row_comment(e, "default", fmt::format("{}x{}x{}", e.m, e.n, e.k)), e.arch,
        emit::cxx_string_literal(e.gpu), name_of(e.in), name_of(e.out), kg::name_of(e.b), e.m, e.n, e.k, e.kind,
        e.kind == "kernel" ? cxx_config(e.config) : "{}", emit::cxx_string_literal(e.lt_id), kernel_index, e.source,
        e.median_us, emit::cxx_string_literal(e.instance));
  };
  return emit::emit_dispatch(op, results, targets);
}

}  // namespace cuop::ops
