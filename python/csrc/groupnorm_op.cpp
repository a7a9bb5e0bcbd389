#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>

#include "cuop/groupnorm.hpp"
#include "ops.hpp"
#include "torch_bridge.hpp"

namespace cuop::torch_bridge {
namespace {

namespace kg = kernels::groupnorm;

// x (N, C, *spatial) as cuop's problem: channels_last 4-d input (and not also plain contiguous)
// runs NHWC, anything else NCHW on a contiguous tensor (x itself, or a copy).
struct groupnorm_call {
  at::Tensor x;
  at::MemoryFormat format = at::MemoryFormat::Contiguous;
  groupnorm_problem problem;
};

groupnorm_call prepare(const at::Tensor& x, int64_t num_groups, bool silu, std::string_view op) {
  check_cuda(x, op, "x");
  groupnorm_call call;
  TORCH_CHECK(x.dim() >= 2, op, ": x must have at least 2 dimensions (N, C, *), got ", x.sizes());
  TORCH_CHECK(num_groups >= 1 && x.size(1) % num_groups == 0, op, ": ", x.size(1),
              " channels do not divide into num_groups ", num_groups);
  const bool nhwc = x.dim() == 4 && x.is_contiguous(at::MemoryFormat::ChannelsLast) && !x.is_contiguous();
  call.format = nhwc ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  call.x = x.contiguous(call.format);
  auto& p = call.problem;
  p.type = dtype_of(x, op, "x");
  p.n = x.size(0);
  p.c = x.size(1);
  p.h = 1;
  p.w = x.numel() / std::max<int64_t>(1, p.n * p.c);
  if (x.dim() == 4) {
    p.h = x.size(2);
    p.w = x.size(3);
  }
  p.groups = num_groups;
  p.layout = nhwc ? kg::layout::nhwc : kg::layout::nchw;
  p.silu = silu;
  return call;
}

at::Tensor parameter(const std::optional<at::Tensor>& p, const at::Tensor& x, std::string_view op,
                     std::string_view name) {
  if (!p.has_value()) return {};
  check_same(x, *p, op, name);
  TORCH_CHECK(p->dim() == 1 && p->size(0) == x.size(1), op, ": ", name, " of shape ", p->sizes(), " is not (",
              x.size(1), ",)");
  return p->contiguous();
}

const void* data_or_null(const at::Tensor& t) { return t.defined() ? t.const_data_ptr() : nullptr; }

}  // namespace

at::Tensor group_norm(const at::Tensor& x, int64_t num_groups, const std::optional<at::Tensor>& weight,
                      const std::optional<at::Tensor>& bias, double eps, bool silu) {
  constexpr std::string_view op = "cuop.group_norm";
  groupnorm_call call = prepare(x, num_groups, silu, op);
  const at::Tensor w = parameter(weight, x, op, "weight");
  const at::Tensor b = parameter(bias, x, op, "bias");
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(call.format));
  if (y.numel() == 0) return y;
  call.problem.eps = static_cast<float>(eps);
  const c10::cuda::CUDAGuard guard(x.device());
  check_status(cuop::groupnorm(call.problem, call.x.const_data_ptr(), data_or_null(w), data_or_null(b),
                               y.mutable_data_ptr(), nullptr, nullptr, current_stream(x)),
               op, "this group_norm");
  return y;
}

std::string group_norm_which(const at::Tensor& x, int64_t num_groups, bool silu) {
  constexpr std::string_view op = "cuop.group_norm_which";
  const groupnorm_call call = prepare(x, num_groups, silu, op);
  if (x.numel() == 0) return "none [empty tensor]";
  const c10::cuda::CUDAGuard guard(x.device());
  norm_choice choice;
  check_status(cuop::groupnorm_which(call.problem, choice), op, "this group_norm");
  return describe_choice(choice.instance, nullptr, choice.source, choice.table_arch, choice.exact_shape);
}

}  // namespace cuop::torch_bridge
