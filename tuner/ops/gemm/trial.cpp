#include "tuner/ops/gemm/trial.hpp"

#include <fmt/format.h>

#include <map>

#include "cuop/kernels/gemm/launch.hpp"
#include "cuop/reference/gemm_reference.hpp"
#include "tuner/ops/gemm/library.hpp"
#include "tuner/ops/params.hpp"
#include "tuner/ops/verified_timing.hpp"
#include "tuner/trial/cuda_errors.hpp"

namespace cuop::ops {

namespace kg = kernels::gemm;

struct gemm_trial_runner::problem_buffers {
  dtype type = dtype::bf16;
  int m = 0, n = 0, k = 0;
  void* a = nullptr;  // m x k, row-major
  void* b = nullptr;  // n x k: column-major B
  void* d = nullptr;  // m x n, row-major
  float* reference = nullptr;
  ~problem_buffers() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
    cudaFree(reference);
  }
};

namespace {

bool parse_config(const nlohmann::json& j, dtype t, kg::gemm_config& c, std::string& message) {
  const auto family = j.at("family").get<std::string>();
  if (!kg::parse_family(family, c.fam)) {
    message = fmt::format("unknown gemm family \"{}\"", family);
    return false;
  }
  c.in = t;
  c.out = t;
  c.b = kg::b_layout::col;
  return set_request_params(
      c, j.at("params"), [](auto& cfg, const std::string& name, long long v) { return kg::set_param(cfg, name, v); },
      message);
}

}  // namespace

gemm_trial_runner::gemm_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools)
    : kernel_trial_runner(device, stream, tools), m_library(std::make_unique<gemm_library>()) {}

gemm_trial_runner::~gemm_trial_runner() {
  m_library.reset();
  m_problem.reset();
}

cudaError_t gemm_trial_runner::prepare_problem(dtype t, int m, int n, int k, std::uint64_t seed) {
  if (m_problem && m_problem->type == t && m_problem->m == m && m_problem->n == n && m_problem->k == k)
    return cudaSuccess;
  m_sets.release();  // copies of the old problem's values, even where new buffers reuse its addresses
  m_problem.reset();
  auto p = std::make_unique<problem_buffers>();
  const auto mk = static_cast<std::size_t>(m) * k, nk = static_cast<std::size_t>(n) * k,
             mn = static_cast<std::size_t>(m) * n;
  if (auto e = cudaMalloc(&p->a, mk * size_of(t)); e != cudaSuccess) return e;
  if (auto e = cudaMalloc(&p->b, nk * size_of(t)); e != cudaSuccess) return e;
  if (auto e = cudaMalloc(&p->d, mn * size_of(t)); e != cudaSuccess) return e;
  if (auto e = cudaMalloc(reinterpret_cast<void**>(&p->reference), mn * sizeof(float)); e != cudaSuccess) return e;
  p->type = t;
  p->m = m;
  p->n = n;
  p->k = k;
  // Random inputs in [-1, 1], never zeros: zeros hide unwritten outputs and run faster.
  if (auto e = reference::fill_random(t, p->a, static_cast<long long>(mk), seed, -1.f, 1.f, m_stream); e != cudaSuccess)
    return e;
  if (auto e = reference::fill_random(t, p->b, static_cast<long long>(nk), seed + 1, -1.f, 1.f, m_stream);
      e != cudaSuccess)
    return e;
  if (auto e = reference::gemm_reference(t, t, true, p->a, k, p->b, k, nullptr, n, m, n, k, 1.f, 0.f, p->reference,
                                         m_stream);
      e != cudaSuccess)
    return e;
  if (auto e = cudaStreamSynchronize(m_stream); e != cudaSuccess) return e;
  m_problem = std::move(p);
  return cudaSuccess;
}

