// NVML, opened at run time with dlopen("libnvidia-ml.so.1"): no link-time dependency, so the binary
// runs on machines without a driver (where every call answers "NVML unavailable"). Only reads:
// the GPU's clocks and power settings are never changed.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace cuop::measure {

class nvml_device {
 public:
  // The GPU with this UUID ("GPU-xxxxxxxx-..." as the CUDA runtime formats it; NVML and CUDA may
  // number devices differently, the UUID is the same). Null with `why` set when NVML is absent,
  // fails to initialize, or does not know the GPU.
  static std::unique_ptr<nvml_device> open(const std::string& uuid, std::string& why);
  ~nvml_device() = default;
  nvml_device(const nvml_device&) = delete;
  nvml_device& operator=(const nvml_device&) = delete;

  // Current SM clock in MHz; 0 when NVML cannot say.
  unsigned sm_clock_mhz() const;
  // nvmlDeviceGetCurrentClocksEventReasons (formerly ...ThrottleReasons) bit mask; false when
  // unsupported.
  bool clock_event_reasons(unsigned long long& mask) const;
  // GPU core temperature and its slowdown threshold (0 when unknown), degrees C.
  bool temperature_c(unsigned& now, unsigned& slowdown) const;
  // PIDs of the compute processes holding a context on this GPU (as NVML sees them: host PIDs
  // when this process runs in a PID namespace). False when NVML cannot list them.
  bool compute_pids(std::vector<unsigned>& pids) const;

 private:
  explicit nvml_device(void* handle) : m_handle(handle) {}
  void* m_handle;  // nvmlDevice_t
};

}  // namespace cuop::measure
