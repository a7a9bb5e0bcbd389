// What the ops' dispatchers share: the current device's identity, CUDA errors as statuses, the
// call's stream (capturing or not), the device buffers a call needs, and the choice cache. The
// rules these follow for CUDA graphs and threads are in docs/ARCHITECTURE.md ("Using the library").
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>

#include "cuop/detail/entry_source.hpp"
#include "cuop/policy.hpp"
#include "cuop/status.hpp"

namespace cuop::dispatch {

struct device_state {
  int cc = 0;           // 90 for compute capability 9.0
  char name[256] = {};  // cudaDeviceProp::name
};

status to_status(cudaError_t e);

// The current device and its identity (queried once per device).
status current_device(int& device, device_state& state);

// While it lives, the calling thread's stream-capture mode is relaxed; the previous mode is put
// back after. The library's one-time set-up (handles, plans, heuristics, occupancy queries, the
// events and buffers of a stream) runs inside one: it enqueues nothing on a capturing stream, but
// in the global and thread-local modes CUDA refuses such "potentially unsafe" calls to a thread
// while a capture is under way (the thread's own, or in global mode any thread's), and the refusal
// would invalidate that capture.
class relaxed_capture_scope {
 public:
  relaxed_capture_scope() noexcept;
  ~relaxed_capture_scope();
  relaxed_capture_scope(const relaxed_capture_scope&) = delete;
  relaxed_capture_scope& operator=(const relaxed_capture_scope&) = delete;

 private:
  cudaStreamCaptureMode m_mode = cudaStreamCaptureModeRelaxed;
  bool m_exchanged = false;
};

// The stream of one call, as the call found it.
struct stream_info {
  cudaStream_t stream = nullptr;
  int device = 0;          // the current device, which the stream belongs to
  bool capturing = false;  // a capture is under way on it: its work becomes graph nodes
};

// Looks at the call's stream before anything is enqueued on it. invalid_argument: the stream
// belongs to another device than the current one. capture_conflict: the stream cannot take work
// now (the legacy default stream while a blocking stream of the device is capturing, which CUDA
// forbids; or a capture on the stream that is already invalidated).
status inspect_stream(cudaStream_t stream, stream_info& out);

// Buffers kept for (device, stream), by purpose. The two self-resetting workspaces are apart:
// split_row's epoch and tags would read as split-K counters, and GEMM partials as split_row tags.
//   softmax_split  split_row's barrier slots (zeroed once, self-resetting)
//   gemm_split     our GEMM kernels' split-K counters and partials, then packed operands
//   scratch        cuBLASLt's workspace (and its packed operands), cuDNN's, cuFFT convolution's
//   staged_*       conv2d's aligned copies of tensors that are not 16-byte aligned
enum class buffer_purpose : int { softmax_split = 0, gemm_split, scratch, staged_x, staged_w, staged_y };
inline constexpr int buffer_purposes = 6;

struct stream_slot;  // dispatch_common.cpp

// The device buffers of one call, each 256-byte aligned. Outside capture they are the library's
// buffers of (device, stream): zeroed when (re)allocated, grown in stream order (the old one freed
// with cudaFreeAsync behind the work already queued on the stream), and held by this call from
// its first get() until finish() or destruction (a lease), so that no other thread grows them
// between a pointer being handed out and the work using it being queued. Under capture they are
// fresh stream-ordered allocations on the capturing stream, which CUDA turns into graph memory
// nodes: each graph owns its own, its first `zeroed` bytes are cleared by a captured memset at
// every replay, and finish() captures their frees after the call's work.
class call_buffers {
 public:
  explicit call_buffers(const stream_info& s) noexcept : m_info(s) {}
  ~call_buffers();
  call_buffers(const call_buffers&) = delete;
  call_buffers& operator=(const call_buffers&) = delete;

  // A buffer of at least `bytes` for `purpose`, whose first `zeroed` bytes (<= bytes) read as zero
  // by the call's first work that uses it: the state a self-resetting kernel leaves behind (the
  // split-K counters, split_row's slots). One buffer per purpose and call.
  status get(buffer_purpose purpose, std::size_t bytes, std::size_t zeroed, void*& out);

  // Called once the call's work is queued (whatever its status s): records the buffers' last use
  // (outside capture) or captures their frees. Returns s, or a failure of its own when s is success.
  status finish(status s);

 private:
  status release() noexcept;

