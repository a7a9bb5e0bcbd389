#include "dispatch_common.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <utility>

namespace cuop::dispatch {

// The library's buffers of one (device, stream), used by one call at a time (the lease).
struct stream_slot {
  struct buffer {
    void* raw = nullptr;    // as allocated; the call gets it rounded up to 256 bytes
    std::size_t bytes = 0;  // usable from the rounded-up pointer
    bool pooled = false;    // from cudaMallocAsync (freed with cudaFreeAsync)
  };
  std::mutex lease;                  // held by a call from its first get() to its finish()
  cudaEvent_t last_use = nullptr;    // recorded after each call that used a buffer
  bool used = false;                 // last_use has been recorded
  unsigned long long stream_id = 0;  // cudaStreamGetId of the stream the buffers serve
  bool pools = false;                // the device has stream-ordered memory pools
  std::array<buffer, buffer_purposes> buffers{};
};

namespace {

// cudaMalloc's alignment, which the kernels, cuBLASLt's workspace and the pack regions assume.
constexpr std::size_t buffer_alignment = 256;

void* aligned(void* raw) {
  const auto misalignment = reinterpret_cast<std::uintptr_t>(raw) % buffer_alignment;
  return misalignment == 0 ? raw : static_cast<char*>(raw) + (buffer_alignment - misalignment);
}

bool legacy_stream(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy; }

bool capture_error(cudaError_t e) {
  switch (e) {
    case cudaErrorStreamCaptureUnsupported:
    case cudaErrorStreamCaptureInvalidated:
    case cudaErrorStreamCaptureMerge:
    case cudaErrorStreamCaptureUnmatched:
    case cudaErrorStreamCaptureUnjoined:
    case cudaErrorStreamCaptureIsolation:
    case cudaErrorStreamCaptureImplicit:
    case cudaErrorCapturedEvent:
    case cudaErrorStreamCaptureWrongThread: return true;
    default: return false;
  }
}

bool pools_supported(int device) {
  int pools = 0;
  return cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) == cudaSuccess && pools != 0;
}

// The slot of the call's (device, stream). The per-thread default stream is one handle for every
// thread's own stream: its slots are per thread. Slots are never removed (their handles are
// reused by CUDA, and a stream that reuses one adopts the slot, see call_buffers::get).
status slot_for(const stream_info& info, stream_slot*& out) {
  using key_t = std::tuple<int, std::uintptr_t, std::thread::id>;
  static std::mutex m;
  static std::map<key_t, std::unique_ptr<stream_slot>> slots;
  const cudaStream_t s = legacy_stream(info.stream) ? nullptr : info.stream;
  const key_t key{info.device, reinterpret_cast<std::uintptr_t>(s),
                  s == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id{}};
  std::lock_guard lock(m);
  if (const auto it = slots.find(key); it != slots.end()) {
    out = it->second.get();
    return status::success;
  }
  auto made = std::make_unique<stream_slot>();
  {
    relaxed_capture_scope relaxed;
    if (const cudaError_t e = cudaEventCreateWithFlags(&made->last_use, cudaEventDisableTiming); e != cudaSuccess)
      return to_status(e);
  }
  made->pools = pools_supported(info.device);
  out = made.get();
  slots.emplace(key, std::move(made));
  return status::success;
}

// Frees a slot buffer behind the work queued on `stream` (which used it last).
cudaError_t free_behind(const stream_slot::buffer& b, cudaStream_t stream) {
  if (b.raw == nullptr) return cudaSuccess;
  if (b.pooled) return cudaFreeAsync(b.raw, stream);
  // A device without memory pools: wait for the stream (never capturing here), then free.
  relaxed_capture_scope relaxed;
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) return e;
  return cudaFree(b.raw);
}

