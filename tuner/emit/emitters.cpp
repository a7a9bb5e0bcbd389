#include "tuner/emit/emitters.hpp"

#include "tuner/emit/conv_emit.hpp"
#include "tuner/emit/gemm_emit.hpp"

namespace cuop::emit {

const std::vector<emitter>& emitters() {
  static const std::vector<emitter> all = {
      {"softmax", "softmax", emit_softmax}, {"gemm", "gemm", emit_gemm}, {"conv2d", "conv", emit_conv}};
  return all;
}

}  // namespace cuop::emit
