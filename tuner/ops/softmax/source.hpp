// The translation unit that instantiates one softmax configuration as an extern "C" kernel named
// by its instance name. The tuner compiles it with NVRTC; `emit` writes the same text into the
// library's instantiation unit for nvcc, so the code that was tuned is the code that ships.
#pragma once

#include <string>
#include <vector>

#include "cuop/kernels/softmax/family.hpp"

namespace cuop::ops {

// The kernel definition alone (no includes), e.g.
//   extern "C" __global__ void __launch_bounds__(256) softmax_f32_block_row_vec4_threads256_chunks4(
//       cuop::kernels::softmax::softmax_args a) { cuop::kernels::softmax::block_row<...>::run(a); }
std::string softmax_entry_definition(const kernels::softmax::softmax_config& c);

// Includes the entry needs (family header, fp16/bf16 headers).
std::vector<std::string> softmax_entry_includes(const kernels::softmax::softmax_config& c);

// A complete translation unit: includes + definition.
std::string softmax_entry_source(const kernels::softmax::softmax_config& c);

}  // namespace cuop::ops