// Replaces b with a zeroed buffer of `bytes` (plus the alignment), in stream order.
status grow(const stream_slot& slot, stream_slot::buffer& b, std::size_t bytes, cudaStream_t stream) {
  const cudaError_t freed = free_behind(b, stream);
  if (freed != cudaSuccess) return to_status(freed);
  b = {};
  stream_slot::buffer fresh{nullptr, bytes, slot.pools};
  cudaError_t e = cudaSuccess;
  if (slot.pools) {
    e = cudaMallocAsync(&fresh.raw, bytes + buffer_alignment, stream);
  } else {
    relaxed_capture_scope relaxed;
    e = cudaMalloc(&fresh.raw, bytes + buffer_alignment);
  }
  if (e != cudaSuccess) return e == cudaErrorMemoryAllocation ? status::out_of_memory : to_status(e);
  // Zeroed once here: the kernels that need zeros (split-K counters, split_row's slots) leave
  // them so after every launch.
  if (e = cudaMemsetAsync(fresh.raw, 0, bytes + buffer_alignment, stream); e != cudaSuccess) {
    free_behind(fresh, stream);
    return to_status(e);
  }
  b = fresh;
  return status::success;
}

}  // namespace

status to_status(cudaError_t e) {
  if (capture_error(e)) return status::capture_conflict;
  switch (e) {
    case cudaSuccess: return status::success;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidKernelImage: return status::no_kernel_image;
    case cudaErrorMemoryAllocation: return status::out_of_memory;
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidConfiguration:
    case cudaErrorCooperativeLaunchTooLarge: return status::launch_failed;
    default: return status::cuda_error;
  }
}

status current_device(int& device, device_state& state) {
  if (cudaGetDevice(&device) != cudaSuccess) return status::cuda_error;
  static std::mutex m;
  static std::map<int, device_state> cache;
  std::lock_guard lock(m);
  auto it = cache.find(device);
  if (it == cache.end()) {
    cudaDeviceProp p{};
    if (auto e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) return to_status(e);
    device_state s;
    s.cc = p.major * 10 + p.minor;
    const std::size_t length = std::min(strnlen(p.name, sizeof(p.name)), sizeof(s.name) - 1);
    std::memcpy(s.name, p.name, length);
    s.name[length] = '\0';
    it = cache.emplace(device, s).first;
  }
  state = it->second;
  return status::success;
}

relaxed_capture_scope::relaxed_capture_scope() noexcept {
  m_exchanged = cudaThreadExchangeStreamCaptureMode(&m_mode) == cudaSuccess;
}

relaxed_capture_scope::~relaxed_capture_scope() {
  if (m_exchanged) cudaThreadExchangeStreamCaptureMode(&m_mode);
}

status inspect_stream(cudaStream_t stream, stream_info& out) {
  out = {};
  out.stream = stream;
  if (cudaGetDevice(&out.device) != cudaSuccess) return status::cuda_error;
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  if (legacy_stream(stream)) {
    // The legacy stream is never captured, but while a blocking stream of the device is, any
    // use of it would depend on that capture and invalidate it; this query is the one use CUDA
    // answers (cudaErrorStreamCaptureImplicit) without invalidating anything.
    const cudaError_t e = cudaStreamIsCapturing(cudaStreamLegacy, &st);
    if (e != cudaErrorStreamCaptureImplicit) return to_status(e);
    cudaGetLastError();  // answered by the status: not left behind for the application's next check
    return status::capture_conflict;
  }
  if (const cudaError_t e = cudaStreamGetCaptureInfo(stream, &st); e != cudaSuccess)
    return e == cudaErrorInvalidResourceHandle ? status::invalid_argument : to_status(e);
  if (st == cudaStreamCaptureStatusInvalidated) return status::capture_conflict;
  out.capturing = st == cudaStreamCaptureStatusActive;
  // The calling thread's per-thread stream is the current device's by definition; another stream
  // may belong to another device, which a launch on the current one would not run on. Asked only
  // outside a capture: cudaStreamGetDevice on a capturing stream invalidates the capture (in every
  // mode, CUDA 13.0), so a captured call on another device's stream fails when the graph is made.
  if (stream != cudaStreamPerThread && !out.capturing) {
    int device = -1;
    if (const cudaError_t e = cudaStreamGetDevice(stream, &device); e != cudaSuccess)
      return e == cudaErrorInvalidResourceHandle ? status::invalid_argument : to_status(e);
    if (device != out.device) return status::invalid_argument;
  }
  return status::success;
}

