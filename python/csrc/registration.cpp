// The ops' schemas (namespace `cuop`, torch.ops.cuop.*) and their CUDA kernels. Their autograd is
// autograd.cpp's; their fake (meta) implementations, which torch.compile traces, are
// python/cuop/_registrations.py's.
#include <torch/library.h>

#include "ops.hpp"

TORCH_LIBRARY(cuop, m) {
  m.def("softmax(Tensor x, int dim=-1) -> Tensor");
  m.def("linear(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor");
  m.def(
      "conv2d(Tensor x, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, "
      "int groups=1) -> Tensor");
  m.def(
      "layer_norm(Tensor x, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> "
      "Tensor");
  m.def("rms_norm(Tensor x, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor");
  m.def(
      "add_rms_norm(Tensor x, Tensor(a!) residual, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> "
      "Tensor");
  m.def(
      "group_norm(Tensor x, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool silu=False) "
      "-> Tensor");
  // What each op would run for these arguments, for logs and tests (not traceable: a string).
  m.def("softmax_which(Tensor x, int dim=-1) -> str");
  m.def("linear_which(Tensor x, Tensor weight) -> str");
  m.def(
      "conv2d_which(Tensor x, Tensor weight, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> "
      "str");
  m.def("norm_which(Tensor x, int[] normalized_shape, str kind, bool residual=False) -> str");
  m.def("group_norm_which(Tensor x, int num_groups, bool silu=False) -> str");
}

namespace {

void implement(torch::Library& m) {
  using namespace cuop::torch_bridge;
  m.impl("softmax", &softmax);
  m.impl("linear", &linear);
  m.impl("conv2d", &conv2d);
  m.impl("softmax_which", &softmax_which);
  m.impl("linear_which", &linear_which);
  m.impl("conv2d_which", &conv2d_which);
  m.impl("layer_norm", &layer_norm);
  m.impl("rms_norm", &rms_norm);
  m.impl("add_rms_norm", &add_rms_norm);
  m.impl("norm_which", &norm_which);
  m.impl("group_norm", &group_norm);
  m.impl("group_norm_which", &group_norm_which);
}

}  // namespace

TORCH_LIBRARY_IMPL(cuop, CUDA, m) { implement(m); }
// CPU tensors get the ops' own error ("x must be a CUDA tensor") rather than torch's missing kernel.
TORCH_LIBRARY_IMPL(cuop, CPU, m) { implement(m); }
