// Picks a softmax configuration from the emitted table and launches it.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "cuop/detail/memory_ranges.hpp"
#include "cuop/generated/softmax_dispatch.hpp"
#include "cuop/kernels/softmax/launch.hpp"
#include "cuop/softmax.hpp"
#include "dispatch_common.hpp"

namespace cuop::generated {
extern const void* const softmax_kernels[];
}

namespace cuop {

namespace ks = kernels::softmax;

namespace {

using dispatch::current_device;
using dispatch::device_state;
using dispatch::to_status;

struct selection {
  const detail::softmax_entry* entry = nullptr;
  ks::launch_plan plan;
  bool same_gpu = false;
  bool at_anchor = false;  // the call's shape is one the model was measured at
};

status limits_for(int device, const detail::softmax_entry& e, ks::device_limits& limits) {
  // Occupancy depends only on the kernel and its block: cache it per (device, kernel).
  static std::mutex m;
  static std::map<std::pair<int, int>, ks::device_limits> cache;
  std::lock_guard lock(m);
  const auto key = std::make_pair(device, e.kernel);
  if (auto it = cache.find(key); it != cache.end()) {
    limits = it->second;
    return status::success;
  }
  if (auto err = ks::query_limits(device, generated::softmax_kernels[e.kernel], e.config, limits); err != cudaSuccess)
    return to_status(err);
  cache.emplace(key, limits);
  return status::success;
}

// Rows exactly cols elements apart in both operands: one contiguous range, as row_tile wants it.
bool contiguous_rows(const softmax_problem& p) {
  return (p.in_stride == 0 || p.in_stride == p.cols) && (p.out_stride == 0 || p.out_stride == p.cols);
}

// The model's confident choice (docs/dispatch.md), else the default rule's configuration, else
// the first default-rule configuration of the dtype that can run the call. row_tile serves only
// contiguous calls: its strided path goes element by element.
status select_uncached(const softmax_problem& p, selection& out) {
  int device = 0;
  device_state dev;
  if (auto s = current_device(device, dev); s != status::success) return s;
  const int arch = dispatch::table_arch_for(generated::softmax_table, dev.cc,
                                            generated::softmax_arch_specific);  // else the newest older one
  if (arch == 0) return status::no_kernel_image;
  const bool contiguous = contiguous_rows(p);
  const auto runs = [&](const detail::softmax_entry& e) {
    if (!contiguous && e.config.fam == ks::family::row_tile) return false;
    ks::device_limits limits;
    ks::launch_plan plan;
    if (limits_for(device, e, limits) != status::success) return false;
    // The table's code is its architecture's (on a newer GPU, through its SASS or PTX): a family
    // newer than that architecture has no body there (emit), whatever the GPU could run.
    limits.sm = std::min(limits.sm, arch);
    if (!ks::plan_launch(e.config, p.rows, p.cols, limits, plan).empty()) return false;
    out = {&e, plan, std::strcmp(e.gpu, dev.name) == 0, false};
    return true;
  };
  const auto* model = dispatch::model_for(generated::softmax_models, generated::softmax_model_count, arch, dev.name,
                                          [&](const detail::softmax_model& m) { return m.type == p.type; });
  if (model && p.policy == choice_policy::tuned) {
    double query[detail::softmax_feature_count];
    detail::softmax_features(p.rows, p.cols, query);
    const int* columns = generated::softmax_model_columns + model->m.first_column;
    const auto view = detail::view_of(model->m, detail::softmax_feature_count, generated::softmax_model_features,
                                      generated::softmax_model_speedups, generated::softmax_model_trusted);
    bool at_anchor = false;
    const int c = detail::nearest_choice(
        view, query, [&](int c) { return runs(generated::softmax_table[columns[c]]); }, -1, &at_anchor);
    if (c >= 0 && runs(generated::softmax_table[columns[c]])) {
      out.at_anchor = at_anchor;
      return status::success;
    }
  }
  const auto rule = ks::instance_name(ks::default_config(p.type, p.rows, p.cols, contiguous));
  const auto is_default = [&](const detail::softmax_entry& e) {
    return e.arch == arch && e.type == p.type && e.source == detail::entry_source::fallback;
  };
  for (const auto& e : generated::softmax_table)
    if (is_default(e) && rule == e.instance && runs(e)) return status::success;
  for (const auto& e : generated::softmax_table)
    if (is_default(e) && runs(e)) return status::success;
  return status::unsupported;
}

// The choice depends only on the device, the call's dtype and shape, and whether its rows are
// contiguous: made once, then looked up, so a call costs one map lookup instead of a walk over the
// table with occupancy queries.
status select(const softmax_problem& p, selection& out) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return status::cuda_error;
  using key_t = std::tuple<int, dtype, long long, long long, choice_policy, bool>;
  return dispatch::cached_choice(key_t{device, p.type, p.rows, p.cols, p.policy, contiguous_rows(p)}, out,
                                 [&p](const key_t&, selection& s) { return select_uncached(p, s); });
}

bool known_type(dtype t) { return t == dtype::f32 || t == dtype::f16 || t == dtype::bf16; }

bool known_policy(choice_policy c) { return c == choice_policy::tuned || c == choice_policy::baseline; }

// The call's arguments, before anything is looked up or enqueued: pointers aligned to the element
// type (the kernels read single elements at least), strides that hold a row, operands whose span
// fits the kernels' 64-bit offsets, and in and out apart (a row is read more than once by some
// families, so no element of out may alias one of in, in place included).
status check_arguments(const softmax_problem& p, const void* in, const void* out) {
  if (!in || !out || p.rows < 0 || p.cols < 0 || !known_type(p.type) || !known_policy(p.policy))
    return status::invalid_argument;
  const long long in_stride = p.in_stride ? p.in_stride : p.cols;
  const long long out_stride = p.out_stride ? p.out_stride : p.cols;
  if (in_stride < p.cols || out_stride < p.cols) return status::invalid_argument;
  const std::size_t elem = size_of(p.type);
  if (detail::alignment_of(in) < elem || detail::alignment_of(out) < elem) return status::invalid_argument;
  detail::strided_range ri, ro;
  if (!detail::make_range(in, p.rows, p.cols, in_stride, elem, ri) ||
      !detail::make_range(out, p.rows, p.cols, out_stride, elem, ro) || detail::overlaps(ri, ro))
    return status::invalid_argument;
  return status::success;
}

}  // namespace

