// Picks a GroupNorm configuration from the emitted table and launches it.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <tuple>
#include <vector>

#include "cuop/detail/memory_ranges.hpp"
#include "cuop/generated/groupnorm_dispatch.hpp"
#include "cuop/groupnorm.hpp"
#include "cuop/kernels/groupnorm/launch.hpp"
#include "cuop/kernels/norm/launch.hpp"
#include "dispatch_common.hpp"

namespace cuop::generated {
extern const void* const groupnorm_kernels[];
}  // namespace cuop::generated

namespace cuop {

namespace kg = kernels::groupnorm;

namespace {

using dispatch::to_status;

struct selection {
  const detail::groupnorm_entry* entry = nullptr;
  kg::launch_plan plan;
  bool same_gpu = false;
  bool at_anchor = false;
};

kg::groupnorm_shape shape_of(const groupnorm_problem& p) { return {p.n, p.c, p.h * p.w, p.groups}; }

bool known(const groupnorm_problem& p) {
  const bool type = p.type == dtype::f32 || p.type == dtype::f16 || p.type == dtype::bf16;
  const bool layout = p.layout == kg::layout::nchw || p.layout == kg::layout::nhwc;
  const bool policy = p.policy == choice_policy::tuned || p.policy == choice_policy::baseline;
  return type && layout && policy;
}

// The shape is well formed (h x w past 2^62 counts as malformed before it is multiplied).
bool valid_shape(const groupnorm_problem& p) {
  if (p.n < 0 || p.h < 0 || p.w < 0 || !known(p)) return false;
  if (p.h > 0 && p.w > (1LL << 62) / p.h) return false;
  return kg::check_shape(shape_of(p)).empty();
}

// The model's confident choice (docs/dispatch.md), else the default rule's configuration, else
// the first default-rule configuration of the call's dtype, layout and SiLU that can run it.
status select_uncached(const groupnorm_problem& p, selection& out) {
  namespace g = generated;
  int device = 0;
  dispatch::device_state dev;
  if (auto s = dispatch::current_device(device, dev); s != status::success) return s;
  const auto entries = std::span(g::groupnorm_table, static_cast<std::size_t>(g::groupnorm_table_size));
  const int arch = dispatch::table_arch_for(entries, dev.cc, g::groupnorm_arch_specific);
  if (arch == 0) return status::no_kernel_image;
  kg::device_limits limits;
  if (auto err = kernels::norm::query_limits(device, limits); err != cudaSuccess) return to_status(err);
  limits.sm = std::min(limits.sm, arch);
  const auto shape = shape_of(p);
  const auto runs = [&](const detail::groupnorm_entry& e) {
    kg::launch_plan plan;
    if (!kg::plan_launch(e.config, shape, limits, plan).empty()) return false;
    out = {&e, plan, std::strcmp(e.gpu, dev.name) == 0, false};
    return true;
  };
  const auto* model = dispatch::model_for(
      g::groupnorm_models, g::groupnorm_model_count, arch, dev.name,
      [&](const detail::groupnorm_model& m) { return m.type == p.type && m.lay == p.layout && m.silu == p.silu; });
  if (model && p.policy == choice_policy::tuned) {
    double query[detail::groupnorm_feature_count];
    detail::groupnorm_features(p.n * p.groups, p.c / p.groups, shape.hw, query);
    const int* columns = g::groupnorm_model_columns + model->m.first_column;
    const auto view = detail::view_of(model->m, detail::groupnorm_feature_count, g::groupnorm_model_features,
                                      g::groupnorm_model_speedups, g::groupnorm_model_trusted);
    bool at_anchor = false;
    const int k = detail::nearest_choice(
        view, query, [&](int k) { return runs(g::groupnorm_table[columns[k]]); }, -1, &at_anchor);
    if (k >= 0 && runs(g::groupnorm_table[columns[k]])) {
      out.at_anchor = at_anchor;
      return status::success;
    }
  }
  const auto rule = kg::instance_name(kg::default_config(p.type, p.layout, p.silu, shape, limits.sm));
  const auto is_default = [&](const detail::groupnorm_entry& e) {
    return e.arch == arch && e.type == p.type && e.lay == p.layout && e.silu == p.silu &&
           e.source == detail::entry_source::fallback;
  };
  for (const auto& e : entries)
    if (is_default(e) && rule == e.instance && runs(e)) return status::success;
  for (const auto& e : entries)
    if (is_default(e) && runs(e)) return status::success;
  return status::unsupported;
}

status select(const groupnorm_problem& p, selection& out) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return status::cuda_error;
  using key_t = std::tuple<int, dtype, kg::layout, bool, long long, long long, long long, long long, choice_policy>;
  const key_t key{device, p.type, p.layout, p.silu, p.n, p.c, p.h * p.w, p.groups, p.policy};
  return dispatch::cached_choice(key, out, [&p](const key_t&, selection& s) { return select_uncached(p, s); });
}

// Null x or y, a malformed shape, pointers off their element size, eps negative or not finite,
// and any overlap but y == x (each element is read, then written by the thread that read it).
status check_arguments(const groupnorm_problem& p, const void* x, const void* weight, const void* bias, const void* y,
                       const float* mean, const float* rstd) {
  if (!x || !y || !valid_shape(p) || !std::isfinite(p.eps) || p.eps < 0) return status::invalid_argument;
  const std::size_t elem = size_of(p.type);
  for (const void* q : {x, y, weight, bias})
    if (q && detail::alignment_of(q) < elem) return status::invalid_argument;
  for (const float* q : {mean, rstd})
    if (q && detail::alignment_of(q) < sizeof(float)) return status::invalid_argument;
  std::vector<detail::operand_range> spans;
  const auto add = [&](const void* q, long long count, std::size_t size, bool written) {
    if (!q || count == 0) return true;
    detail::strided_range range;
    if (!detail::make_range(q, 1, count, count, size, range)) return false;
    spans.push_back({range, written});
    return true;
  };
  const long long elements = p.n * p.c * p.h * p.w, stats = p.n * p.groups;
  if (!add(x, elements, elem, y == x) || (y != x && !add(y, elements, elem, true)) || !add(weight, p.c, elem, false) ||
      !add(bias, p.c, elem, false) || !add(mean, stats, sizeof(float), true) || !add(rstd, stats, sizeof(float), true))
    return status::invalid_argument;
  return detail::written_overlap(spans) ? status::invalid_argument : status::success;
}

}  // namespace

