#include "tuner/ops/softmax/trial.hpp"

#include <fmt/format.h>

#include "cuop/kernels/softmax/launch.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "tuner/ops/params.hpp"
#include "tuner/ops/softmax/custom.hpp"
#include "tuner/ops/verified_timing.hpp"
#include "tuner/trial/cuda_errors.hpp"

namespace cuop::ops {

namespace ks = kernels::softmax;

namespace {

trial::trial_response failure(cudaError_t e, const std::string& during) { return trial::trial_failure(e, during); }

bool parse_config(const nlohmann::json& j, dtype t, ks::softmax_config& c, std::string& message) {
  if (!ks::parse_family(j.at("family").get<std::string>(), c.fam)) {
    message = fmt::format("unknown family \"{}\"", j.at("family").get<std::string>());
    return false;
  }
  c.type = t;
  return set_request_params(
      c, j.at("params"), [](auto& cfg, const std::string& name, long long v) { return ks::set_param(cfg, name, v); },
      message);
}

}  // namespace

softmax_trial_runner::softmax_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools)
    : kernel_trial_runner(device, stream, tools) {}

softmax_trial_runner::~softmax_trial_runner() { release_problem(); }

void softmax_trial_runner::release_problem() {
  m_sets.release();
  cudaFree(m_problem.in);
  cudaFree(m_problem.out);
  cudaFree(m_problem.reference);
  m_problem = {};
}

cudaError_t softmax_trial_runner::prepare_problem(dtype t, long long rows, long long cols, std::uint64_t seed) {
  if (m_problem.in && m_problem.type == t && m_problem.rows == rows && m_problem.cols == cols) return cudaSuccess;
  release_problem();
  const auto count = static_cast<std::size_t>(rows * cols);
  if (auto e = cudaMalloc(&m_problem.in, count * size_of(t)); e != cudaSuccess) return e;
  if (auto e = cudaMalloc(&m_problem.out, count * size_of(t)); e != cudaSuccess) return e;
  if (auto e = cudaMalloc(reinterpret_cast<void**>(&m_problem.reference), count * sizeof(float)); e != cudaSuccess)
    return e;
  m_problem.type = t;
  m_problem.rows = rows;
  m_problem.cols = cols;
  // Random inputs, never zeros: zeros hide unwritten outputs and can run faster than real data.
  if (auto e = reference::fill_random(t, m_problem.in, rows * cols, seed, -8.0f, 8.0f, m_stream); e != cudaSuccess)
    return e;
  if (auto e = reference::softmax_reference(t, m_problem.in, rows, cols, cols, m_problem.reference, m_stream);
      e != cudaSuccess)
    return e;
  return cudaStreamSynchronize(m_stream);
}

trial::trial_response softmax_trial_runner::run(const trial::trial_request& request) {
  trial::trial_response r;
  const auto type = parse_dtype(request.dtype);
  ks::softmax_config config;
  const bool custom = request.config.value("family", "") == custom_family;
  if (!type || (!custom && !parse_config(request.config, *type, config, r.message))) {
    r.status = "launch_error";
    if (!type) r.message = fmt::format("unknown dtype \"{}\"", request.dtype);
    return r;
  }
  const long long rows = request.dims.at("rows").get<long long>();
  const long long cols = request.dims.at("cols").get<long long>();

  const void* function = trial::load_kernel(m_cubins, request, r);
  if (!function) return r;

  ks::launch_plan plan;
  if (custom) {
    cudaError_t e = cudaSuccess;
    if (auto reason = plan_custom_softmax(request.config, function, m_device, rows, plan, e); !reason.empty()) {
      if (e != cudaSuccess) return failure(e, reason);
      return trial::trial_ended("unsupported", reason);
    }
  } else {
    ks::device_limits limits;
    if (auto e = ks::query_limits(m_device, function, config, limits); e != cudaSuccess)
      return failure(e, "the occupancy query");
    if (auto reason = ks::plan_launch(config, rows, cols, limits, plan); !reason.empty()) {
      return trial::trial_ended("unsupported", reason);
    }
  }

  if (auto e = prepare_problem(*type, rows, cols, request.seed); e != cudaSuccess)
    return failure(e, "input preparation");
  if (auto e = m_workspace.prepare(plan.workspace_bytes, m_stream); e != cudaSuccess)
    return failure(e, "workspace allocation");

  const ks::softmax_args args{m_problem.in, m_problem.out, rows, cols, cols, cols, m_workspace.data()};
  const auto launch = [&](cudaStream_t s) { return ks::launch(function, plan, args, s); };
  const dtype t = *type;
  output_check check{t,
                     m_problem.out,
                     cols,
                     rows,
                     cols,
                     m_problem.reference,
                     reference::softmax_tolerance(t, cols),
                     reference::softmax_rtol(t)};
  check.compare = [&](reference::compare_result& cmp, cudaStream_t s) {
    return reference::compare_softmax(t, m_problem.out, rows, cols, cols, m_problem.reference, check.atol, check.rtol,
                                      &cmp, s);
  };
  // Short kernels are timed as graphs over rotated copies of input and output: every launch
  // reads the same values from its own cold buffers. The workspace (split_row's self-resetting
  // slots) is shared, as it is between consecutive single launches.
  const std::size_t tensor_bytes = static_cast<std::size_t>(rows * cols) * size_of(t);
  const auto rotation =
      rotate_buffers(m_sets, {{m_problem.in, tensor_bytes, true}, {m_problem.out, tensor_bytes, false}}, m_stream,
                     [&](const std::vector<void*>& set, cudaStream_t s) {
                       auto a = args;
                       a.in = set[0];
                       a.out = set[1];
                       return ks::launch(function, plan, a, s);
                     });
  return verify_then_time(
      launch, check, [](long long row, long long col) { return fmt::format("row {} column {}", row, col); }, request,
      m_tools, m_stream, &rotation);
}

}  // namespace cuop::ops
