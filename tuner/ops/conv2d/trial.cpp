#include "tuner/ops/conv2d/trial.hpp"

#include <fmt/format.h>

#include "cuop/kernels/conv/launch.hpp"
#include "cuop/reference/conv_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"  // fill_random
#include "tuner/ops/conv2d/conv2d_op.hpp"
#include "tuner/ops/conv2d/library.hpp"
#include "tuner/ops/params.hpp"
#include "tuner/ops/verified_timing.hpp"
#include "tuner/trial/cuda_errors.hpp"

namespace cuop::ops {

namespace kc = kernels::conv;

struct conv_trial_runner::problem_buffers {
  dtype type = dtype::f16;
  kc::conv_shape shape;
  std::string key;  // the problem, to reuse the buffers across its trials
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  float* reference = nullptr;
  ~problem_buffers() {
    cudaFree(x);
    cudaFree(w);
    cudaFree(y);
    cudaFree(reference);
  }
};

namespace {

long long x_count(const kc::conv_shape& sh) { return 1LL * sh.n * sh.c * sh.h * sh.w; }
long long w_count(const kc::conv_shape& sh) { return 1LL * sh.k * (sh.c / sh.groups) * sh.r * sh.s; }
long long y_count(const kc::conv_shape& sh) { return 1LL * sh.n * sh.k * sh.p() * sh.q(); }

catalog::dim_values dims_of(const nlohmann::json& j) {
  catalog::dim_values d;
  for (const auto& [name, value] : j.items()) d[name] = value.get<std::int64_t>();
  return d;
}

}  // namespace

conv_trial_runner::conv_trial_runner(int device, cudaStream_t stream, const measure::instruments& tools)
    : kernel_trial_runner(device, stream, tools) {}

conv_trial_runner::~conv_trial_runner() {
  m_library.reset();
  m_problem.reset();
}

cudaError_t conv_trial_runner::prepare_problem(dtype t, const kc::conv_shape& sh, std::uint64_t seed) {
  const std::string key = fmt::format("{}_{}", name_of(t), conv_problem_key(sh));
  if (m_problem && m_problem->key == key) return cudaSuccess;
  m_sets.release();  // copies of the old problem's values, even where new buffers reuse its addresses
  m_problem.reset();
  auto p = std::make_unique<problem_buffers>();
  p->type = t;
  p->shape = sh;
  p->key = key;
  const std::size_t es = size_of(t);
  if (auto e = cudaMalloc(&p->x, x_count(sh) * es); e != cudaSuccess) return e;
  if (auto e = cudaMalloc(&p->w, w_count(sh) * es); e != cudaSuccess) return e;
  if (auto e = cudaMalloc(&p->y, y_count(sh) * es); e != cudaSuccess) return e;
  if (auto e = cudaMalloc(reinterpret_cast<void**>(&p->reference), y_count(sh) * sizeof(float)); e != cudaSuccess)
    return e;
  // Random inputs in [-1, 1], never zeros: zeros hide unwritten outputs and run faster.
  if (auto e = reference::fill_random(t, p->x, x_count(sh), seed, -1.f, 1.f, m_stream); e != cudaSuccess) return e;
  if (auto e = reference::fill_random(t, p->w, w_count(sh), seed + 1, -1.f, 1.f, m_stream); e != cudaSuccess) return e;
  if (auto e = reference::conv2d_reference(t, sh, p->x, p->w, p->reference, m_stream); e != cudaSuccess) return e;
  if (auto e = cudaStreamSynchronize(m_stream); e != cudaSuccess) return e;
  m_problem = std::move(p);
  return cudaSuccess;
}

trial::trial_response conv_trial_runner::verify_and_time(const measure::launcher& launch, const set_launcher& on_set,
                                                         dtype t, const trial::trial_request& request) {
  const auto& p = *m_problem;
  const auto& sh = p.shape;
  const int last = sh.lay == kc::layout::nhwc ? sh.k : sh.q();  // the innermost dimension
  const output_check check{t,
                           p.y,
                           last,
                           static_cast<int>(y_count(sh) / last),
                           last,
                           p.reference,
                           reference::conv_atol(t, sh),
                           reference::conv_rtol(t)};
  // Short convolutions are timed in batches over copies of x and w (the same values) and outputs
  // of their own; the workspace is shared, as between consecutive single launches.
  const std::size_t es = size_of(t);
  const auto rotation = rotate_buffers(m_sets,
                                       {{p.x, static_cast<std::size_t>(x_count(sh)) * es, true},
                                        {p.w, static_cast<std::size_t>(w_count(sh)) * es, true},
                                        {p.y, static_cast<std::size_t>(y_count(sh)) * es, false}},
                                       m_stream, on_set);
  return verify_then_time(
      launch, check, [last](long long row, long long col) { return fmt::format("element {}", row * last + col); },
      request, m_tools, m_stream, &rotation);
}

conv_library& conv_trial_runner::library() {
  if (!m_library) m_library = std::make_unique<conv_library>();  // cuDNN's handle only when asked for
  return *m_library;
}

trial::trial_response conv_trial_runner::run(const trial::trial_request& request) {
  trial::trial_response r;
  const auto type = parse_dtype(request.dtype);
  if (!type) {
    return trial::trial_ended("launch_error", fmt::format("unknown dtype \"{}\"", request.dtype));
  }
  const kc::conv_shape sh = conv_shape_of(dims_of(request.dims));
  if (auto why = kc::check_shape(sh); !why.empty()) {
    return trial::trial_ended("unsupported", why);
  }
  if (auto e = prepare_problem(*type, sh, request.seed); e != cudaSuccess)
    return trial::trial_failure(e, "input preparation");
  const auto& p = *m_problem;

  if (request.cubin_path.empty()) {  // a cuDNN configuration
    conv_library_call call;
    if (auto why = library().prepare(*type, sh, request.config, call); !why.empty()) {
      return trial::trial_ended("unsupported", why);
    }
    if (auto e = m_workspace.prepare(call.workspace_bytes, m_stream); e != cudaSuccess)
      return trial::trial_failure(e, "workspace allocation");
    void* ws = m_workspace.data();
    return verify_and_time([&](cudaStream_t s) { return library().run(call, p.x, p.w, p.y, ws, s); },
                           [&](const std::vector<void*>& set, cudaStream_t s) {
                             return library().run(call, set[0], set[1], set[2], ws, s);
                           },
                           *type, request);
  }

  kc::depthwise_config config = kc::for_shape({}, *type, sh);
  if (request.config.value("family", "") != conv_depthwise_family) {
    return trial::trial_ended("launch_error",
                              fmt::format("unknown conv2d family \"{}\"", request.config.value("family", "")));
  }
  if (!set_request_params(
          config, request.config.at("params"),
          [](auto& cfg, const std::string& name, long long v) { return kc::set_param(cfg, name, v); }, r.message)) {
    r.status = "launch_error";
    return r;
  }
  const void* function = trial::load_kernel(m_cubins, request, r);
  if (!function) return r;
  kc::device_limits limits;
  if (auto e = kc::query_limits(m_device, limits); e != cudaSuccess) return trial::trial_failure(e, "the device query");
  kc::launch_plan plan;
  if (auto reason = kc::plan_launch(config, sh, limits, plan); !reason.empty()) {
    return trial::trial_ended("unsupported", reason);
  }
  // via_nhwc's NHWC copies of x and y, shared by the batched copies as cuDNN's workspace is.
  if (auto e = m_workspace.prepare(kc::workspace_bytes(config, sh), m_stream); e != cudaSuccess)
    return trial::trial_failure(e, "workspace allocation");
  void* ws = m_workspace.data();
  const kc::conv_args args{p.x,      p.w,      p.y,      sh.n,     sh.c,      sh.h,        sh.w,
                           sh.k,     sh.p(),   sh.q(),   sh.r,     sh.s,      sh.stride_h, sh.stride_w,
                           sh.pad_h, sh.pad_w, sh.dil_h, sh.dil_w, sh.groups, 1.f,         0.f};
  return verify_and_time([&](cudaStream_t s) { return kc::launch(config, function, plan, args, ws, s); },
                         [&](const std::vector<void*>& set, cudaStream_t s) {
                           auto a = args;
                           a.x = set[0];
                           a.w = set[1];
                           a.y = set[2];
                           return kc::launch(config, function, plan, a, ws, s);
                         },
                         *type, request);
}

nlohmann::json conv_trial_runner::list_library(const trial::trial_request& request) {
  const auto type = parse_dtype(request.dtype);
  if (!type) return {{"status", "error"}, {"message", fmt::format("unknown dtype \"{}\"", request.dtype)}};
  const kc::conv_shape sh = conv_shape_of(dims_of(request.dims));
  if (auto why = kc::check_shape(sh); !why.empty()) return {{"status", "error"}, {"message", why}};
  std::string message;
  auto configs = library().list(*type, sh, request.config, message);
  if (!message.empty() || configs.is_null())
    return {{"status", "error"}, {"message", message.empty() ? "nothing listed" : message}};
  return {{"status", "ok"}, {"configs", configs}};
}

}  // namespace cuop::ops
