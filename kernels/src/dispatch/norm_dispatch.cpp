// Picks a LayerNorm or RMSNorm configuration from the emitted tables and launches it.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "cuop/detail/memory_ranges.hpp"
#include "cuop/generated/layernorm_dispatch.hpp"
#include "cuop/generated/rmsnorm_dispatch.hpp"
#include "cuop/kernels/norm/launch.hpp"
#include "cuop/norm.hpp"
#include "dispatch_common.hpp"

namespace cuop::generated {
extern const void* const layernorm_kernels[];
extern const void* const rmsnorm_kernels[];
}  // namespace cuop::generated

namespace cuop {

namespace kn = kernels::norm;

namespace {

using dispatch::to_status;

// One kind's emitted arrays.
struct table_view {
  const detail::norm_entry* entries;
  int size;
  const detail::norm_model* models;
  int model_count;
  const double* features;
  const float* speedups;
  const int* columns;
  const unsigned char* trusted;
  const void* const* kernels;
  bool (*arch_specific)(int) noexcept;
};

const table_view& table_of(kn::norm_kind k) {
  namespace g = generated;
  static const table_view layernorm{
      g::layernorm_table,          g::layernorm_table_size,     g::layernorm_models,        g::layernorm_model_count,
      g::layernorm_model_features, g::layernorm_model_speedups, g::layernorm_model_columns, g::layernorm_model_trusted,
      g::layernorm_kernels,        g::layernorm_arch_specific};
  static const table_view rmsnorm{g::rmsnorm_table,         g::rmsnorm_table_size,     g::rmsnorm_models,
                                  g::rmsnorm_model_count,   g::rmsnorm_model_features, g::rmsnorm_model_speedups,
                                  g::rmsnorm_model_columns, g::rmsnorm_model_trusted,  g::rmsnorm_kernels,
                                  g::rmsnorm_arch_specific};
  return k == kn::norm_kind::layernorm ? layernorm : rmsnorm;
}

// A call's shape as the choice sees it.
struct call_shape {
  kn::norm_kind kind;
  dtype type;
  long long rows, cols;
  bool residual;
  choice_policy policy;
};

struct selection {
  const detail::norm_entry* entry = nullptr;
  kn::launch_plan plan;
  bool same_gpu = false;
  bool at_anchor = false;
};

status limits_for(int device, kn::device_limits& limits) {
  static std::mutex m;
  static std::map<int, kn::device_limits> cache;
  std::lock_guard lock(m);
  if (auto it = cache.find(device); it != cache.end()) {
    limits = it->second;
    return status::success;
  }
  if (auto err = kn::query_limits(device, limits); err != cudaSuccess) return to_status(err);
  cache.emplace(device, limits);
  return status::success;
}

// The model's confident choice (docs/dispatch.md), else the default rule's configuration, else
// the first default-rule configuration of the dtype that can run the call.
status select_uncached(const call_shape& c, selection& out) {
  int device = 0;
  dispatch::device_state dev;
  if (auto s = dispatch::current_device(device, dev); s != status::success) return s;
  const table_view& t = table_of(c.kind);
  const auto entries = std::span(t.entries, static_cast<std::size_t>(t.size));
  const int arch = dispatch::table_arch_for(entries, dev.cc, t.arch_specific);
  if (arch == 0) return status::no_kernel_image;
  kn::device_limits limits;
  if (auto s = limits_for(device, limits); s != status::success) return s;
  limits.sm = std::min(limits.sm, arch);
  const auto runs = [&](const detail::norm_entry& e) {
    kn::launch_plan plan;
    if (!kn::plan_launch(e.config, c.rows, c.cols, limits, plan).empty()) return false;
    out = {&e, plan, std::strcmp(e.gpu, dev.name) == 0, false};
    return true;
  };
  const auto* model = dispatch::model_for(t.models, t.model_count, arch, dev.name, [&](const detail::norm_model& m) {
    return m.type == c.type && m.residual == c.residual;
  });
  if (model && c.policy == choice_policy::tuned) {
    double query[detail::norm_feature_count];
    detail::norm_features(c.rows, c.cols, query);
    const int* columns = t.columns + model->m.first_column;
    const auto view = detail::view_of(model->m, detail::norm_feature_count, t.features, t.speedups, t.trusted);
    bool at_anchor = false;
    const int k = detail::nearest_choice(
        view, query, [&](int k) { return runs(t.entries[columns[k]]); }, -1, &at_anchor);
    if (k >= 0 && runs(t.entries[columns[k]])) {
      out.at_anchor = at_anchor;
      return status::success;
    }
  }
  const auto rule = kn::instance_name(kn::default_config(c.kind, c.type, c.rows, c.cols, c.residual));
  const auto is_default = [&](const detail::norm_entry& e) {
    return e.arch == arch && e.type == c.type && e.source == detail::entry_source::fallback;
  };
  for (const auto& e : entries)
    if (is_default(e) && rule == e.instance && runs(e)) return status::success;
  for (const auto& e : entries)
    if (is_default(e) && runs(e)) return status::success;
  return status::unsupported;
}

status select(const call_shape& c, selection& out) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return status::cuda_error;
  using key_t = std::tuple<int, kn::norm_kind, dtype, long long, long long, bool, choice_policy>;
  return dispatch::cached_choice(key_t{device, c.kind, c.type, c.rows, c.cols, c.residual, c.policy}, out,
                                 [&c](const key_t&, selection& s) { return select_uncached(c, s); });
}

bool known_type(dtype t) { return t == dtype::f32 || t == dtype::f16 || t == dtype::bf16; }
bool known_policy(choice_policy c) { return c == choice_policy::tuned || c == choice_policy::baseline; }

// A call's operands as the checks see them: each tensor's span, and the vectors and statistics.
struct operands {
  const void* x;
  void* y;
  void* residual;  // null: none
  const void* weight;
  const void* bias;
  float* mean;
  float* rstd;
  long long x_stride, y_stride, residual_stride;
};

// Null x or y, strides below cols, pointers off their element size, eps negative or not finite,
// operands past the kernels' 64-bit offsets, and any overlap but y == x (every family reads an
// element before it writes it, and only the thread that read it writes it).
status check_arguments(dtype type, long long rows, long long cols, float eps, choice_policy policy, const operands& o) {
  if (!o.x || !o.y || rows < 0 || cols < 0 || !known_type(type) || !known_policy(policy))
    return status::invalid_argument;
  if (!std::isfinite(eps) || eps < 0) return status::invalid_argument;
  if (o.x_stride < cols || o.y_stride < cols || (o.residual && o.residual_stride < cols))
    return status::invalid_argument;
  const std::size_t elem = size_of(type);
  for (const void* p : {o.x, static_cast<const void*>(o.y), static_cast<const void*>(o.residual), o.weight, o.bias})
    if (p && detail::alignment_of(p) < elem) return status::invalid_argument;
  for (const float* p : {o.mean, o.rstd})
    if (p && detail::alignment_of(p) < sizeof(float)) return status::invalid_argument;
  // Read-only operands (x unless in place, weight, bias) may share bytes with each other; what is
  // written may share none with anything else.
  std::vector<detail::operand_range> spans;
  const auto add = [&](const void* p, long long r, long long c, long long ld, std::size_t size, bool written) {
    if (!p) return true;
    detail::strided_range range;
    if (!detail::make_range(p, r, c, ld, size, range)) return false;
    spans.push_back({range, written});
    return true;
  };
  const bool in_place = o.y == o.x && o.y_stride == o.x_stride;
  if (!add(o.x, rows, cols, o.x_stride, elem, in_place) ||
      (!in_place && !add(o.y, rows, cols, o.y_stride, elem, true)) ||
      !add(o.residual, rows, cols, o.residual_stride, elem, true) || !add(o.weight, 1, cols, cols, elem, false) ||
      !add(o.bias, 1, cols, cols, elem, false) || !add(o.mean, 1, rows, rows, sizeof(float), true) ||
      !add(o.rstd, 1, rows, rows, sizeof(float), true))
    return status::invalid_argument;
  return detail::written_overlap(spans) ? status::invalid_argument : status::success;
}

status run(const call_shape& c, const kn::norm_args& args, cudaStream_t stream) {
  if (c.rows == 0 || c.cols == 0) return status::success;
  dispatch::stream_info si;
  if (auto s = dispatch::inspect_stream(stream, si); s != status::success) return s;
  selection sel;
  if (auto s = select(c, sel); s != status::success) return s;
  return to_status(kn::launch(table_of(c.kind).kernels[sel.entry->kernel], sel.plan, args, stream));
}

status which(const call_shape& c, norm_choice& out) {
  if (c.rows < 1 || c.cols < 1 || !known_type(c.type) || !known_policy(c.policy)) return status::invalid_argument;
  selection sel;
  if (auto s = select(c, sel); s != status::success) return s;
  const auto& e = *sel.entry;
  out = dispatch::describe_choice(e, sel.same_gpu, sel.at_anchor, e.rows, e.cols);
  return status::success;
}

long long or_cols(long long stride, long long cols) { return stride ? stride : cols; }

status rms(const rmsnorm_problem& p, const void* x, void* residual, const void* weight, void* y, float* rstd,
           cudaStream_t stream) {
  const operands o{x,
                   y,
                   residual,
                   weight,
                   nullptr,
                   nullptr,
                   rstd,
                   or_cols(p.x_stride, p.cols),
                   or_cols(p.y_stride, p.cols),
                   or_cols(p.residual_stride, p.cols)};
  if (auto s = check_arguments(p.type, p.rows, p.cols, p.eps, p.policy, o); s != status::success) return s;
  const kn::norm_args args{x,      y,      weight,     nullptr,    residual,          nullptr, rstd,
                           p.rows, p.cols, o.x_stride, o.y_stride, o.residual_stride, p.eps};
  return run({kn::norm_kind::rmsnorm, p.type, p.rows, p.cols, residual != nullptr, p.policy}, args, stream);
}

}  // namespace

