#include "tuner/trial/trial_workspace.hpp"

namespace cuop::trial {

cudaError_t trial_workspace::prepare(std::size_t bytes, cudaStream_t stream) {
  if (bytes > m_bytes) {
    cudaFree(m_data);
    m_data = nullptr;
    m_bytes = 0;
    if (auto e = cudaMalloc(&m_data, bytes); e != cudaSuccess) return e;
    m_bytes = bytes;
  }
  if (!m_data) return cudaSuccess;
  return cudaMemsetAsync(m_data, 0, m_bytes, stream);
}

}  // namespace cuop::trial
