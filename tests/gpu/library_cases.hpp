// Calls of the three ops on fixed operands, for the library-level GPU tests (CUDA graphs, threads,
// arguments): each case owns its operands on the device and its reference (kernels/include/cuop/
// reference/), can poison its output, make its call on a stream, and check the output. Cases are
// independent: one per thread and stream never share an output.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "cuop/conv.hpp"
#include "cuop/dtype.hpp"
#include "cuop/gemm.hpp"
#include "cuop/softmax.hpp"
#include "cuop/status.hpp"
#include "gpu_test_support.hpp"

namespace cuop::test {

class op_case {
 public:
  virtual ~op_case() = default;
  // "softmax f32 256x262144" and the like, for messages.
  virtual std::string name() const = 0;
  // Allocates and fills the operands, computes the reference (synchronous, on the legacy stream,
  // on the current device). Empty on success, else what failed.
  virtual std::string prepare() = 0;
  // Makes the output wrong before a call (NaN; for beta != 0, the initial output back).
  virtual cudaError_t poison(cudaStream_t s) = 0;
  // The op, on `s`.
  virtual status call(cudaStream_t s) = 0;
  // Waits for `s` and compares the output with the reference: empty when it matches.
  virtual std::string check(cudaStream_t s) = 0;
  // What dispatch chooses for the case: "instance (kind)".
  virtual std::string choice() const = 0;
};

// Softmax of rows x cols; pointers `misalign` elements off their allocation, `pad` elements
// between rows.
std::unique_ptr<op_case> softmax_case(dtype t, long long rows, long long cols, int misalign = 0, long long pad = 0);

// D = A * B + beta * C, all leading dimensions padded by `pad`; A, B and D `misalign` elements
// off their allocation (C too when beta != 0).
std::unique_ptr<op_case> gemm_case(dtype in, dtype out, kernels::gemm::b_layout b, int m, int n, int k, int pad = 0,
                                   float beta = 0.f, int misalign = 0);

// y = alpha * conv(x, w) + beta * y, the tensors `offset` elements off their allocation.
std::unique_ptr<op_case> conv_case(dtype t, const kernels::conv::conv_shape& sh, float alpha = 1.f, float beta = 0.f,
                                   int offset = 0);

// An NHWC or NCHW shape with square filter, stride and padding.
kernels::conv::conv_shape conv_shape_of(kernels::conv::layout l, int n, int h, int w, int c, int k, int r, int stride,
                                        int pad, int groups);

}  // namespace cuop::test