status groupnorm(const groupnorm_problem& p, const void* x, const void* weight, const void* bias, void* y, float* mean,
                 float* rstd, cudaStream_t stream) {
  if (auto s = check_arguments(p, x, weight, bias, y, mean, rstd); s != status::success) return s;
  if (p.n == 0 || p.h == 0 || p.w == 0) return status::success;
  dispatch::stream_info si;
  if (auto s = dispatch::inspect_stream(stream, si); s != status::success) return s;
  selection sel;
  if (auto s = select(p, sel); s != status::success) return s;
  const kg::groupnorm_args args{x, y, weight, bias, mean, rstd, p.n, p.c, p.h * p.w, static_cast<int>(p.groups), p.eps};
  return to_status(kg::launch(generated::groupnorm_kernels[sel.entry->kernel], sel.plan, args, stream));
}

status groupnorm_which(const groupnorm_problem& p, norm_choice& out) {
  if (!valid_shape(p) || p.n < 1 || p.h < 1 || p.w < 1) return status::invalid_argument;
  selection sel;
  if (auto s = select(p, sel); s != status::success) return s;
  const auto& e = *sel.entry;
  out = dispatch::describe_choice(e, sel.same_gpu, sel.at_anchor, e.n * e.groups, e.groups ? e.c / e.groups * e.hw : 0);
  return status::success;
}

}  // namespace cuop
