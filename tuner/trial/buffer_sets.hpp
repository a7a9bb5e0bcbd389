// Rotated buffer sets for batched timing (measure::buffer_rotation): set 0 is a trial's own
// buffers; each further set holds a copy of its inputs (the same values, so every launch does the
// same work) and outputs of its own. Kept between trials of one problem, grown when a trial asks
// for more sets.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace cuop::trial {

class buffer_sets {
 public:
  struct buffer {
    void* data = nullptr;
    std::size_t bytes = 0;
    bool input = false;  // copied into every set; an output is only allocated
    bool operator==(const buffer&) const = default;
  };

  buffer_sets() = default;
  ~buffer_sets() { release(); }
  buffer_sets(const buffer_sets&) = delete;
  buffer_sets& operator=(const buffer_sets&) = delete;

  // At least `sets` sets of `base` (base itself being set 0). Sets made for other base buffers
  // are freed first. Synchronizes `stream` after the copies.
  cudaError_t prepare(const std::vector<buffer>& base, int sets, cudaStream_t stream);
  // Buffer `index` of set `set` (set 0: base[index].data).
  void* at(int set, std::size_t index) const;
  void release();

 private:
  std::vector<buffer> m_base;
  std::vector<std::vector<void*>> m_copies;  // sets 1.., one pointer per base buffer
};

}  // namespace cuop::trial
