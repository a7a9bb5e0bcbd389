// Picks a conv2d choice from the emitted table (our depthwise kernel, a cuDNN engine configuration
// rebuilt from its identifier, cuDNN's heuristic, or our cuFFT convolution) and runs it.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cuop/backends/fft_conv.hpp"
#include "cuop/backends/fft_conv_backend.hpp"
#include "cuop/conv.hpp"
#include "cuop/detail/memory_ranges.hpp"
#include "cuop/generated/conv_dispatch.hpp"
#include "cuop/kernels/conv/launch.hpp"
#include "dispatch_common.hpp"
#if CUOP_HAVE_CUDNN
#include "cuop/backends/cudnn_backend.hpp"
#endif

namespace cuop::generated {
extern const void* const conv_kernels[];
}

namespace cuop {

namespace kc = kernels::conv;
namespace bk = backends;
using dispatch::to_status;

namespace {

// The full call a choice is made for.
struct call_key {
  int device;
  dtype type;
  kc::conv_shape sh;
  float alpha, beta;  // cuDNN bakes them into its graph
  choice_policy policy;
  auto tie() const {
    return std::tie(device, type, sh.lay, sh.n, sh.c, sh.h, sh.w, sh.k, sh.r, sh.s, sh.stride_h, sh.stride_w, sh.pad_h,
                    sh.pad_w, sh.dil_h, sh.dil_w, sh.groups, sh.allow_tf32, alpha, beta, policy);
  }
  bool operator<(const call_key& o) const { return tie() < o.tie(); }
};

#if CUOP_HAVE_CUDNN
// One cuDNN handle per device, which every cached plan of the device is bound to (graph and plan
// finalization take the handle). cuDNN allows a handle to one thread at a time, and the stream is
// the handle's: every use (building a plan, setting the stream and executing) holds `lock`, or
// two threads would run each other's convolutions on the wrong stream. Between runs the handle's
// stream is the library's own non-blocking `idle` stream, so that nothing cuDNN queues while a
// plan is built lands on an application's stream (a capturing one, perhaps) or the legacy stream.
// Never destroyed (process lifetime: graphs may hold work of its plans).
struct dnn_device {
  std::mutex lock;
  cudnnHandle_t handle = nullptr;
  cudaStream_t idle = nullptr;
};

dnn_device* dnn_for(int device) {
  static std::mutex m;
  static std::map<int, std::unique_ptr<dnn_device>> devices;
  std::lock_guard lock(m);
  auto& d = devices[device];
  if (!d) {
    auto made = std::make_unique<dnn_device>();
    dispatch::relaxed_capture_scope relaxed;  // a device's first conv2d may be inside a capture
    if (cudaStreamCreateWithFlags(&made->idle, cudaStreamNonBlocking) != cudaSuccess) made->idle = nullptr;
    if (cudnnCreate(&made->handle) != CUDNN_STATUS_SUCCESS) made->handle = nullptr;
    else if (made->idle) cudnnSetStream(made->handle, made->idle);
    d = std::move(made);
  }
  return d->handle ? d.get() : nullptr;
}

struct dnn_state {
  dnn_device* device = nullptr;
  bk::dnn_conv conv;
  bk::dnn_plan plan;
};
#endif

// A planned FFT convolution; a run sets the plans' stream and work area, so runs are serialized.
struct fft_state {
  std::mutex run_lock;
  bk::fft_conv conv;
};

struct selection {
  const detail::conv_entry* entry = nullptr;
  kc::launch_plan plan;  // kernel
#if CUOP_HAVE_CUDNN
  std::shared_ptr<dnn_state> dnn;  // cudnn and heuristic
#endif
  std::shared_ptr<fft_state> fft;  // fft
  std::size_t workspace = 0;
  bool fell_back = false;
  bool exact = false;  // chosen at one of the model's tuned shapes: this one
};

// Says once per table entry that the installed cuDNN rejects its configuration.
void report_fallback(const detail::conv_entry& e, const std::string& why) {
  static std::mutex m;
  static std::set<const detail::conv_entry*> said;
  std::lock_guard lock(m);
  if (!said.insert(&e).second) return;
  std::fprintf(stderr, "cuop::conv2d: the installed cuDNN rejects %s (%s); using its heuristic\n", e.instance,
               why.c_str());
}

#if CUOP_HAVE_CUDNN
bool dnn_prepare(const call_key& p, const detail::conv_entry& e, selection& s) {
  const bool exact = s.exact;
  dnn_device* const dev = dnn_for(p.device);
  if (!dev) return false;
  std::lock_guard lock(dev->lock);
  auto st = std::make_shared<dnn_state>();
  st->device = dev;
  std::string why;
  if (st->conv.init(dev->handle, p.type, p.sh, p.sh.allow_tf32, &why, p.alpha, p.beta) != CUDNN_STATUS_SUCCESS)
    return false;
  bk::cudnn_config c;
  if (e.kind == detail::conv_kind::cudnn) {
    if (bk::parse_cudnn_config_id(e.lib_id, c, &why) && st->conv.build(c, st->plan, &why) == CUDNN_STATUS_SUCCESS) {
      s.workspace = static_cast<std::size_t>(st->plan.workspace_bytes);
      s.dnn = std::move(st);
      return true;
    }
    if (!exact) return false;  // a neighbour's choice: try the next one
    report_fallback(e, why);
    s.fell_back = true;
  }
  std::vector<bk::cudnn_config> first;
  if (st->conv.heuristic(CUDNN_HEUR_MODE_A, 1, first, &why) != CUDNN_STATUS_SUCCESS || first.empty()) return false;
  if (st->conv.build(first.front(), st->plan, &why) != CUDNN_STATUS_SUCCESS) return false;
  s.workspace = static_cast<std::size_t>(st->plan.workspace_bytes);
  s.dnn = std::move(st);
  return true;
}
#endif

// Prepares `e` for the call; false when it cannot run it (the next candidate is tried). `exact`:
// the model chose `e` at a shape where it was measured, this very one.
bool try_entry(const detail::conv_entry& e, const call_key& p, const kc::device_limits& limits, bool exact,
               selection& s) {
  s = {};
  s.entry = &e;
  s.exact = exact;
  switch (e.kind) {
    case detail::conv_kind::kernel: {
      if (!generated::conv_kernels[e.kernel] || e.config.t != p.type || e.config.lay != p.sh.lay) return false;
      const auto c = kc::for_shape(e.config, p.type, p.sh);
      s.workspace = kc::workspace_bytes(c, p.sh);  // via_nhwc's NHWC copies of x and y
      return kc::plan_launch(c, p.sh, limits, s.plan).empty();
    }
    case detail::conv_kind::fft: {
      bk::fft_conv_config c;
      if (!bk::parse_fft_conv_config_id(e.lib_id, c, nullptr) || !bk::check_fft_conv(p.type, p.sh, c).empty())
        return false;
      auto f = std::make_shared<fft_state>();
      if (f->conv.init(p.type, p.sh, c, nullptr) != status::success) return false;
      s.workspace = f->conv.workspace_bytes();
      s.fft = std::move(f);
      return true;
    }
    case detail::conv_kind::cudnn:
    case detail::conv_kind::cudnn_heuristic:
#if CUOP_HAVE_CUDNN
      return dnn_prepare(p, e, s);
#else
      return false;  // built without cuDNN
#endif
  }
  return false;
}

status select_uncached(const call_key& p, selection& out) {
  dispatch::device_state dev;
  int device = 0;
  if (auto st = dispatch::current_device(device, dev); st != status::success) return st;
  const int arch = dispatch::table_arch_for(generated::conv_table, dev.cc, generated::conv_arch_specific);
  if (arch == 0) return status::no_kernel_image;
  kc::device_limits limits;
  if (auto e = kc::query_limits(device, limits); e != cudaSuccess) return to_status(e);

  const auto group = detail::group_of(p.sh);
  const auto* model =
      dispatch::model_for(generated::conv_models, generated::conv_model_count, arch, dev.name,
                          [&](const detail::conv_model& m) { return m.type == p.type && m.group == group; });
  if (model && p.policy == choice_policy::tuned) {
    double query[detail::conv_feature_count];
    detail::conv_features(p.sh, query);
    const int* columns = generated::conv_model_columns + model->m.first_column;
    const auto view = detail::view_of(model->m, detail::conv_feature_count, generated::conv_model_features,
                                      generated::conv_model_speedups, generated::conv_model_trusted);
    bool at_anchor = false;
    const auto usable = [&](int c) { return try_entry(generated::conv_table[columns[c]], p, limits, at_anchor, out); };
    // try_entry fills `out`: the winner is prepared again, since later candidates were tried.
    if (const int c = detail::nearest_choice(view, query, usable, -1, &at_anchor); c >= 0 && usable(c))
      return status::success;
  }
  for (const auto& e : generated::conv_table)
    if (e.arch == arch && e.type == p.type && e.lay == p.sh.lay && e.source == detail::entry_source::fallback &&
        try_entry(e, p, limits, false, out))
      return status::success;
  return status::unsupported;
}

// The choice depends only on the device, the call's type, shape, alpha, beta and policy.
status select(const call_key& p, selection& out) { return dispatch::cached_choice(p, out, select_uncached); }

bool resolve(const conv2d_problem& p, call_key& key) {
  if (p.type != dtype::f32 && p.type != dtype::f16 && p.type != dtype::bf16) return false;
  if (p.shape.lay != kc::layout::nhwc && p.shape.lay != kc::layout::nchw) return false;
  if (!kc::check_shape(p.shape).empty()) return false;
  if (p.policy != choice_policy::tuned && p.policy != choice_policy::baseline) return false;
  if (cudaGetDevice(&key.device) != cudaSuccess) return false;
  key.type = p.type;
  key.sh = p.shape;
  key.alpha = p.alpha;
  key.beta = p.beta;
  key.policy = p.policy;
  return true;
}

const char* kind_name(detail::conv_kind k) {
  switch (k) {
    case detail::conv_kind::kernel: return "kernel";
    case detail::conv_kind::cudnn: return "cudnn";
    case detail::conv_kind::cudnn_heuristic: return "cudnn-heuristic";
    case detail::conv_kind::fft: return "fft";
  }
  return "?";
}

struct tensor_bytes {
  std::size_t x, w, y;
};

tensor_bytes bytes_of(const conv2d_problem& p) {
  const auto& sh = p.shape;
  const std::size_t e = size_of(p.type);
  return {static_cast<std::size_t>(sh.n) * sh.c * sh.h * sh.w * e,
          static_cast<std::size_t>(sh.k) * (sh.c / sh.groups) * sh.r * sh.s * e,
          static_cast<std::size_t>(sh.n) * sh.k * sh.p() * sh.q() * e};
}

// The tensors as memory, before anything is looked up or enqueued: each aligned to its element
// type and y apart from x and w (x and w may share bytes: both are only read). check_shape has
// bounded their sizes (max_tensor_elements).
status check_tensors(const conv2d_problem& p, const void* x, const void* w, const void* y) {
  const std::size_t e = size_of(p.type);
  const tensor_bytes b = bytes_of(p);
  if (detail::alignment_of(x) < e || detail::alignment_of(w) < e || detail::alignment_of(y) < e)
    return status::invalid_argument;
  detail::strided_range rx, rw, ry;
  const auto dense = [](const void* ptr, std::size_t bytes, detail::strided_range& out) {
    return detail::make_range(ptr, 1, static_cast<long long>(bytes), static_cast<long long>(bytes), 1, out);
  };
  if (!dense(x, b.x, rx) || !dense(w, b.w, rw) || !dense(y, b.y, ry) || detail::overlaps(ry, rx) ||
      detail::overlaps(ry, rw))
    return status::invalid_argument;
  return status::success;
}

// Runs the selected choice on tensors that are 16-byte aligned; the workspace comes from `buffers`.
status run(const selection& sel, const conv2d_problem& p, const void* x, const void* w, void* y, cudaStream_t stream,
           dispatch::call_buffers& buffers) {
  void* workspace = nullptr;
  if (sel.workspace > 0)
    if (auto s = buffers.get(dispatch::buffer_purpose::scratch, sel.workspace, 0, workspace); s != status::success)
      return s;
  const auto& sh = p.shape;
  switch (sel.entry->kind) {
    case detail::conv_kind::kernel: {
      const kc::conv_args args{x,        w,        y,        sh.n,     sh.c,      sh.h,        sh.w,
                               sh.k,     sh.p(),   sh.q(),   sh.r,     sh.s,      sh.stride_h, sh.stride_w,
                               sh.pad_h, sh.pad_w, sh.dil_h, sh.dil_w, sh.groups, p.alpha,     p.beta};
      const auto c = kc::for_shape(sel.entry->config, p.type, sh);
      return to_status(kc::launch(c, generated::conv_kernels[sel.entry->kernel], sel.plan, args, workspace, stream));
    }
    case detail::conv_kind::fft: {
      std::lock_guard lock(sel.fft->run_lock);
      return to_status(sel.fft->conv.run(x, w, y, p.alpha, p.beta, workspace, stream));
    }
    case detail::conv_kind::cudnn:
    case detail::conv_kind::cudnn_heuristic: {
#if CUOP_HAVE_CUDNN
      dnn_device& dev = *sel.dnn->device;
      std::lock_guard lock(dev.lock);
      const auto r = sel.dnn->conv.run(sel.dnn->plan, x, w, y, workspace, stream);
      if (dev.idle) cudnnSetStream(dev.handle, dev.idle);  // off the call's stream again
      if (r == CUDNN_STATUS_SUCCESS) return status::success;
      if (r == CUDNN_STATUS_NOT_SUPPORTED) return status::unsupported;
      return status::cuda_error;
#else
      return status::unsupported;
#endif
    }
  }
  return status::unsupported;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

// cuDNN's plans (16-byte aligned tensors) and mma_seg's tensor maps take aligned tensors only:
// those that are not are copied into aligned buffers of the library's (y back after), on the
// call's stream; aligned ones are used where they are. Under capture the copies are graph nodes
// and the buffers the graph's own.
status conv2d(const conv2d_problem& p, const void* x, const void* w, void* y, cudaStream_t stream) {
  call_key key{};
  if (!resolve(p, key) || !x || !w || !y) return status::invalid_argument;
  if (auto s = check_tensors(p, x, w, y); s != status::success) return s;
  dispatch::stream_info si;
  if (auto s = dispatch::inspect_stream(stream, si); s != status::success) return s;
  selection sel;
  if (auto s = select(key, sel); s != status::success) return s;
  dispatch::call_buffers buffers(si);
  if (aligned16(x) && aligned16(w) && aligned16(y)) return buffers.finish(run(sel, p, x, w, y, stream, buffers));
  const tensor_bytes b = bytes_of(p);
  // The aligned stand-in of `src`: src itself, or a copy in the purpose's buffer.
  auto stand_in = [&](const void* src, std::size_t bytes, dispatch::buffer_purpose purpose, bool copy,
                      void*& out) -> status {
    if (aligned16(src)) {
      out = const_cast<void*>(src);
      return status::success;
    }
    if (auto s = buffers.get(purpose, bytes, 0, out); s != status::success) return s;
    return copy ? to_status(cudaMemcpyAsync(out, src, bytes, cudaMemcpyDeviceToDevice, stream)) : status::success;
  };
  void *sx = nullptr, *sw = nullptr, *sy = nullptr;
  status s = stand_in(x, b.x, dispatch::buffer_purpose::staged_x, true, sx);
  if (s == status::success) s = stand_in(w, b.w, dispatch::buffer_purpose::staged_w, true, sw);
  if (s == status::success) s = stand_in(y, b.y, dispatch::buffer_purpose::staged_y, p.beta != 0.f, sy);
  if (s == status::success) s = run(sel, p, sx, sw, sy, stream, buffers);
  if (s == status::success && sy != y) s = to_status(cudaMemcpyAsync(y, sy, b.y, cudaMemcpyDeviceToDevice, stream));
  return buffers.finish(s);
}

status conv2d_which(const conv2d_problem& p, conv2d_choice& out) {
  call_key key{};
  if (!resolve(p, key)) return status::invalid_argument;
  selection sel;
  if (auto s = select(key, sel); s != status::success) return s;
  const auto& e = *sel.entry;
  dispatch::describe_kind_choice(e, sel.fell_back ? "cudnn-heuristic" : kind_name(e.kind), sel.exact, sel.fell_back,
                                 out);
  return status::success;
}

}  // namespace cuop
