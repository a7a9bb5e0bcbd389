#include "tuner/ops/op_adapter.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/ops/conv_op.hpp"
#include "tuner/ops/gemm_op.hpp"
#include "tuner/ops/softmax_op.hpp"

namespace cuop::ops {

nlohmann::json config_json(const space::point& p) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : p.params) params[name] = value;
  return {{"family", p.family}, {"params", params}};
}

const op_adapter& adapter_for(std::string_view op) {
  if (op == "softmax") return softmax_adapter();
  if (op == "gemm") return gemm_adapter();
  if (op == "conv2d") return conv_adapter();
  throw error(fmt::format("no adapter for op \"{}\"", op));
}

}  // namespace cuop::ops
