// Kernel arguments shared by every softmax family. Device-safe and NVRTC-safe: built-in types only.
#pragma once

namespace cuop::kernels::softmax {

struct softmax_args {
  const void* in;        // rows x cols, row-major, element type T of the instantiation
  void* out;             // rows x cols, same type
  long long rows;
  long long cols;
  long long in_stride;   // elements between consecutive rows of `in` (>= cols)
  long long out_stride;  // elements between consecutive rows of `out`
  void* workspace;       // split_row only: zeroed once at allocation, self-resetting afterwards
};

}  // namespace cuop::kernels::softmax
