// The cuDNN 9 back end of conv2d, through the graph (backend) API: a convolution-forward
// operation graph for one problem (NHWC or NCHW, f16 / bf16 / f32, padding, stride, dilation,
// groups; TF32 allowed or not for f32), the engine configurations heuristic modes A and B and the
// fallback list rank, every engine's knob ranges, and execution plans rebuilt from identifiers
// (cudnn.hpp). Built only where cuDNN 9 was found (CUOP_HAVE_CUDNN); status codes, no exceptions.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuop/backends/cudnn.hpp"
#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/family.hpp"

namespace cuop::backends {

// An owned cudnnBackendDescriptor_t.
class dnn_descriptor {
 public:
  dnn_descriptor() = default;
  explicit dnn_descriptor(cudnnBackendDescriptor_t d) : m_d(d) {}
  ~dnn_descriptor();
  dnn_descriptor(dnn_descriptor&& o) noexcept : m_d(o.m_d) { o.m_d = nullptr; }
  dnn_descriptor& operator=(dnn_descriptor&& o) noexcept;
  dnn_descriptor(const dnn_descriptor&) = delete;
  dnn_descriptor& operator=(const dnn_descriptor&) = delete;
  cudnnBackendDescriptor_t get() const noexcept { return m_d; }

 private:
  cudnnBackendDescriptor_t m_d = nullptr;
};

// A finalized execution plan and the workspace it needs.
struct dnn_plan {
  dnn_descriptor plan;
  std::int64_t workspace_bytes = 0;
};

class dnn_conv {
 public:
  // Tensor unique ids in the graph and the variant pack.
  static constexpr std::int64_t x_uid = 1, w_uid = 2, y_uid = 3;

  // Builds and finalizes the operation graph of y = alpha * conv(x, w) + beta * y (the
  // tuner measures alpha 1, beta 0). The filter follows the layout (args.cuh). Data must be
  // 16-byte aligned.
  cudnnStatus_t init(cudnnHandle_t handle, dtype t, const kernels::conv::conv_shape& sh, bool allow_tf32,
                     std::string* why, float alpha = 1.f, float beta = 0.f);
  bool ready() const noexcept { return m_graph.get() != nullptr; }

  // Up to `max` configurations in the order heuristic `mode` (CUDNN_HEUR_MODE_A, _B or
  // _FALLBACK) ranks them, knob choices included; numerics the problem excludes (TF32 for f32
  // without it) are skipped.
  cudnnStatus_t heuristic(cudnnBackendHeurMode_t mode, int max, std::vector<cudnn_config>& out, std::string* why) const;

  // Every engine of the graph that finalizes for it, with its knob ranges.
  cudnnStatus_t engines(std::vector<cudnn_engine_knobs>& out, std::string* why) const;

  // The execution plan of a configuration; a status other than CUDNN_STATUS_SUCCESS (and why)
  // when the installed cuDNN does not accept it for this problem.
  cudnnStatus_t build(const cudnn_config& c, dnn_plan& out, std::string* why) const;

  // Runs a plan of this problem on `stream` (set on the handle).
  cudnnStatus_t run(const dnn_plan& plan, const void* x, const void* w, void* y, void* workspace,
                    cudaStream_t stream) const;

 private:
  bool numerics_allowed(cudnnBackendDescriptor_t engine) const;

  cudnnHandle_t m_handle = nullptr;
  dtype m_type = dtype::f16;
  bool m_allow_tf32 = false;
  dnn_descriptor m_graph;
  std::vector<dnn_descriptor> m_keep;  // tensors and the operation the graph refers to
};

}  // namespace cuop::backends
