#include "tuner/emit/softmax_defaults.hpp"

namespace cuop::emit {

namespace ks = kernels::softmax;

std::vector<ks::softmax_config> softmax_default_configs() {
  std::vector<ks::softmax_config> out;
  for (const dtype t : {dtype::f32, dtype::f16, dtype::bf16}) {
    const int vec = static_cast<int>(16 / size_of(t));  // 16-byte accesses
    // In the order dispatch tries them: the first that can run a shape wins.
    out.push_back({ks::family::warp_row, t, vec, 32, 4, 0, 1});
    out.push_back({ks::family::warp_row, t, vec, 32, 4, 0, 4});
    out.push_back({ks::family::block_row, t, vec, 0, 0, 256, 4});
    out.push_back({ks::family::block_row, t, vec, 0, 0, 1024, 4});
    out.push_back({ks::family::split_row, t, vec, 0, 0, 512, 4});
  }
  return out;
}

}  // namespace cuop::emit