trial::trial_response gemm_trial_runner::verify_and_time(const measure::launcher& launch, const set_launcher& on_set,
                                                         dtype t, const trial::trial_request& request) {
  const auto& p = *m_problem;
  const output_check check{
      t, p.d, p.n, p.m, p.n, p.reference, reference::gemm_atol(t, t, p.k), reference::gemm_rtol(t)};
  // Short GEMMs (decode shapes) are timed in batches over copies of A and B (the same values) and
  // outputs of their own; the workspace is shared, as between consecutive single launches.
  const auto es = size_of(t);
  const auto rotation = rotate_buffers(m_sets,
                                       {{p.a, static_cast<std::size_t>(p.m) * p.k * es, true},
                                        {p.b, static_cast<std::size_t>(p.n) * p.k * es, true},
                                        {p.d, static_cast<std::size_t>(p.m) * p.n * es, false}},
                                       m_stream, on_set);
  return verify_then_time(
      launch, check, [](long long row, long long col) { return fmt::format("row {} column {}", row, col); }, request,
      m_tools, m_stream, &rotation);
}

trial::trial_response gemm_trial_runner::run(const trial::trial_request& request) {
  trial::trial_response r;
  const auto type = parse_dtype(request.dtype);
  if (!type || *type == dtype::f32) {
    return trial::trial_ended("launch_error", fmt::format("gemm takes f16 or bf16, not \"{}\"", request.dtype));
  }
  const int m = request.dims.at("m").get<int>();
  const int n = request.dims.at("n").get<int>();
  const int k = request.dims.at("k").get<int>();
  if (auto e = prepare_problem(*type, m, n, k, request.seed); e != cudaSuccess)
    return trial::trial_failure(e, "input preparation");
  const auto& p = *m_problem;
  const kg::gemm_args args{p.a, p.b, nullptr, p.d, m, n, k, k, k, n, n, 1.f, 0.f, nullptr};

  if (request.cubin_path.empty()) {  // a library configuration
    library_call call;
    if (auto why = m_library->prepare(*type, m, n, k, request.config, call); !why.empty()) {
      return trial::trial_ended("unsupported", why);
    }
    if (auto e = m_workspace.prepare(call.workspace_bytes, m_stream); e != cudaSuccess)
      return trial::trial_failure(e, "workspace allocation");
    void* ws = m_workspace.data();
    const std::size_t ws_bytes = m_workspace.bytes();
    return verify_and_time([&](cudaStream_t s) { return m_library->run(call, args, ws, ws_bytes, s); },
                           [&](const std::vector<void*>& set, cudaStream_t s) {
                             auto a = args;
                             a.a = set[0];
                             a.b = set[1];
                             a.d = set[2];
                             return m_library->run(call, a, ws, ws_bytes, s);
                           },
                           *type, request);
  }

  kg::gemm_config config;
  if (!parse_config(request.config, *type, config, r.message)) {
    r.status = "launch_error";
    return r;
  }
  const void* function = trial::load_kernel(m_cubins, request, r);
  if (!function) return r;
  kg::device_limits limits;
  if (auto e = kg::query_limits(m_device, limits); e != cudaSuccess) return trial::trial_failure(e, "the device query");
  kg::launch_plan plan;
  if (auto reason = kg::plan_launch(config, m, n, k, limits, plan); !reason.empty()) {
    return trial::trial_ended("unsupported", reason);
  }
  if (auto e = m_workspace.prepare(plan.workspace_bytes, m_stream); e != cudaSuccess)
    return trial::trial_failure(e, "workspace allocation");
  auto run_args = args;
  run_args.workspace = m_workspace.data();
  return verify_and_time([&](cudaStream_t s) { return kg::launch(config, function, plan, run_args, s); },
                         [&](const std::vector<void*>& set, cudaStream_t s) {
                           auto a = run_args;
                           a.a = set[0];
                           a.b = set[1];
                           a.d = set[2];
                           return kg::launch(config, function, plan, a, s);
                         },
                         *type, request);
}

nlohmann::json gemm_trial_runner::list_library(const trial::trial_request& request) {
  const auto type = parse_dtype(request.dtype);
  if (!type || *type == dtype::f32)
    return {{"status", "error"}, {"message", fmt::format("gemm takes f16 or bf16, not \"{}\"", request.dtype)}};
  std::string message;
  auto configs = m_library->list(*type, request.dims.at("m").get<int>(), request.dims.at("n").get<int>(),
                                 request.dims.at("k").get<int>(), request.config, message);
  if (!message.empty()) return {{"status", "error"}, {"message", message}};
  return {{"status", "ok"}, {"configs", configs}};
}

}  // namespace cuop::ops
