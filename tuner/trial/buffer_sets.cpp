#include "tuner/trial/buffer_sets.hpp"

namespace cuop::trial {

void buffer_sets::release() {
  for (auto& set : m_copies)
    for (void* p : set) cudaFree(p);
  m_copies.clear();
  m_base.clear();
}

cudaError_t buffer_sets::prepare(const std::vector<buffer>& base, int sets, cudaStream_t stream) {
  if (base != m_base) {
    release();
    m_base = base;
  }
  while (static_cast<int>(m_copies.size()) + 1 < sets) {
    std::vector<void*> set;
    for (const buffer& b : m_base) {
      void* p = nullptr;
      cudaError_t e = cudaMalloc(&p, b.bytes);
      if (e == cudaSuccess && b.input) e = cudaMemcpyAsync(p, b.data, b.bytes, cudaMemcpyDeviceToDevice, stream);
      if (e != cudaSuccess) {
        if (p) cudaFree(p);
        for (void* q : set) cudaFree(q);
        return e;
      }
      set.push_back(p);
    }
    m_copies.push_back(std::move(set));
  }
  return cudaStreamSynchronize(stream);
}

void* buffer_sets::at(int set, std::size_t index) const {
  return set == 0 ? m_base.at(index).data : m_copies.at(static_cast<std::size_t>(set) - 1).at(index);
}

}  // namespace cuop::trial
