// Conservative softmax configurations for shapes and targets with no legal tuned choice. Together
// they cover every shape: short rows (warp_row), medium rows (block_row), anything (split_row).
#pragma once

#include <vector>

#include "cuop/kernels/softmax/family.hpp"

namespace cuop::emit {

std::vector<kernels::softmax::softmax_config> softmax_default_configs();

}  // namespace cuop::emit
