// The verify-then-time sequence every op's trial shares: poison the output with NaN, launch once,
// compare with the f32 reference, and time only a verified answer.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

#include "cuop/dtype.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/trial/buffer_sets.hpp"
#include "tuner/trial/protocol.hpp"

namespace cuop::ops {

// The output as the comparison sees it: rows x cols elements of `type`, rows `ld` apart
// (contiguous when ld == cols), and the reference values with their tolerance.
struct output_check {
  dtype type = dtype::f32;
  void* out = nullptr;
  long long ld = 0;
  long long rows = 0, cols = 0;
  const float* reference = nullptr;
  double atol = 0, rtol = 0;
  // The op's own comparison of `out` with `reference` (softmax's); empty: element by element
  // (reference::compare_gemm).
  std::function<cudaError_t(reference::compare_result& result, cudaStream_t stream)> compare = {};
};

// "wrong_answer" names the first bad element with where(row, col) ("row 3 column 5"); failures
// of CUDA calls are trial_failure's; otherwise "ok" with the timing samples. `rotation` (may be
// null: single launches only) lets a short kernel be timed in batches over rotated buffer sets.
trial::trial_response verify_then_time(const measure::launcher& launch, const output_check& check,
                                       const std::function<std::string(long long, long long)>& where,
                                       const trial::trial_request& request, const measure::instruments& tools,
                                       cudaStream_t stream, const measure::buffer_rotation* rotation = nullptr);

// A launch given one buffer set's pointers, in the order of the buffers rotated.
using set_launcher = std::function<cudaError_t(const std::vector<void*>& buffers, cudaStream_t)>;

// The rotation over copies of `buffers` (a trial's own inputs, copied with their values, and
// outputs) that `sets` holds: what GEMM and conv2d give the timer. Set 0 is `buffers` itself.
measure::buffer_rotation rotate_buffers(trial::buffer_sets& sets,
                                        const std::vector<trial::buffer_sets::buffer>& buffers, cudaStream_t stream,
                                        set_launcher launch);

// Times a verified candidate with the worker's instruments and the request's settings, and fills
// an "ok" response (or a trial_failure "timing"). `rotation` may be null (single launches).
trial::trial_response time_verified(const measure::launcher& launch, const trial::trial_request& request,
                                    const measure::instruments& tools, const measure::buffer_rotation* rotation,
                                    cudaStream_t stream, trial::trial_response r);

}  // namespace cuop::ops
