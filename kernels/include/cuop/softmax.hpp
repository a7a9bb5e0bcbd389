// cuop::softmax: row-wise softmax over the last dimension, dispatched through the table emitted
// from tuning results (no tuning at run time).
#pragma once

#include <cuda_runtime_api.h>

#include "cuop/dtype.hpp"
#include "cuop/policy.hpp"
#include "cuop/status.hpp"

namespace cuop {

struct softmax_problem {
  dtype type = dtype::f32;  // of both input and output; arithmetic is f32
  long long rows = 0;
  long long cols = 0;
  long long in_stride = 0;   // elements between rows; 0 means cols
  long long out_stride = 0;  // 0 means cols
  choice_policy policy = choice_policy::tuned;
};

// out[r, :] = softmax(in[r, :]). Asynchronous on `stream`; errors of the launch itself are
// returned. Pointers must be aligned to the element type (not to 16 bytes); no element of out
// may share a byte with one of in (in place is refused; column slices of one buffer are fine).
// Refused with invalid_argument before anything is queued: null pointers, negative sizes,
// strides below cols, pointers off their element size, overlap, an operand past 2^48 bytes, an
// unknown dtype, a stream of another device. The rules for every op (streams, CUDA graph
// capture, threads) are in docs/ARCHITECTURE.md, "Using the library"; in short: any stream of
// the current device (null is the legacy default stream), capturable in every mode from the
// first call, callable from any number of threads.
status softmax(const softmax_problem& p, const void* in, void* out, cudaStream_t stream = nullptr);

// What dispatch chooses for `p` on the current device, for logs, tests and benchmarks.
using softmax_choice = row_op_choice;
status softmax_which(const softmax_problem& p, softmax_choice& out);

}  // namespace cuop
