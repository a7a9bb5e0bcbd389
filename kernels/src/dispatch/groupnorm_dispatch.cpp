// Runs GroupNorm with the default rule's configuration (no tuned table yet: docs/norm.md).
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "../groupnorm/default_kernels.hpp"
#include "cuop/detail/memory_ranges.hpp"
#include "cuop/groupnorm.hpp"
#include "cuop/kernels/groupnorm/launch.hpp"
#include "cuop/kernels/norm/launch.hpp"
#include "dispatch_common.hpp"

namespace cuop {

namespace kg = kernels::groupnorm;

namespace {

using dispatch::to_status;

struct selection {
  int entry = -1;  // into kg::default_kernels
  kg::launch_plan plan;
};

// The instance names of default_kernels, in its order (which hands out pointers into them).
const std::vector<std::string>& instance_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (int i = 0; i < kg::default_kernel_count; ++i) out.push_back(kg::instance_name(kg::default_kernels[i].config));
    return out;
  }();
  return names;
}

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

status select_uncached(const groupnorm_problem& p, selection& out) {
  int device = 0;
  dispatch::device_state dev;
  if (auto s = dispatch::current_device(device, dev); s != status::success) return s;
  if (dev.cc < 80) return status::no_kernel_image;
  kg::device_limits limits;
  if (auto err = kernels::norm::query_limits(device, limits); err != cudaSuccess) return to_status(err);
  const auto shape = shape_of(p);
  const auto rule = kg::instance_name(kg::default_config(p.type, p.layout, p.silu, shape));
  for (int i = 0; i < kg::default_kernel_count; ++i) {
    if (instance_names()[static_cast<std::size_t>(i)] != rule) continue;
    if (!kg::plan_launch(kg::default_kernels[i].config, shape, limits, out.plan).empty()) return status::unsupported;
    out.entry = i;
    return status::success;
  }
  return status::unsupported;
}

status select(const groupnorm_problem& p, selection& out) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return status::cuda_error;
  using key_t = std::tuple<int, dtype, kg::layout, bool, long long, long long, long long, long long>;
  const key_t key{device, p.type, p.layout, p.silu, p.n, p.c, p.h * p.w, p.groups};
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
  return to_status(kg::launch(kg::default_kernels[sel.entry].kernel, sel.plan, args, stream));
}

status groupnorm_which(const groupnorm_problem& p, norm_choice& out) {
  if (!valid_shape(p) || p.n < 1 || p.h < 1 || p.w < 1) return status::invalid_argument;
  selection sel;
  if (auto s = select(p, sel); s != status::success) return s;
  out = {};
  out.instance = instance_names()[static_cast<std::size_t>(sel.entry)].c_str();
  out.source = "default";
  out.gpu = "";
  return status::success;
}

}  // namespace cuop
