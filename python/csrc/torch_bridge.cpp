#include "torch_bridge.hpp"

#include <c10/util/Exception.h>

#include <climits>

namespace cuop::torch_bridge {

void check_cuda(const at::Tensor& x, std::string_view op, std::string_view name) {
  TORCH_CHECK(x.defined(), op, ": ", name, " is an undefined tensor");
  TORCH_CHECK(x.is_cuda(), op, ": ", name, " must be a CUDA tensor, got one on ", x.device());
}

void check_same(const at::Tensor& x, const at::Tensor& y, std::string_view op, std::string_view name) {
  check_cuda(y, op, name);
  TORCH_CHECK(y.device() == x.device(), op, ": ", name, " is on ", y.device(), ", the input on ", x.device());
  TORCH_CHECK(y.scalar_type() == x.scalar_type(), op, ": ", name, " is ", y.scalar_type(), ", the input ",
              x.scalar_type(), " (one dtype for every operand)");
}

dtype dtype_of(const at::Tensor& x, std::string_view op, std::string_view name) {
  switch (x.scalar_type()) {
    case at::kFloat: return dtype::f32;
    case at::kHalf: return dtype::f16;
    case at::kBFloat16: return dtype::bf16;
    default: break;
  }
  TORCH_CHECK_TYPE(false, op, ": ", name, " is ", x.scalar_type(), "; float32, float16 or bfloat16 are supported");
}

int as_int(int64_t v, std::string_view op, std::string_view what) {
  TORCH_CHECK(v <= INT_MAX, op, ": ", what, " is ", v, ", past the ", INT_MAX, " the kernels take");
  return static_cast<int>(v);
}

at::Tensor as_rows(const at::Tensor& x, int64_t cols) {
  at::Tensor rows = x.reshape({-1, cols});
  const bool dense_row = cols <= 1 || rows.stride(1) == 1;
  const bool rows_apart = rows.size(0) <= 1 || rows.stride(0) >= cols;
  return dense_row && rows_apart ? rows : rows.contiguous();
}

cudaStream_t current_stream(const at::Tensor& x) {
  return c10::cuda::getCurrentCUDAStream(x.device().index()).stream();
}

void check_status(status s, std::string_view op, std::string_view call) {
  if (s == status::success) return;
  TORCH_CHECK_NOT_IMPLEMENTED(s != status::unsupported, op, ": no kernel of this build handles ", call,
                              " on this device (cuop status unsupported)");
  TORCH_CHECK_VALUE(s != status::invalid_argument, op, ": cuop refused ", call, " (invalid_argument)");
  TORCH_CHECK(false, op, ": ", call, " failed: cuop status ", to_string(s));
}

std::string describe_choice(const char* instance, const char* kind, const char* source, int table_arch,
                            bool exact_shape) {
  std::string out = instance != nullptr ? instance : "?";
  out += " [";
  if (kind != nullptr) out += std::string(kind) + ", ";
  out += source != nullptr ? source : "?";
  if (table_arch > 0) out += ", table sm_" + std::to_string(table_arch);
  if (exact_shape) out += ", tuned shape";
  return out + "]";
}

}  // namespace cuop::torch_bridge
