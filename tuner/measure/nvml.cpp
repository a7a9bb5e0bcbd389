#include "tuner/measure/nvml.hpp"

#include <dlfcn.h>

namespace cuop::measure {

namespace {

// The few NVML entry points used, declared here (no nvml.h on a machine without the driver).
using nvml_return = int;  // nvmlReturn_t: 0 success, 7 NVML_ERROR_INSUFFICIENT_SIZE
using nvml_handle = void*;
constexpr nvml_return nvml_success = 0;
constexpr nvml_return nvml_insufficient_size = 7;
constexpr int nvml_clock_sm = 1;                        // NVML_CLOCK_SM
constexpr int nvml_temperature_gpu = 0;                 // NVML_TEMPERATURE_GPU
constexpr int nvml_temperature_threshold_slowdown = 1;  // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN

struct process_info_v1 {  // nvmlProcessInfo_v1_t (nvmlDeviceGetComputeRunningProcesses)
  unsigned pid;
  unsigned long long used_gpu_memory;
};
struct process_info_v2 {  // nvmlProcessInfo_v2_t / nvmlProcessInfo_t (the _v2 and _v3 calls)
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

struct library {
  void* dl = nullptr;
  std::string error;
  nvml_return (*init)() = nullptr;
  const char* (*error_string)(nvml_return) = nullptr;
  nvml_return (*by_uuid)(const char*, nvml_handle*) = nullptr;
  nvml_return (*clock_info)(nvml_handle, int, unsigned*) = nullptr;
  nvml_return (*event_reasons)(nvml_handle, unsigned long long*) = nullptr;
  nvml_return (*temperature)(nvml_handle, int, unsigned*) = nullptr;
  nvml_return (*temperature_threshold)(nvml_handle, int, unsigned*) = nullptr;
  nvml_return (*processes_v2)(nvml_handle, unsigned*, process_info_v2*) = nullptr;  // _v3 or _v2
  nvml_return (*processes_v1)(nvml_handle, unsigned*, process_info_v1*) = nullptr;

  template <class F>
  void sym(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(dl, name));
  }

  library() {
    dl = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
      const char* e = dlerror();
      error = std::string("NVML unavailable: ") + (e ? e : "libnvidia-ml.so.1 not found");
      return;
    }
    sym(init, "nvmlInit_v2");
    sym(error_string, "nvmlErrorString");
    sym(by_uuid, "nvmlDeviceGetHandleByUUID");
    sym(clock_info, "nvmlDeviceGetClockInfo");
    sym(event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!event_reasons) sym(event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    sym(temperature, "nvmlDeviceGetTemperature");
    sym(temperature_threshold, "nvmlDeviceGetTemperatureThreshold");
    sym(processes_v2, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!processes_v2) sym(processes_v2, "nvmlDeviceGetComputeRunningProcesses_v2");
    sym(processes_v1, "nvmlDeviceGetComputeRunningProcesses");
    if (!init || !by_uuid) {
      error = "NVML unavailable: libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByUUID";
      return;
    }
    if (const nvml_return r = init(); r != nvml_success) {
      error = std::string("NVML unavailable: nvmlInit failed: ") + describe(r);
      init = nullptr;
    }
  }
  // Never unloaded nor shut down: the worker process ends with it.

  std::string describe(nvml_return r) const {
    const char* s = error_string ? error_string(r) : nullptr;
    return s ? s : "error " + std::to_string(r);
  }
  bool usable() const { return dl && init; }
};

library& nvml() {
  static library lib;  // thread-safe initialization
  return lib;
}

}  // namespace

std::unique_ptr<nvml_device> nvml_device::open(const std::string& uuid, std::string& why) {
  auto& lib = nvml();
  if (!lib.usable()) {
    why = lib.error;
    return nullptr;
  }
  nvml_handle h = nullptr;
  if (const nvml_return r = lib.by_uuid(uuid.c_str(), &h); r != nvml_success) {
    why = "NVML does not know GPU " + uuid + ": " + lib.describe(r);
    return nullptr;
  }
  return std::unique_ptr<nvml_device>(new nvml_device(h));
}

unsigned nvml_device::sm_clock_mhz() const {
  auto& lib = nvml();
  unsigned mhz = 0;
  if (!lib.clock_info || lib.clock_info(m_handle, nvml_clock_sm, &mhz) != nvml_success) return 0;
  return mhz;
}

bool nvml_device::clock_event_reasons(unsigned long long& mask) const {
  auto& lib = nvml();
  mask = 0;
  return lib.event_reasons && lib.event_reasons(m_handle, &mask) == nvml_success;
}

bool nvml_device::temperature_c(unsigned& now, unsigned& slowdown) const {
  auto& lib = nvml();
  now = slowdown = 0;
  if (!lib.temperature || lib.temperature(m_handle, nvml_temperature_gpu, &now) != nvml_success) return false;
  if (!lib.temperature_threshold ||
      lib.temperature_threshold(m_handle, nvml_temperature_threshold_slowdown, &slowdown) != nvml_success)
    slowdown = 0;
  return true;
}

bool nvml_device::compute_pids(std::vector<unsigned>& pids) const {
  auto& lib = nvml();
  pids.clear();
  // The list may grow between the calls: retry with room to spare.
  for (unsigned room = 16; room <= 4096; room *= 4) {
    unsigned count = room;
    if (lib.processes_v2) {
      std::vector<process_info_v2> infos(room);
      const nvml_return r = lib.processes_v2(m_handle, &count, infos.data());
      if (r == nvml_insufficient_size) continue;
      if (r != nvml_success) return false;
      for (unsigned i = 0; i < count && i < room; ++i) pids.push_back(infos[i].pid);
      return true;
    }
    if (lib.processes_v1) {
      std::vector<process_info_v1> infos(room);
      const nvml_return r = lib.processes_v1(m_handle, &count, infos.data());
      if (r == nvml_insufficient_size) continue;
      if (r != nvml_success) return false;
      for (unsigned i = 0; i < count && i < room; ++i) pids.push_back(infos[i].pid);
      return true;
    }
    return false;
  }
  return false;
}

}  // namespace cuop::measure
