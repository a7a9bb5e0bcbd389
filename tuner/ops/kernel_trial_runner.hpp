// What every op's trial runner holds besides its problem: the worker's device, stream and
// instruments, the rotated copies of the operands that short kernels are timed over
// (measure::buffer_rotation), and the cubins of the candidates it has loaded.
#pragma once

#include <cuda_runtime_api.h>

#include "tuner/measure/timer.hpp"
#include "tuner/ops/op.hpp"
#include "tuner/trial/buffer_sets.hpp"
#include "tuner/trial/cubin_loader.hpp"

namespace cuop::ops {

class kernel_trial_runner : public trial_runner {
 public:
  kernel_trial_runner(const kernel_trial_runner&) = delete;
  kernel_trial_runner& operator=(const kernel_trial_runner&) = delete;

 protected:
  kernel_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools)
      : m_device(device), m_stream(stream), m_tools(tools) {}
  ~kernel_trial_runner() override = default;

  int m_device;
  cudaStream_t m_stream;
  measure::instruments m_tools;
  trial::buffer_sets m_sets;
  trial::cubin_loader m_cubins;
};

}  // namespace cuop::ops