  stream_info m_info;
  stream_slot* m_slot = nullptr;                 // outside capture: the slot held (its lease locked)
  bool m_used = false;                           // outside capture: a buffer of the slot was handed out
  std::array<void*, buffer_purposes> m_graph{};  // under capture: this call's allocations
  bool m_released = false;
};

// The architecture whose entries serve compute capability `cc`: its own when the table has any,
// else the nearest lower portable one (sm_80: its SASS on 8.x, its PTX through JIT later); 0
// when none can (a build for sm_100a only on an H200: status no_kernel_image). Entries of an
// arch-specific build (`arch_specific(arch)`: sm_90a, sm_100a) serve their own compute
// capability only: their code runs nowhere else, and their tables may name kernels (thread-block
// clusters, ...) that a device served by portable PTX would not have.
template <typename Table, typename ArchSpecific>
int table_arch_for(const Table& table, int cc, ArchSpecific&& arch_specific) {
  int best = 0;
  for (const auto& e : table)
    if (e.arch == cc) return cc;
  for (const auto& e : table)
    if (e.arch <= cc && e.arch > best && !arch_specific(e.arch)) best = e.arch;
  return best;
}

// The model of architecture `arch` whose shapes match the call (`matches`, on the op's model
// type): the one measured on the running GPU (`gpu`) first, else the one with the most anchors
// (the first of those), whichever GPU measured it: the file order of the results says nothing
// of which GPU is nearer the running one, the anchors' count how much the model has seen. Null
// when none matches.
template <typename Model, typename Matches>
const Model* model_for(const Model* models, int count, int arch, const char* gpu, Matches&& matches) {
  const Model* found = nullptr;
  for (int i = 0; i < count; ++i) {
    const Model& m = models[i];
    if (m.m.arch != arch || !matches(m)) continue;
    if (std::strcmp(m.m.gpu, gpu) == 0) return &m;
    if (!found || m.m.anchors > found->m.anchors) found = &m;
  }
  return found;
}

// A dispatch choice depends only on the call's key: made once by `choose` (a status and a
// Selection), then looked up, so a call costs one map lookup instead of a walk over the table.
// One cache per (Key, Selection) type, shared by all threads; entries live until the process
// ends, so the plans a Selection holds (cuFFT, cuDNN) outlive every graph that captured them.
// `choose` runs with the thread's capture mode relaxed (it creates handles and plans). Two threads
// may make the same choice at once: the first stored wins and both return it, so the plans of a
// launch are always the cached ones, never a loser's that is destroyed on return.
template <typename Key, typename Selection, typename Choose>
status cached_choice(const Key& key, Selection& out, Choose&& choose) {
  static std::mutex m;
  static std::map<Key, Selection> cache;
  {
    std::lock_guard lock(m);
    if (const auto it = cache.find(key); it != cache.end()) {
      out = it->second;
      return status::success;
    }
  }
  Selection made;
  {
    relaxed_capture_scope relaxed;
    if (auto s = choose(key, made); s != status::success) return s;
  }
  std::lock_guard lock(m);
  out = cache.emplace(key, std::move(made)).first->second;
  return status::success;
}

// A row op's *_which answer: the table entry chosen (an entry of softmax's, the norms' or
// GroupNorm's table) and how the choice was reached; tuned_*: the entry's shape as rows x cols.
template <typename Entry>
row_op_choice describe_choice(const Entry& e, bool same_gpu, bool exact_shape, long long tuned_rows,
                              long long tuned_cols) {
  row_op_choice out;
  out.instance = e.instance;
  out.source = detail::name_of(e.source);
  out.gpu = e.gpu;
  out.same_gpu = same_gpu;
  out.exact_shape = exact_shape;
  out.tuned_rows = tuned_rows;
  out.tuned_cols = tuned_cols;
  out.table_arch = e.arch;
  return out;
}

// The fields that GEMM's and conv2d's *_which answers share: the table entry chosen, the kind of
// code it runs (`kind`: the library heuristic's name where the call fell back to it), and how.
template <typename Entry, typename Choice>
void describe_kind_choice(const Entry& e, const char* kind, bool exact_shape, bool fell_back, Choice& out) {
  out.instance = e.instance;
  out.kind = kind;
  out.source = detail::name_of(e.source);
  out.gpu = e.gpu;
  out.exact_shape = exact_shape;
  out.fell_back = fell_back;
  out.table_arch = e.arch;
}

}  // namespace cuop::dispatch
