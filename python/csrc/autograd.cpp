// The ops' autograd, in C++ at the Autograd key: forward calls the op below autograd (through the
// dispatcher, so that tracing sees it), backward runs torch's kernels. In C++ rather than with
// torch.library.register_autograd, whose Python kernel costs every call, with or without grad,
// more host time than the op's own launch.
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/_softmax_backward_data.h>
#include <ATen/ops/convolution_backward.h>
#include <ATen/ops/matmul.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "ops.hpp"

namespace cuop::torch_bridge {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

template <typename Signature>
c10::TypedOperatorHandle<Signature> op_handle(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

class softmax_function : public torch::autograd::Function<softmax_function> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, int64_t dim) {
    static const auto op = op_handle<at::Tensor(const at::Tensor&, int64_t)>("cuop::softmax");
    const at::AutoDispatchBelowADInplaceOrView below;
    at::Tensor y = op.call(x, dim);
    ctx->save_for_backward({y});
    ctx->saved_data["dim"] = c10::maybe_wrap_dim(dim, x.dim());
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor y = ctx->get_saved_variables()[0];
    const int64_t dim = ctx->saved_data["dim"].toInt();
    return {at::_softmax_backward_data(grads[0], y, dim, y.scalar_type()), at::Tensor()};
  }
};

class linear_function : public torch::autograd::Function<linear_function> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const std::optional<at::Tensor>& bias) {
    static const auto op =
        op_handle<at::Tensor(const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&)>("cuop::linear");
    const at::AutoDispatchBelowADInplaceOrView below;
    at::Tensor y = op.call(x, weight, bias);
    ctx->save_for_backward({x, weight});
    ctx->saved_data["bias"] = bias.has_value();
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &weight = saved[1], &grad = grads[0];
    const int64_t n = weight.size(0), k = weight.size(1);
    const at::Tensor rows = grad.reshape({-1, n});
    at::Tensor grad_x, grad_weight, grad_bias;
    if (ctx->needs_input_grad(0)) grad_x = at::matmul(grad, weight);
    if (ctx->needs_input_grad(1)) grad_weight = rows.t().mm(x.reshape({-1, k}));
    if (ctx->saved_data["bias"].toBool() && ctx->needs_input_grad(2)) grad_bias = rows.sum(0);
    return {grad_x, grad_weight, grad_bias};
  }
};

class conv2d_function : public torch::autograd::Function<conv2d_function> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const std::optional<at::Tensor>& bias, c10::IntArrayRef stride, c10::IntArrayRef padding,
                            c10::IntArrayRef dilation, int64_t groups) {
    static const auto op =
        op_handle<at::Tensor(const at::Tensor&, const at::Tensor&, const std::optional<at::Tensor>&, c10::IntArrayRef,
                             c10::IntArrayRef, c10::IntArrayRef, int64_t)>("cuop::conv2d");
    const at::AutoDispatchBelowADInplaceOrView below;
    at::Tensor y = op.call(x, weight, bias, stride, padding, dilation, groups);
    ctx->save_for_backward({x, weight});
    ctx->saved_data["bias"] = bias.has_value();
    ctx->saved_data["stride"] = two(stride);
    ctx->saved_data["padding"] = two(padding);
    ctx->saved_data["dilation"] = two(dilation);
    ctx->saved_data["groups"] = groups;
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &weight = saved[1];
    const bool bias = ctx->saved_data["bias"].toBool();
    const std::vector<int64_t> bias_sizes{weight.size(0)};
    const auto [grad_x, grad_weight, grad_bias] = at::convolution_backward(
        grads[0], x, weight, bias ? at::OptionalIntArrayRef(bias_sizes) : std::nullopt,
        ctx->saved_data["stride"].toIntVector(), ctx->saved_data["padding"].toIntVector(),
        ctx->saved_data["dilation"].toIntVector(), false, {0, 0}, ctx->saved_data["groups"].toInt(),
        {ctx->needs_input_grad(0), ctx->needs_input_grad(1), bias && ctx->needs_input_grad(2)});
    return {grad_x, grad_weight, grad_bias, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }

 private:
  static std::vector<int64_t> two(c10::IntArrayRef v) { return v.size() == 1 ? std::vector{v[0], v[0]} : v.vec(); }
};

at::Tensor softmax_autograd(const at::Tensor& x, int64_t dim) { return softmax_function::apply(x, dim); }

at::Tensor linear_autograd(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias) {
  return linear_function::apply(x, weight, bias);
}

at::Tensor conv2d_autograd(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                           c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation,
                           int64_t groups) {
  return conv2d_function::apply(x, weight, bias, stride, padding, dilation, groups);
}

}  // namespace
}  // namespace cuop::torch_bridge

TORCH_LIBRARY_IMPL(cuop, Autograd, m) {
  using namespace cuop::torch_bridge;
  m.impl("softmax", &softmax_autograd);
  m.impl("linear", &linear_autograd);
  m.impl("conv2d", &conv2d_autograd);
  // The normalizations are forward only: a backward through them is an error, not a silent zero.
  for (const char* op : {"layer_norm", "rms_norm", "add_rms_norm", "group_norm"})
    m.impl(op, torch::autograd::autogradNotImplementedFallback());
}
