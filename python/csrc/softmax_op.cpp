#include <ATen/ops/empty.h>
#include <c10/core/WrapDimMinimal.h>
#include <c10/cuda/CUDAGuard.h>

#include "cuop/softmax.hpp"
#include "ops.hpp"
#include "torch_bridge.hpp"

namespace cuop::torch_bridge {
namespace {

constexpr std::string_view op_name = "cuop.softmax";

// x with `dim` moved last (the kernels' rows); a 0-d tensor is one row of one.
struct softmax_call {
  at::Tensor moved;
  at::Tensor rows;  // moved as rows x cols
  softmax_problem problem;
  bool dim_is_last = true;
  int64_t dim = 0;
};

softmax_call prepare(const at::Tensor& x, int64_t dim) {
  check_cuda(x, op_name, "x");
  softmax_call call;
  call.problem.type = dtype_of(x, op_name, "x");
  call.dim = c10::maybe_wrap_dim(dim, x.dim());
  call.dim_is_last = x.dim() == 0 || call.dim == x.dim() - 1;
  call.moved = call.dim_is_last ? x : x.movedim(call.dim, -1);
  const int64_t cols = x.dim() == 0 ? 1 : call.moved.size(-1);
  if (call.moved.numel() == 0) return call;
  call.rows = as_rows(call.moved, cols);
  call.problem.rows = call.rows.size(0);
  call.problem.cols = cols;
  call.problem.in_stride = call.problem.rows > 1 ? call.rows.stride(0) : cols;
  call.problem.out_stride = cols;
  return call;
}

}  // namespace

at::Tensor softmax(const at::Tensor& x, int64_t dim) {
  const softmax_call call = prepare(x, dim);
  at::Tensor out = at::empty(call.moved.sizes(), call.moved.options());
  if (out.numel() > 0) {
    const c10::cuda::CUDAGuard guard(x.device());
    check_status(cuop::softmax(call.problem, call.rows.const_data_ptr(), out.mutable_data_ptr(), current_stream(x)),
                 op_name, "this softmax");
  }
  return call.dim_is_last ? out : out.movedim(-1, call.dim);
}

std::string softmax_which(const at::Tensor& x, int64_t dim) {
  const softmax_call call = prepare(x, dim);
  if (call.moved.numel() == 0) return "none [empty tensor]";
  const c10::cuda::CUDAGuard guard(x.device());
  softmax_choice choice;
  check_status(cuop::softmax_which(call.problem, choice), op_name, "this softmax");
  return describe_choice(choice.instance, nullptr, choice.source, choice.table_arch, choice.exact_shape);
}

}  // namespace cuop::torch_bridge
