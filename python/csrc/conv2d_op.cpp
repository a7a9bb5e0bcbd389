#include <ATen/Context.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>

#include "cuop/conv.hpp"
#include "ops.hpp"
#include "torch_bridge.hpp"

namespace cuop::torch_bridge {
namespace {

constexpr std::string_view op_name = "cuop.conv2d";

struct conv2d_call {
  at::Tensor x, w;
  at::MemoryFormat format = at::MemoryFormat::Contiguous;
  std::vector<int64_t> out_sizes;
  conv2d_problem problem;
};

// One value for both spatial dimensions, or one each (torch's int[2]).
std::pair<int, int> pair_of(c10::IntArrayRef v, std::string_view what) {
  TORCH_CHECK(v.size() == 1 || v.size() == 2, op_name, ": ", what, " takes 1 or 2 values, got ", v.size());
  return {as_int(v.front(), op_name, what), as_int(v.back(), op_name, what)};
}

// What kernels::conv::check_shape refuses, said in torch's terms; not that function itself, whose
// std::string answer would cross from the library into code built with torch's C++ ABI setting.
void check_geometry(const kernels::conv::conv_shape& sh, int64_t weight_c) {
  TORCH_CHECK(sh.groups >= 1 && sh.c % sh.groups == 0 && sh.k % sh.groups == 0, op_name, ": groups (", sh.groups,
              ") must divide the input's ", sh.c, " and the weight's ", sh.k, " channels");
  TORCH_CHECK(weight_c * sh.groups == sh.c, op_name, ": weight has ", weight_c, " input channels a group, x ", sh.c,
              " in ", sh.groups, " groups");
  TORCH_CHECK(sh.stride_h >= 1 && sh.stride_w >= 1 && sh.dil_h >= 1 && sh.dil_w >= 1, op_name,
              ": stride and dilation must be at least 1");
  TORCH_CHECK(sh.pad_h >= 0 && sh.pad_w >= 0, op_name, ": padding must not be negative");
  TORCH_CHECK(sh.p() >= 1 && sh.q() >= 1, op_name, ": the ", sh.r, "x", sh.s, " filter (dilation ", sh.dil_h, "x",
              sh.dil_w, ") does not fit the padded ", sh.h, "x", sh.w, " input");
}

conv2d_call prepare(const at::Tensor& x, const at::Tensor& weight, c10::IntArrayRef stride, c10::IntArrayRef padding,
                    c10::IntArrayRef dilation, int64_t groups) {
  check_cuda(x, op_name, "x");
  check_same(x, weight, op_name, "weight");
  TORCH_CHECK(x.dim() == 4, op_name, ": x must be 4-d (N x C x H x W), got ", x.dim(), "-d");
  TORCH_CHECK(weight.dim() == 4, op_name, ": weight must be 4-d (K x C/groups x R x S), got ", weight.dim(), "-d");
  conv2d_call call;
  call.problem.type = dtype_of(x, op_name, "x");
  auto& sh = call.problem.shape;
  sh.n = as_int(x.size(0), op_name, "N");
  sh.c = as_int(x.size(1), op_name, "C");
  sh.h = as_int(x.size(2), op_name, "H");
  sh.w = as_int(x.size(3), op_name, "W");
  sh.k = as_int(weight.size(0), op_name, "K");
  sh.r = as_int(weight.size(2), op_name, "R");
  sh.s = as_int(weight.size(3), op_name, "S");
  std::tie(sh.stride_h, sh.stride_w) = pair_of(stride, "stride");
  std::tie(sh.pad_h, sh.pad_w) = pair_of(padding, "padding");
  std::tie(sh.dil_h, sh.dil_w) = pair_of(dilation, "dilation");
  sh.groups = as_int(groups, op_name, "groups");
  check_geometry(sh, weight.size(1));
  // channels_last input (and not also plain contiguous): NHWC, the layout the tuned kernels favour.
  const bool nhwc = x.is_contiguous(at::MemoryFormat::ChannelsLast) && !x.is_contiguous();
  call.format = nhwc ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  sh.lay = nhwc ? kernels::conv::layout::nhwc : kernels::conv::layout::nchw;
  sh.allow_tf32 = at::globalContext().allowTF32CuDNN();  // torch.backends.cudnn.allow_tf32
  call.x = x.contiguous(call.format);
  call.w = weight.contiguous(call.format);
  call.out_sizes = {sh.n, sh.k, sh.p(), sh.q()};
  return call;
}

}  // namespace

at::Tensor conv2d(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                  c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation, int64_t groups) {
  const conv2d_call call = prepare(x, weight, stride, padding, dilation, groups);
  if (bias.has_value()) {
    check_same(x, *bias, op_name, "bias");
    TORCH_CHECK(bias->dim() == 1 && bias->size(0) == call.problem.shape.k, op_name, ": bias must have ",
                call.problem.shape.k, " elements (output channels), got shape ", bias->sizes());
  }
  at::Tensor out = at::empty(call.out_sizes, x.options().memory_format(call.format));
  if (out.numel() == 0) return out;
  const c10::cuda::CUDAGuard guard(x.device());
  check_status(cuop::conv2d(call.problem, call.x.const_data_ptr(), call.w.const_data_ptr(), out.mutable_data_ptr(),
                            current_stream(x)),
               op_name, "this convolution");
  // Bias is a second kernel until the conv kernels take epilogues.
  if (bias.has_value()) out.add_(bias->view({1, -1, 1, 1}));
  return out;
}

std::string conv2d_which(const at::Tensor& x, const at::Tensor& weight, c10::IntArrayRef stride,
                         c10::IntArrayRef padding, c10::IntArrayRef dilation, int64_t groups) {
  const conv2d_call call = prepare(x, weight, stride, padding, dilation, groups);
  if (call.problem.shape.n == 0) return "none [empty batch]";
  const c10::cuda::CUDAGuard guard(x.device());
  conv2d_choice choice;
  check_status(cuop::conv2d_which(call.problem, choice), op_name, "this convolution");
  return describe_choice(choice.instance, choice.kind, choice.source, choice.table_arch, choice.exact_shape);
}

}  // namespace cuop::torch_bridge