call_buffers::~call_buffers() { release(); }

status call_buffers::get(buffer_purpose purpose, std::size_t bytes, std::size_t zeroed, void*& out) {
  out = nullptr;
  const auto i = static_cast<std::size_t>(purpose);
  if (i >= buffer_purposes || m_released) return status::invalid_argument;
  if (bytes == 0) return status::success;
  if (m_info.capturing) {
    // Graph memory nodes: the graph owns the allocation (its address is fixed for the graph's
    // life), replays of different graphs never share it, and it goes with the graph.
    if (m_graph[i] != nullptr) return status::invalid_argument;
    if (!pools_supported(m_info.device)) return status::unsupported;
    void* raw = nullptr;
    if (const cudaError_t e = cudaMallocAsync(&raw, bytes + buffer_alignment, m_info.stream); e != cudaSuccess)
      return e == cudaErrorMemoryAllocation ? status::out_of_memory : to_status(e);
    m_graph[i] = raw;
    out = aligned(raw);
    // A graph allocation's bytes are undefined at every launch (its memory may serve another
    // graph in between): what must start at zero is cleared at every replay.
    if (zeroed > 0)
      if (const cudaError_t e = cudaMemsetAsync(out, 0, std::min(zeroed, bytes), m_info.stream); e != cudaSuccess)
        return to_status(e);
    return status::success;
  }
  if (m_slot == nullptr) {
    stream_slot* slot = nullptr;
    if (const status s = slot_for(m_info, slot); s != status::success) return s;
    slot->lease.lock();
    m_slot = slot;
    unsigned long long id = 0;
    if (const cudaError_t e = cudaStreamGetId(m_info.stream, &id); e != cudaSuccess) return to_status(e);
    if (slot->stream_id != id) {
      // The handle names another stream than before: the one the slot served was destroyed and
      // CUDA reused its handle (or the thread's per-thread stream is new). The work that stream
      // queued may still be running on these buffers: this stream waits for it first.
      if (slot->used)
        if (const cudaError_t e = cudaStreamWaitEvent(m_info.stream, slot->last_use, 0); e != cudaSuccess)
          return to_status(e);
      slot->stream_id = id;
    }
  }
  auto& b = m_slot->buffers[i];
  if (b.bytes < bytes)
    if (const status s = grow(*m_slot, b, bytes, m_info.stream); s != status::success) return s;
  m_used = true;
  out = aligned(b.raw);
  return status::success;
}

status call_buffers::release() noexcept {
  if (m_released) return status::success;
  m_released = true;
  status result = status::success;
  const auto note = [&result](cudaError_t e) {
    if (e != cudaSuccess && result == status::success) result = to_status(e);
  };
  if (m_info.capturing) {
    // Captured after the call's work: the free node depends on everything before it.
    for (void*& raw : m_graph)
      if (raw != nullptr) {
        note(cudaFreeAsync(raw, m_info.stream));
        raw = nullptr;
      }
    return result;
  }
  if (m_slot != nullptr) {
    if (m_used) {
      const cudaError_t e = cudaEventRecord(m_slot->last_use, m_info.stream);
      note(e);
      if (e == cudaSuccess) m_slot->used = true;
    }
    m_slot->lease.unlock();
    m_slot = nullptr;
  }
  return result;
}

status call_buffers::finish(status s) {
  const status r = release();
  return s != status::success ? s : r;
}

}  // namespace cuop::dispatch
