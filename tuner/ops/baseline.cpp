#include "tuner/ops/baseline.hpp"

#include <nlohmann/json.hpp>

#include "cuop/kernels/softmax/family.hpp"

namespace cuop::ops {

bool is_baseline(const store::problem_record& problem, const store::config_record& config) {
  if (config.op == "softmax") {
    const auto dims = nlohmann::json::parse(problem.dims_json, nullptr, false);
    const auto type = parse_dtype(problem.dtype);
    if (!type || !dims.is_object() || !dims.contains("cols") || !dims["cols"].is_number_integer()) return false;
    namespace ks = kernels::softmax;
    return config.instance == ks::instance_name(ks::default_config(*type, dims["cols"].get<long long>()));
  }
  // The library back ends' heuristic entries (gemm_<dtype>_cublaslt_heuristic,
  // conv2d_<dtype>_cudnn_heuristic), not the heuristic on packed operands (_pk1).
  return config.instance.ends_with("_cublaslt_heuristic") || config.instance.ends_with("_cudnn_heuristic");
}

}  // namespace cuop::ops
