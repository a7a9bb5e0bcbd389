#include "tuner/ops/groupnorm/trial.hpp"

#include <fmt/format.h>

#include "cuop/kernels/groupnorm/launch.hpp"
#include "cuop/kernels/norm/launch.hpp"
#include "cuop/reference/groupnorm_reference.hpp"
#include "cuop/reference/norm_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "tuner/ops/params.hpp"
#include "tuner/ops/verified_timing.hpp"
#include "tuner/trial/cuda_errors.hpp"

namespace cuop::ops {

namespace kg = kernels::groupnorm;

namespace {

constexpr float eps = 1e-5f;  // torch's GroupNorm default

bool parse_config(const nlohmann::json& j, dtype t, kg::groupnorm_config& c, std::string& message) {
  if (!kg::parse_family(j.at("family").get<std::string>(), c.fam)) {
    message = fmt::format("unknown family \"{}\"", j.at("family").get<std::string>());
    return false;
  }
  c.type = t;
  return set_request_params(
      c, j.at("params"), [](auto& cfg, const std::string& name, long long v) { return kg::set_param(cfg, name, v); },
      message);
}

long long elements_of(const kg::groupnorm_shape& s) { return s.n * s.c * s.hw; }

}  // namespace

groupnorm_trial_runner::groupnorm_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools)
    : kernel_trial_runner(device, stream, tools) {}

groupnorm_trial_runner::~groupnorm_trial_runner() { release_problem(); }

void groupnorm_trial_runner::release_problem() {
  m_sets.release();
  for (void* p : {m_problem.x, m_problem.y, m_problem.weight, m_problem.bias}) cudaFree(p);
  cudaFree(m_problem.reference);
  m_problem = {};
}

cudaError_t groupnorm_trial_runner::prepare_problem(const problem_key& key, std::uint64_t seed) {
  auto& b = m_problem;
  if (b.x && b.key == key) return cudaSuccess;
  release_problem();
  const long long count = elements_of(key.shape);
  const std::size_t bytes = static_cast<std::size_t>(count) * size_of(key.type);
  const std::size_t param_bytes = static_cast<std::size_t>(key.shape.c) * size_of(key.type);
  cudaError_t e = cudaSuccess;
  const auto step = [&e](cudaError_t r) {
    if (e == cudaSuccess) e = r;
  };
  step(cudaMalloc(&b.x, bytes));
  step(cudaMalloc(&b.y, bytes));
  step(cudaMalloc(&b.weight, param_bytes));
  step(cudaMalloc(&b.bias, param_bytes));
  step(cudaMalloc(reinterpret_cast<void**>(&b.reference), static_cast<std::size_t>(count) * sizeof(float)));
  if (e != cudaSuccess) return e;
  b.key = key;
  // Random inputs, never zeros: zeros hide unwritten outputs and can run faster than real data.
  step(reference::fill_random(key.type, b.x, count, seed, -2.0f, 2.0f, m_stream));
  step(reference::fill_random(key.type, b.weight, key.shape.c, seed + 1, 0.5f, 1.5f, m_stream));
  step(reference::fill_random(key.type, b.bias, key.shape.c, seed + 2, -0.5f, 0.5f, m_stream));
  const reference::groupnorm_reference_args ra{.type = key.type,
                                               .nhwc = key.lay == kg::layout::nhwc,
                                               .silu = key.silu,
                                               .x = b.x,
                                               .weight = b.weight,
                                               .bias = b.bias,
                                               .n = key.shape.n,
                                               .c = key.shape.c,
                                               .hw = key.shape.hw,
                                               .groups = key.shape.groups,
                                               .eps = eps};
  step(reference::groupnorm_reference(ra, b.reference, nullptr, nullptr, m_stream));
  step(cudaStreamSynchronize(m_stream));
  return e;
}

trial::trial_response groupnorm_trial_runner::run(const trial::trial_request& request) {
  trial::trial_response r;
  const auto type = parse_dtype(request.dtype);
  kg::groupnorm_config config;
  if (!type || !parse_config(request.config, *type, config, r.message)) {
    r.status = "launch_error";
    if (!type) r.message = fmt::format("unknown dtype \"{}\"", request.dtype);
    return r;
  }
  const auto dim = [&](const char* name, long long fallback) { return request.dims.value(name, fallback); };
  problem_key key{*type,
                  {dim("n", 0), dim("c", 0), dim("h", 0) * dim("w", 0), dim("groups", 32)},
                  dim("layout", 0) == static_cast<int>(kg::layout::nchw) ? kg::layout::nchw : kg::layout::nhwc,
                  dim("silu", 0) != 0};
  config.lay = key.lay;
  config.silu = key.silu;

  const void* function = trial::load_kernel(m_cubins, request, r);
  if (!function) return r;
  kg::device_limits limits;
  if (auto e = kernels::norm::query_limits(m_device, limits); e != cudaSuccess)
    return trial::trial_failure(e, "the device query");
  kg::launch_plan plan;
  if (auto reason = kg::plan_launch(config, key.shape, limits, plan); !reason.empty()) {
    return trial::trial_ended("unsupported", reason);
  }
  if (auto e = prepare_problem(key, request.seed); e != cudaSuccess)
    return trial::trial_failure(e, "input preparation");

  const auto& b = m_problem;
  const dtype t = *type;
  const long long count = elements_of(key.shape);
  const double tol = reference::norm_tolerance(t, key.shape.c / key.shape.groups * key.shape.hw);
  const kg::groupnorm_args args{b.x,     b.y,         b.weight,    b.bias,       nullptr,
                                nullptr, key.shape.n, key.shape.c, key.shape.hw, static_cast<int>(key.shape.groups),
                                eps};
  const auto launch = [&](cudaStream_t s) { return kg::launch(function, plan, args, s); };
  // The output as one row: an element's place names its sample, channel and position.
  output_check check{t, b.y, count, 1, count, b.reference, tol, tol};
  check.compare = [&](reference::compare_result& cmp, cudaStream_t s) {
    return reference::compare_softmax(t, b.y, 1, count, count, b.reference, tol, tol, &cmp, s);
  };
  // Short kernels are timed as graphs over rotated copies of the tensors: every launch reads the
  // same kind of values from its own cold buffers; the weight and bias are shared, as a model's
  // layer shares them.
  const std::size_t tensor_bytes = static_cast<std::size_t>(count) * size_of(t);
  const std::vector<trial::buffer_sets::buffer> buffers = {{b.x, tensor_bytes, true}, {b.y, tensor_bytes, false}};
  const auto rotation = rotate_buffers(m_sets, buffers, m_stream, [&](const std::vector<void*>& set, cudaStream_t s) {
    auto a = args;
    a.x = set[0];
    a.y = set[1];
    return kg::launch(function, plan, a, s);
  });
  return verify_then_time(
      launch, check, [](long long, long long at) { return fmt::format("element {}", at); }, request, m_tools, m_stream,
      &rotation);
}

}  // namespace cuop::ops
