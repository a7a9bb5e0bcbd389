#include "tuner/ops/norm/trial.hpp"

#include <fmt/format.h>

#include "cuop/kernels/norm/launch.hpp"
#include "cuop/reference/norm_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "tuner/ops/params.hpp"
#include "tuner/ops/verified_timing.hpp"
#include "tuner/trial/cuda_errors.hpp"

namespace cuop::ops {

namespace kn = kernels::norm;

namespace {

// The epsilon each op's users pass most: torch's LayerNorm default, and LLMs' RMSNorm.
float eps_of(kn::norm_kind k) { return k == kn::norm_kind::layernorm ? 1e-5f : 1e-6f; }

bool parse_config(const nlohmann::json& j, kn::norm_kind kind, dtype t, kn::norm_config& c, std::string& message) {
  c.kind = kind;
  if (!kn::parse_family(j.at("family").get<std::string>(), c.fam)) {
    message = fmt::format("unknown family \"{}\"", j.at("family").get<std::string>());
    return false;
  }
  c.type = t;
  return set_request_params(
      c, j.at("params"), [](auto& cfg, const std::string& name, long long v) { return kn::set_param(cfg, name, v); },
      message);
}

cudaError_t alloc(void*& p, std::size_t bytes) { return cudaMalloc(&p, bytes); }

}  // namespace

norm_trial_runner::norm_trial_runner(kn::norm_kind kind, int device, cudaStream_t stream,
                                     const measure::instruments& tools)
    : kernel_trial_runner(device, stream, tools), m_kind(kind) {}

norm_trial_runner::~norm_trial_runner() { release_problem(); }

void norm_trial_runner::release_problem() {
  m_sets.release();
  for (void* p :
       {m_problem.x, m_problem.y, m_problem.weight, m_problem.bias, m_problem.residual_init, m_problem.residual_work})
    cudaFree(p);
  cudaFree(m_problem.reference);
  cudaFree(m_problem.reference_residual);
  m_problem = {};
}

cudaError_t norm_trial_runner::prepare_problem(dtype t, long long rows, long long cols, bool residual,
                                               std::uint64_t seed) {
  auto& b = m_problem;
  if (b.x && b.type == t && b.rows == rows && b.cols == cols && b.residual == residual) return cudaSuccess;
  release_problem();
  const long long count = rows * cols;
  const std::size_t bytes = static_cast<std::size_t>(count) * size_of(t);
  const std::size_t param_bytes = static_cast<std::size_t>(cols) * size_of(t);
  cudaError_t e = cudaSuccess;
  const auto step = [&e](cudaError_t r) {
    if (e == cudaSuccess) e = r;
  };
  step(alloc(b.x, bytes));
  step(alloc(b.y, bytes));
  step(alloc(b.weight, param_bytes));
  if (m_kind == kn::norm_kind::layernorm) step(alloc(b.bias, param_bytes));
  if (residual) {
    step(alloc(b.residual_init, bytes));
    step(alloc(b.residual_work, bytes));
    step(cudaMalloc(reinterpret_cast<void**>(&b.reference_residual), static_cast<std::size_t>(count) * sizeof(float)));
  }
  step(cudaMalloc(reinterpret_cast<void**>(&b.reference), static_cast<std::size_t>(count) * sizeof(float)));
  if (e != cudaSuccess) return e;
  b.type = t;
  b.rows = rows;
  b.cols = cols;
  b.residual = residual;
  // Random inputs, never zeros: zeros hide unwritten outputs and can run faster than real data.
  step(reference::fill_random(t, b.x, count, seed, -2.0f, 2.0f, m_stream));
  step(reference::fill_random(t, b.weight, cols, seed + 1, 0.5f, 1.5f, m_stream));
  if (b.bias) step(reference::fill_random(t, b.bias, cols, seed + 2, -0.5f, 0.5f, m_stream));
  if (residual) step(reference::fill_random(t, b.residual_init, count, seed + 3, -2.0f, 2.0f, m_stream));
  reference::norm_reference_args ra{.layernorm = m_kind == kn::norm_kind::layernorm,
                                    .type = t,
                                    .x = b.x,
                                    .residual = b.residual_init,
                                    .weight = b.weight,
                                    .bias = b.bias,
                                    .rows = rows,
                                    .cols = cols,
                                    .x_stride = cols,
                                    .residual_stride = cols,
                                    .eps = eps_of(m_kind)};
  step(reference::norm_reference(ra, b.reference, b.reference_residual, nullptr, nullptr, m_stream));
  step(cudaStreamSynchronize(m_stream));
  return e;
}

cudaError_t norm_trial_runner::restore_residual() {
  if (!m_problem.residual) return cudaSuccess;
  const std::size_t bytes = static_cast<std::size_t>(m_problem.rows * m_problem.cols) * size_of(m_problem.type);
  return cudaMemcpyAsync(m_problem.residual_work, m_problem.residual_init, bytes, cudaMemcpyDeviceToDevice, m_stream);
}

trial::trial_response norm_trial_runner::run(const trial::trial_request& request) {
  trial::trial_response r;
  const auto type = parse_dtype(request.dtype);
  kn::norm_config config;
  if (!type || !parse_config(request.config, m_kind, *type, config, r.message)) {
    r.status = "launch_error";
    if (!type) r.message = fmt::format("unknown dtype \"{}\"", request.dtype);
    return r;
  }
  const long long rows = request.dims.at("rows").get<long long>();
  const long long cols = request.dims.at("cols").get<long long>();
  const bool residual = m_kind == kn::norm_kind::rmsnorm && request.dims.value("residual", 0LL) != 0;

  const void* function = trial::load_kernel(m_cubins, request, r);
  if (!function) return r;
  kn::device_limits limits;
  if (auto e = kn::query_limits(m_device, limits); e != cudaSuccess) return trial::trial_failure(e, "the device query");
  kn::launch_plan plan;
  if (auto reason = kn::plan_launch(config, rows, cols, limits, plan); !reason.empty()) {
    return trial::trial_ended("unsupported", reason);
  }
  if (auto e = prepare_problem(*type, rows, cols, residual, request.seed); e != cudaSuccess)
    return trial::trial_failure(e, "input preparation");

  const auto& b = m_problem;
  const dtype t = *type;
  const double tol = reference::norm_tolerance(t, cols);
  const kn::norm_args args{b.x,  b.y,  b.weight, b.bias, b.residual_work, nullptr, nullptr, rows,
                           cols, cols, cols,     cols,   eps_of(m_kind)};
  const auto launch = [&](cudaStream_t s) { return kn::launch(function, plan, args, s); };
  if (residual) {
    // The residual's written-back sum first: the element type's rounding of x + residual, exactly.
    reference::compare_result cmp;
    cudaError_t e = restore_residual();
    if (e == cudaSuccess) e = launch(m_stream);
    if (e == cudaSuccess)
      e = reference::compare_softmax(t, b.residual_work, rows, cols, cols, b.reference_residual, 0.0, 0.0, &cmp,
                                     m_stream);
    if (e != cudaSuccess) return trial::trial_failure(e, "the residual check");
    if (cmp.bad > 0) {
      return trial::trial_ended("wrong_answer",
                                fmt::format("residual + x written back wrong at row {} column {} ({} bad elements)",
                                            cmp.first_bad_row, cmp.first_bad_col, cmp.bad));
    }
    if (auto e2 = restore_residual(); e2 != cudaSuccess) return trial::trial_failure(e2, "the residual restore");
  }
  output_check check{t, b.y, cols, rows, cols, b.reference, tol, tol};
  check.compare = [&](reference::compare_result& cmp, cudaStream_t s) {
    return reference::compare_softmax(t, b.y, rows, cols, cols, b.reference, tol, tol, &cmp, s);
  };
  // Short kernels are timed as graphs over rotated copies of the row data: every launch reads the
  // same kind of values from its own cold buffers. The residual keeps growing by x (in f16 it
  // reaches inf after tens of thousands of launches of one set; the kernels do the same work on
  // any value). The weight and bias are shared, as a model's layer shares them.
  const std::size_t tensor_bytes = static_cast<std::size_t>(rows * cols) * size_of(t);
  std::vector<trial::buffer_sets::buffer> buffers = {{b.x, tensor_bytes, true}, {b.y, tensor_bytes, false}};
  if (residual) buffers.push_back({b.residual_work, tensor_bytes, true});
  const auto rotation = rotate_buffers(m_sets, buffers, m_stream, [&](const std::vector<void*>& set, cudaStream_t s) {
    auto a = args;
    a.x = set[0];
    a.y = set[1];
    if (residual) a.residual = set[2];
    return kn::launch(function, plan, a, s);
  });
  return verify_then_time(
      launch, check, [](long long row, long long col) { return fmt::format("row {} column {}", row, col); }, request,
      m_tools, m_stream, &rotation);
}

}  // namespace cuop::ops