status layernorm(const layernorm_problem& p, const void* x, const void* weight, const void* bias, void* y, float* mean,
                 float* rstd, cudaStream_t stream) {
  const operands o{x, y, nullptr, weight, bias, mean, rstd, or_cols(p.x_stride, p.cols), or_cols(p.y_stride, p.cols),
                   0};
  if (auto s = check_arguments(p.type, p.rows, p.cols, p.eps, p.policy, o); s != status::success) return s;
  const kn::norm_args args{x, y, weight, bias, nullptr, mean, rstd, p.rows, p.cols, o.x_stride, o.y_stride, 0, p.eps};
  return run({kn::norm_kind::layernorm, p.type, p.rows, p.cols, false, p.policy}, args, stream);
}

status rmsnorm(const rmsnorm_problem& p, const void* x, const void* weight, void* y, float* rstd, cudaStream_t stream) {
  return rms(p, x, nullptr, weight, y, rstd, stream);
}

status add_rmsnorm(const rmsnorm_problem& p, const void* x, void* residual, const void* weight, void* y, float* rstd,
                   cudaStream_t stream) {
  if (!residual) return status::invalid_argument;
  return rms(p, x, residual, weight, y, rstd, stream);
}

status layernorm_which(const layernorm_problem& p, norm_choice& out) {
  return which({kn::norm_kind::layernorm, p.type, p.rows, p.cols, false, p.policy}, out);
}

status rmsnorm_which(const rmsnorm_problem& p, bool residual, norm_choice& out) {
  return which({kn::norm_kind::rmsnorm, p.type, p.rows, p.cols, residual, p.policy}, out);
}

}  // namespace cuop
