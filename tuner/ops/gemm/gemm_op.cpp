#include "tuner/ops/gemm/gemm_op.hpp"

#include <fmt/format.h>

#include <limits>

#include "cuop/detail/shape_features.hpp"
#include "tuner/core/error.hpp"
#include "tuner/ops/dims.hpp"
#include "tuner/ops/entry_source.hpp"
#include "tuner/ops/gemm/emit.hpp"
#include "tuner/ops/gemm/library.hpp"
#include "tuner/ops/gemm/trial.hpp"
#include "tuner/ops/params.hpp"

namespace cuop::ops {

namespace kg = kernels::gemm;

std::vector<std::string> cublaslt_param_names() { return {"top", "space", "workspace_mb"}; }

kg::gemm_config gemm_config_of(const space::point& p, const std::string& dtype_name) {
  kg::gemm_config c;
  if (!kg::parse_family(p.family, c.fam)) throw error(fmt::format("unknown gemm family \"{}\"", p.family));
  const auto t = parse_dtype(dtype_name);
  if (!t || *t == dtype::f32) throw error(fmt::format("gemm takes f16 or bf16, not \"{}\"", dtype_name));
  c.in = *t;
  c.out = *t;
  c.b = kg::b_layout::col;
  set_point_params(c, p, [](auto& cfg, const std::string& name, long long v) { return kg::set_param(cfg, name, v); });
  return c;
}

std::string gemm_entry_definition(const kg::gemm_config& c) {
  if (c.fam == kg::family::wgmma)
    // Its tensor maps after gemm_args, as a __grid_constant__ parameter; one block an SM.
    return fmt::format(
        "extern \"C\" __global__ void __launch_bounds__({0}, 1) {1}(cuop::kernels::gemm::gemm_args a,\n"
        "    const __grid_constant__ cuop::kernels::gemm::gemm_tma in) {{\n"
        "  extern __shared__ __align__(1024) unsigned char smem_wgmma[];\n"
        "  {2}::run(a, in, smem_wgmma);\n"
        "}}\n",
        kg::threads_per_block(c), kg::instance_name(c), kg::template_name(c));
  return entry_definition(
      {kg::threads_per_block(c), kg::instance_name(c), "cuop::kernels::gemm::gemm_args", kg::template_name(c)});
}

std::vector<std::string> gemm_entry_includes(const kg::gemm_config& c) { return {std::string(kg::header_of(c.fam))}; }

std::string gemm_entry_source(const kg::gemm_config& c) {
  return entry_source(gemm_entry_includes(c), gemm_entry_definition(c));
}

namespace {

std::string instance_of(const catalog::stored_config& stored, std::string& why) {
  if (stored.type == dtype::f32) {
    why = "gemm takes f16 or bf16, not \"f32\"";
    return {};
  }
  if (stored.family == cublaslt_family) return cublaslt_instance_of(stored.type, stored.params, why);
  kg::gemm_config c;
  if (!kg::parse_family(stored.family, c.fam)) {
    why = fmt::format("unknown gemm family \"{}\"", stored.family);
    return {};
  }
  c.in = c.out = stored.type;
  c.b = kg::b_layout::col;
  why = set_stored_params(c, stored.family, kg::param_names(c.fam), stored.params,
                          [](auto& cfg, const std::string& name, long long v) { return kg::set_param(cfg, name, v); });
  if (!why.empty()) return {};
  if (stored.ran && !(why = kg::check_config(c)).empty()) return {};
  return kg::instance_name(c);
}

int int_dim(const catalog::dim_values& dims, const char* name) { return static_cast<int>(dim_at(dims, name)); }

double bytes_of(const std::string& dtype, const catalog::dim_values& dims) {
  const auto t = parse_dtype(dtype).value_or(dtype::bf16);
  return kg::gemm_bytes(t, t, int_dim(dims, "m"), int_dim(dims, "n"), int_dim(dims, "k"));
}

double flops_of(const std::string&, const catalog::dim_values& dims) {
  return kg::gemm_flops(int_dim(dims, "m"), int_dim(dims, "n"), int_dim(dims, "k"));
}

bool compute_bound(const catalog::dim_values&) { return true; }

std::vector<double> features_of(const catalog::dim_values& dims) {
  std::vector<double> f(detail::gemm_feature_count);
  // A swept problem's operands are packed (lda = ldb = k) and D is of the 16-bit input type
  // (ldd = n).
  const long long n = dim_at(dims, "n"), k = dim_at(dims, "k");
  const int bytes = static_cast<int>(size_of(dtype::bf16));
  detail::gemm_features(dim_at(dims, "m"), n, k, detail::rows_misaligned(k, bytes), detail::rows_misaligned(n, bytes),
                        f.data());
  return f;
}

// Misaligned shapes form models of their own: a group default may then hold for them alone.
std::string group_of(const std::string& dtype, const catalog::dim_values& dims) {
  const int bytes = static_cast<int>(size_of(dtype::bf16));
  const bool misaligned =
      detail::rows_misaligned(dim_at(dims, "k"), bytes) || detail::rows_misaligned(dim_at(dims, "n"), bytes);
  return misaligned ? dtype + std::string(gemm_misaligned_group_suffix) : dtype;
}

std::string baseline_of(const std::string& dtype, const catalog::dim_values&, int) {
  return library_instance(dtype_of(dtype), "heuristic");
}

catalog::op_desc describe() {
  catalog::op_desc op{.name = "gemm",
                      .problem_dims = {"m", "n", "k"},
                      .instance_of = instance_of,
                      .features_of = features_of,
                      .group_of = group_of,
                      .baseline_of = baseline_of,
                      .bytes_of = bytes_of,
                      .flops_of = flops_of,
                      .compute_bound = compute_bound,
                      // m, n, k: the floor is on the arithmetic intensity
                      .default_floor_features = 3};
  for (const auto& d : op.problem_dims)  // gemm_problem holds ints
    op.dims.push_back({d, 1, {}, {}, std::numeric_limits<int>::max()});
  for (kg::family f : kg::all_families()) {
    catalog::family_desc d{std::string(kg::name_of(f)), {}, "kernel"};
    d.headers = {std::string(kg::header_of(f))};
    for (std::string_view p : kg::param_names(f)) d.params.emplace_back(p);
    for (std::string_view p : kg::optional_param_names(f)) d.optional_params.emplace_back(p);
    op.families.push_back(std::move(d));
  }
  catalog::family_desc lt{std::string(cublaslt_family), cublaslt_param_names(), "library"};
  lt.optional_params = {"pack"};  // library.cpp: the configurations on packed operands
  op.families.push_back(std::move(lt));
  return op;
}

kernel_candidate kernel_of(const space::point& point, const spec::problem& p) {
  // A malformed configuration is not an error here: it may be a point the constraints reject
  // anyway, and an accepted one is refused (stored as rejected with the reason).
  const auto c = gemm_config_of(point, p.dtype);
  kg::launch_plan plan;
  kg::device_limits any;  // no device: only the configuration's own needs
  any.max_smem_per_block = 0;
  // The smallest problem each family plans (wgmma's tensor maps want K a multiple of 8).
  const int k = c.fam == kg::family::wgmma ? 8 : 1;
  const std::string why = kg::plan_launch(c, 1, 1, k, any, plan);
  return {kg::instance_name(c),
          gemm_entry_source(c),
          std::string(name_of(c.in)),
          kg::threads_per_block(c),
          why.empty() ? static_cast<long long>(plan.smem_bytes) : 0,
          kg::check_config(c),
          c.fam == kg::family::wgmma ? "sm_90a" : ""};
}

}  // namespace

const op& gemm_op() {
  static const op instance({describe(), kernel_of, make_runner<gemm_trial_runner>, "gemm", emit_gemm});
  return instance;
}

}  // namespace cuop::ops
