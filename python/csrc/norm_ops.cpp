#include <ATen/ops/empty.h>
#include <c10/core/GradMode.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/util/irange.h>

#include <limits>

#include "cuop/norm.hpp"
#include "ops.hpp"
#include "torch_bridge.hpp"

namespace cuop::torch_bridge {
namespace {

// x (..., *normalized_shape) as rows x cols, cols the product of normalized_shape.
struct norm_call {
  at::Tensor rows;
  dtype type = dtype::f32;
  long long n_rows = 0, cols = 1, stride = 0;
};

norm_call prepare(const at::Tensor& x, c10::IntArrayRef normalized_shape, std::string_view op) {
  check_cuda(x, op, "x");
  norm_call call;
  call.type = dtype_of(x, op, "x");
  const auto n = static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(n >= 1, op, ": normalized_shape must name at least one dimension");
  TORCH_CHECK(x.dim() >= n && x.sizes().slice(static_cast<size_t>(x.dim() - n)).equals(normalized_shape), op,
              ": x of shape ", x.sizes(), " does not end with normalized_shape ", normalized_shape);
  for (const int64_t s : normalized_shape) call.cols *= s;
  if (x.numel() == 0) return call;
  call.rows = as_rows(x, call.cols);
  call.n_rows = call.rows.size(0);
  call.stride = call.n_rows > 1 ? call.rows.stride(0) : call.cols;
  return call;
}

// A parameter of normalized_shape's elements, dense (a copy when it is not).
at::Tensor parameter(const std::optional<at::Tensor>& p, const at::Tensor& x, c10::IntArrayRef normalized_shape,
                     std::string_view op, std::string_view name) {
  if (!p.has_value()) return {};
  check_same(x, *p, op, name);
  TORCH_CHECK(p->sizes().equals(normalized_shape), op, ": ", name, " of shape ", p->sizes(),
              " is not normalized_shape ", normalized_shape);
  return p->contiguous();
}

const void* data_or_null(const at::Tensor& t) { return t.defined() ? t.const_data_ptr() : nullptr; }

// torch.nn.functional.rms_norm's default: the dtype's machine epsilon.
float rms_eps(std::optional<double> eps, const at::Tensor& x) {
  if (eps.has_value()) return static_cast<float>(*eps);
  switch (x.scalar_type()) {
    case at::kHalf: return 0.0009765625f;
    case at::kBFloat16: return 0.0078125f;
    default: return std::numeric_limits<float>::epsilon();
  }
}

}  // namespace

at::Tensor layer_norm(const at::Tensor& x, c10::IntArrayRef normalized_shape, const std::optional<at::Tensor>& weight,
                      const std::optional<at::Tensor>& bias, double eps) {
  constexpr std::string_view op = "cuop.layer_norm";
  const norm_call call = prepare(x, normalized_shape, op);
  const at::Tensor w = parameter(weight, x, normalized_shape, op, "weight");
  const at::Tensor b = parameter(bias, x, normalized_shape, op, "bias");
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  if (y.numel() == 0) return y;
  const layernorm_problem p{call.type, call.n_rows, call.cols, call.stride, call.cols, static_cast<float>(eps)};
  const c10::cuda::CUDAGuard guard(x.device());
  check_status(cuop::layernorm(p, call.rows.const_data_ptr(), data_or_null(w), data_or_null(b), y.mutable_data_ptr(),
                               nullptr, nullptr, current_stream(x)),
               op, "this layer_norm");
  return y;
}

at::Tensor rms_norm(const at::Tensor& x, c10::IntArrayRef normalized_shape, const std::optional<at::Tensor>& weight,
                    std::optional<double> eps) {
  constexpr std::string_view op = "cuop.rms_norm";
  const norm_call call = prepare(x, normalized_shape, op);
  const at::Tensor w = parameter(weight, x, normalized_shape, op, "weight");
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  if (y.numel() == 0) return y;
  const rmsnorm_problem p{call.type, call.n_rows, call.cols, call.stride, call.cols, 0, rms_eps(eps, x)};
  const c10::cuda::CUDAGuard guard(x.device());
  check_status(
      cuop::rmsnorm(p, call.rows.const_data_ptr(), data_or_null(w), y.mutable_data_ptr(), nullptr, current_stream(x)),
      op, "this rms_norm");
  return y;
}

at::Tensor add_rms_norm(const at::Tensor& x, const at::Tensor& residual, c10::IntArrayRef normalized_shape,
                        const std::optional<at::Tensor>& weight, std::optional<double> eps) {
  constexpr std::string_view op = "cuop.add_rms_norm";
  const norm_call call = prepare(x, normalized_shape, op);
  check_same(x, residual, op, "residual");
  TORCH_CHECK(residual.sizes().equals(x.sizes()), op, ": residual of shape ", residual.sizes(), " is not x's ",
              x.sizes());
  // The residual is updated in place: its rows must be what the kernels write, without a copy.
  TORCH_CHECK(residual.numel() == 0 || residual.is_contiguous(), op, ": residual must be contiguous");
  // Forward only: an in-place update that autograd would have to see is refused, not left unseen.
  TORCH_CHECK(!(c10::GradMode::is_enabled() && residual.requires_grad()), op,
              ": residual requires grad; the op has no backward (call it under torch.no_grad())");
  const at::Tensor w = parameter(weight, x, normalized_shape, op, "weight");
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
  if (y.numel() == 0) return y;
  const rmsnorm_problem p{call.type, call.n_rows, call.cols, call.stride, call.cols, call.cols, rms_eps(eps, x)};
  const c10::cuda::CUDAGuard guard(x.device());
  check_status(cuop::add_rmsnorm(p, call.rows.const_data_ptr(), residual.mutable_data_ptr(), data_or_null(w),
                                 y.mutable_data_ptr(), nullptr, current_stream(x)),
               op, "this add_rms_norm");
  // As torch's in-place ops do: a backward that saved the residual before now sees it changed.
  residual.unsafeGetTensorImpl()->bump_version();
  return y;
}

std::string norm_which(const at::Tensor& x, c10::IntArrayRef normalized_shape, std::string_view kind, bool residual) {
  constexpr std::string_view op = "cuop.norm_which";
  const norm_call call = prepare(x, normalized_shape, op);
  if (x.numel() == 0) return "none [empty tensor]";
  const c10::cuda::CUDAGuard guard(x.device());
  norm_choice choice;
  status s = status::invalid_argument;
  if (kind == "layer_norm") s = cuop::layernorm_which({call.type, call.n_rows, call.cols}, choice);
  else if (kind == "rms_norm") s = cuop::rmsnorm_which({call.type, call.n_rows, call.cols}, residual, choice);
  else TORCH_CHECK_VALUE(false, op, ": kind must be layer_norm or rms_norm, got ", kind);
  check_status(s, op, "this normalization");
  return describe_choice(choice.instance, nullptr, choice.source, choice.table_arch, choice.exact_shape);
}

}  // namespace cuop::torch_bridge
