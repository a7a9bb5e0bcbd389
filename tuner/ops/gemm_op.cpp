#include "tuner/ops/gemm_op.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/ops/gemm_library.hpp"

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
  for (const auto& [name, value] : p.params)
    if (!kg::set_param(c, name, value))
      throw error(fmt::format("unknown parameter \"{}\" of family \"{}\"", name, p.family));
  return c;
}

std::string gemm_instance_of(const stored_config& stored, std::string& why) {
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
  for (const auto name : kg::param_names(c.fam))
    if (!stored.params.contains(std::string(name))) {
      why = fmt::format("missing parameter \"{}\" of family \"{}\"", name, stored.family);
      return {};
    }
  for (const auto& [name, value] : stored.params)
    if (!kg::set_param(c, name, value)) {
      why = fmt::format("parameter \"{}\" = {} is not one of family \"{}\"", name, value, stored.family);
      return {};
    }
  if (stored.ran && !(why = kg::check_config(c)).empty()) return {};
  return kg::instance_name(c);
}

std::string gemm_entry_definition(const kg::gemm_config& c) {
  return fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}) {}(cuop::kernels::gemm::gemm_args a) {{\n"
      "  {}::run(a);\n"
      "}}\n",
      kg::threads_per_block(c), kg::instance_name(c), kg::template_name(c));
}

std::vector<std::string> gemm_entry_includes(const kg::gemm_config& c) { return {std::string(kg::header_of(c.fam))}; }

std::string gemm_entry_source(const kg::gemm_config& c) {
  std::string out;
  for (const auto& inc : gemm_entry_includes(c)) out += fmt::format("#include <{}>\n", inc);
  out += gemm_entry_definition(c);
  return out;
}

namespace {

class gemm_ops final : public op_adapter {
 public:
  double bytes(const spec::problem& p) const override {
    const auto t = parse_dtype(p.dtype).value_or(dtype::bf16);
    return kg::gemm_bytes(t, t, dim(p, "m"), dim(p, "n"), dim(p, "k"));
  }
  double flops(const spec::problem& p) const override { return kg::gemm_flops(dim(p, "m"), dim(p, "n"), dim(p, "k")); }
  bool is_library(std::string_view family) const override { return family == cublaslt_family; }
  kernel_candidate kernel(const space::point& point, const spec::problem& p) const override {
    // A malformed configuration is not an error here: it may be a point the constraints reject
    // anyway, and an accepted one fails to compile (stored as compile_error with the reason).
    const auto c = gemm_config_of(point, p.dtype);
    kg::launch_plan plan;
    kg::device_limits any;  // no device: only the configuration's own needs
    any.max_smem_per_block = 0;
    const std::string why = kg::plan_launch(c, 1, 1, 1, any, plan);
    return {kg::instance_name(c), gemm_entry_source(c), std::string(name_of(c.in)), kg::threads_per_block(c),
            why.empty() ? static_cast<long long>(plan.smem_bytes) : 0};
  }

 private:
  static int dim(const spec::problem& p, const char* name) { return static_cast<int>(p.dims.at(name)); }
};

}  // namespace

const op_adapter& gemm_adapter() {
  static const gemm_ops ops;
  return ops;
}

}  // namespace cuop::ops
