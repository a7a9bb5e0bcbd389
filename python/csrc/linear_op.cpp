#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>

#include "cuop/gemm.hpp"
#include "ops.hpp"
#include "torch_bridge.hpp"

namespace cuop::torch_bridge {
namespace {

constexpr std::string_view op_name = "cuop.linear";

// x (..., k) as A (m x k, rows lda apart) and weight (n x k) as B: weight itself (col: n rows of
// k, ldb apart) or a transposed view of a k x n matrix (row), else a dense copy.
struct linear_call {
  at::Tensor a, b;
  std::vector<int64_t> out_sizes;
  gemm_problem problem;
};

void set_weight(linear_call& call, const at::Tensor& weight, int64_t n, int64_t k) {
  using kernels::gemm::b_layout;
  if ((k <= 1 || weight.stride(1) == 1) && (n <= 1 || weight.stride(0) >= k)) {
    call.b = weight;
    call.problem.b = b_layout::col;
    call.problem.ldb = n > 1 ? weight.stride(0) : k;
  } else if ((n <= 1 || weight.stride(0) == 1) && (k <= 1 || weight.stride(1) >= n)) {
    call.b = weight;
    call.problem.b = b_layout::row;
    call.problem.ldb = k > 1 ? weight.stride(1) : n;
  } else {
    call.b = weight.contiguous();
    call.problem.b = b_layout::col;
    call.problem.ldb = k;
  }
}

linear_call prepare(const at::Tensor& x, const at::Tensor& weight) {
  check_cuda(x, op_name, "x");
  check_same(x, weight, op_name, "weight");
  const dtype type = dtype_of(x, op_name, "x");
  TORCH_CHECK_TYPE(type != dtype::f32, op_name, ": x is float32; the GEMM kernels take float16 or bfloat16");
  TORCH_CHECK(x.dim() >= 1, op_name, ": x must have at least one dimension");
  TORCH_CHECK(weight.dim() == 2, op_name, ": weight must be 2-d (out_features x in_features), got ", weight.dim(),
              "-d");
  const int64_t k = weight.size(1), n = weight.size(0);
  TORCH_CHECK(x.size(-1) == k, op_name, ": x's last dimension is ", x.size(-1), ", weight's in_features ", k);
  linear_call call;
  call.out_sizes = x.sizes().vec();
  call.out_sizes.back() = n;
  call.problem.in = call.problem.out = type;
  call.problem.n = as_int(n, op_name, "out_features");
  call.problem.k = as_int(k, op_name, "in_features");
  if (x.numel() == 0) return call;
  call.a = as_rows(x, k);
  call.problem.m = as_int(call.a.size(0), op_name, "the number of rows of x");
  call.problem.lda = call.problem.m > 1 ? call.a.stride(0) : k;
  set_weight(call, weight, n, k);
  call.problem.ldc = call.problem.ldd = n;
  return call;
}

}  // namespace

at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias) {
  const linear_call call = prepare(x, weight);
  if (bias.has_value()) {
    check_same(x, *bias, op_name, "bias");
    TORCH_CHECK(bias->dim() == 1 && bias->size(0) == call.problem.n, op_name, ": bias must have out_features (",
                call.problem.n, ") elements, got shape ", bias->sizes());
  }
  at::Tensor out = at::empty(call.out_sizes, x.options());
  if (out.numel() == 0) return out;
  if (call.problem.k == 0) {
    out.zero_();  // an empty sum (the kernels take k >= 1)
  } else {
    const c10::cuda::CUDAGuard guard(x.device());
    check_status(cuop::gemm(call.problem, call.a.const_data_ptr(), call.b.const_data_ptr(), nullptr,
                            out.mutable_data_ptr(), current_stream(x)),
                 op_name, "this GEMM");
  }
  // Bias is a second kernel until the GEMM kernels take epilogues.
  if (bias.has_value()) out.add_(*bias);
  return out;
}

std::string linear_which(const at::Tensor& x, const at::Tensor& weight) {
  const linear_call call = prepare(x, weight);
  if (x.numel() == 0 || call.problem.n == 0 || call.problem.k == 0) return "none [empty GEMM]";
  const c10::cuda::CUDAGuard guard(x.device());
  gemm_choice choice;
  check_status(cuop::gemm_which(call.problem, choice), op_name, "this GEMM");
  return describe_choice(choice.instance, choice.kind, choice.source, choice.table_arch, choice.exact_shape);
}

}  // namespace cuop::torch_bridge
