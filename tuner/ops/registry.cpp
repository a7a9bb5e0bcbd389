#include "tuner/ops/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "cuop/kernels/conv/family.hpp"
#include "cuop/kernels/gemm/family.hpp"
#include "cuop/kernels/softmax/family.hpp"
#include "tuner/ops/conv_library.hpp"
#include "tuner/ops/conv_op.hpp"
#include "tuner/ops/gemm_op.hpp"
#include "tuner/ops/shape_traits.hpp"
#include "tuner/ops/softmax_op.hpp"

namespace cuop::ops {

namespace {

op_desc softmax_op() {
  namespace ks = kernels::softmax;
  op_desc op{"softmax", {"rows", "cols"}, {}};
  op.instance_of = softmax_instance_of;
  op.features_of = softmax_shape_features;
  op.group_of = softmax_shape_group;
  op.baseline_of = softmax_baseline;
  for (ks::family f : ks::all_families()) {
    family_desc d{std::string(ks::name_of(f)), {}, "kernel"};
    d.headers = {std::string(ks::header_of(f))};
    for (std::string_view p : ks::param_names(f)) d.params.emplace_back(p);
    for (std::string_view p : ks::optional_param_names(f)) d.optional_params.emplace_back(p);
    op.families.push_back(std::move(d));
  }
  op.families.push_back({"custom", {"block_threads"}, "kernel", true});  // tuner/ops/custom_softmax.hpp
  return op;
}

op_desc gemm_op() {
  namespace kg = kernels::gemm;
  op_desc op{"gemm", {"m", "n", "k"}, {}};
  op.instance_of = gemm_instance_of;
  op.features_of = gemm_shape_features;
  op.group_of = gemm_shape_group;
  op.baseline_of = gemm_baseline;
  for (const auto& d : op.problem_dims)  // gemm_problem holds ints
    op.dims.push_back({d, 1, {}, {}, std::numeric_limits<int>::max()});
  for (kg::family f : kg::all_families()) {
    family_desc d{std::string(kg::name_of(f)), {}, "kernel"};
    d.headers = {std::string(kg::header_of(f))};
    for (std::string_view p : kg::param_names(f)) d.params.emplace_back(p);
    for (std::string_view p : kg::optional_param_names(f)) d.optional_params.emplace_back(p);
    op.families.push_back(std::move(d));
  }
  family_desc lt{std::string(cublaslt_family), cublaslt_param_names(), "library"};
  lt.optional_params = {"pack"};  // tuner/ops/gemm_library.cpp: the configurations on packed operands
  op.families.push_back(std::move(lt));
  return op;
}

op_desc conv2d_op() {
  namespace kc = kernels::conv;
  op_desc op{"conv2d", {}, {}};
  op.dims = {
      {"n", 1, {}, {}},
      {"h", 1, {}, {}},
      {"w", 1, {}, {}},
      {"c", 1, {}, {}},
      {"k", 1, {}, {}},
      {"r", 1, {}, {}},
      {"s", 1, {}, {}},
      {"stride", 1, 1, {}},
      {"pad", 0, 0, {}},
      {"dilation", 1, 1, {}},
      {"groups", 1, 1, {}},
      {"tf32", 0, 0, {}},
      {"layout", 0, 0, {std::string(kc::name_of(kc::layout::nhwc)), std::string(kc::name_of(kc::layout::nchw))}}};
  for (auto& d : op.dims) {
    d.max = std::numeric_limits<int>::max();  // kernels::conv::conv_shape holds ints
    op.problem_dims.push_back(d.name);
  }
  op.key_of = conv_problem_key;
  op.instance_of = conv_instance_of;
  op.features_of = conv_shape_features;
  op.group_of = conv_shape_group;
  op.baseline_of = conv_baseline;
  family_desc d{std::string(conv_depthwise_family), {}, "kernel"};
  d.headers = {std::string(kc::depthwise_header())};
  for (std::string_view p : kc::depthwise_param_names()) d.params.emplace_back(p);
  for (std::string_view a : kc::depthwise_algo_names()) d.choices["algo"].emplace_back(a);
  op.families.push_back(std::move(d));
  op.families.push_back({std::string(cudnn_family), cudnn_param_names(), "library"});
  op.families.push_back({std::string(fft_family), fft_param_names(), "library"});
  return op;
}

const std::vector<op_desc>& table() {
  static const std::vector<op_desc> ops = {softmax_op(), gemm_op(), conv2d_op()};
  return ops;
}

}  // namespace

const family_desc* op_desc::find_family(std::string_view family) const noexcept {
  for (const auto& f : families)
    if (f.name == family) return &f;
  return nullptr;
}

dim_desc op_desc::dim(std::string_view name) const {
  for (const auto& d : dims)
    if (d.name == name) return d;
  return {std::string(name), 1, {}, {}};
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

std::string check_param_names(const family_desc& fam, const stored_values& params) {
  for (const auto& name : fam.params)
    if (!params.contains(name)) return fmt::format("missing parameter \"{}\" of family \"{}\"", name, fam.name);
  for (const auto& entry : params) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one
    const auto known = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (!known(fam.params) && !known(fam.optional_params))
      return fmt::format("unknown parameter \"{}\" of family \"{}\"", name, fam.name);
  }
  return {};
}

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (const auto& op : table()) out.push_back(op.name);
  return out;
}

}  // namespace cuop::ops
