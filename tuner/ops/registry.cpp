#include "tuner/ops/registry.hpp"

#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/softmax/family.hpp"
#include "tuner/ops/gemm_op.hpp"

namespace cuop::ops {

namespace {

op_desc softmax_op() {
  namespace ks = kernels::softmax;
  op_desc op{"softmax", {"rows", "cols"}, {}};
  for (ks::family f : ks::all_families()) {
    family_desc d{std::string(ks::name_of(f)), {}, "kernel"};
    for (std::string_view p : ks::param_names(f)) d.params.emplace_back(p);
    op.families.push_back(std::move(d));
  }
  return op;
}

op_desc gemm_op() {
  namespace kg = kernels::gemm;
  op_desc op{"gemm", {"m", "n", "k"}, {}};
  for (kg::family f : kg::all_families()) {
    family_desc d{std::string(kg::name_of(f)), {}, "kernel"};
    for (std::string_view p : kg::param_names(f)) d.params.emplace_back(p);
    op.families.push_back(std::move(d));
  }
  op.families.push_back({std::string(cublaslt_family), cublaslt_param_names(), "library"});
  return op;
}

const std::vector<op_desc>& table() {
  static const std::vector<op_desc> ops = {softmax_op(), gemm_op()};
  return ops;
}

}  // namespace

const family_desc* op_desc::find_family(std::string_view family) const noexcept {
  for (const auto& f : families)
    if (f.name == family) return &f;
  return nullptr;
}

std::vector<std::string> op_desc::family_names() const {
  std::vector<std::string> out;
  for (const auto& f : families) out.push_back(f.name);
  return out;
}

const op_desc* find_op(std::string_view name) noexcept {
  for (const auto& op : table())
    if (op.name == name) return &op;
  return nullptr;
}

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (const auto& op : table()) out.push_back(op.name);
  return out;
}

}  // namespace cuop::ops