status softmax(const softmax_problem& p, const void* in, void* out, cudaStream_t stream) {
  if (auto s = check_arguments(p, in, out); s != status::success) return s;
  const long long in_stride = p.in_stride ? p.in_stride : p.cols;
  const long long out_stride = p.out_stride ? p.out_stride : p.cols;
  if (p.rows == 0 || p.cols == 0) return status::success;
  dispatch::stream_info si;
  if (auto s = dispatch::inspect_stream(stream, si); s != status::success) return s;
  selection sel;
  if (auto s = select(p, sel); s != status::success) return s;
  // split_row's barrier workspace: zeroed when allocated (at every replay under capture); the
  // kernel leaves it reusable.
  dispatch::call_buffers buffers(si);
  void* workspace = nullptr;
  if (sel.plan.workspace_bytes > 0)
    if (auto s = buffers.get(dispatch::buffer_purpose::softmax_split, sel.plan.workspace_bytes,
                             sel.plan.workspace_bytes, workspace);
        s != status::success)
      return s;
  const ks::softmax_args args{in, out, p.rows, p.cols, in_stride, out_stride, workspace};
  return buffers.finish(to_status(ks::launch(generated::softmax_kernels[sel.entry->kernel], sel.plan, args, stream)));
}

status softmax_which(const softmax_problem& p, softmax_choice& out) {
  if (p.rows < 1 || p.cols < 1 || !known_type(p.type) || !known_policy(p.policy)) return status::invalid_argument;
  selection sel;
  if (auto s = select(p, sel); s != status::success) return s;
  const auto& e = *sel.entry;
  out = dispatch::describe_choice(e, sel.same_gpu, sel.at_anchor, e.rows, e.cols);
  return status::success;
}

}  // namespace cuop
