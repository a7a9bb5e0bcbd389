// Per-sample SM clocks. From NVML when it is present (read on the host as each sample's stop event
// completes); otherwise from an in-kernel probe (%globaltimer against %clock64, one probe per
// batch, enqueued outside the timed regions); otherwise unknown (0). The source is stored with
// every trial ("nvml", "globaltimer", "none").
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace cuop::measure {

class nvml_device;

class sm_clock {
 public:
  enum class source { nvml, globaltimer, none };

  // NVML when `nvml` is non-null, else the in-kernel probe (its PTX compiled with NVRTC and
  // loaded on the current device; on failure `note` says why and the source is none).
  static std::unique_ptr<sm_clock> open(const nvml_device* nvml, std::string& note);
  static std::unique_ptr<sm_clock> unknown();
  ~sm_clock();
  sm_clock(const sm_clock&) = delete;
  sm_clock& operator=(const sm_clock&) = delete;

  source kind() const { return m_source; }
  const char* name() const;  // "nvml", "globaltimer", "none"

  // NVML: the SM clock now (MHz); 0 for the other sources.
  double read_now() const;

  // Probe: enqueue one measurement into `slot` (< max_slots) on `stream`; no-op otherwise.
  cudaError_t enqueue_probe(cudaStream_t stream, int slot);
  // Probe: after `stream` synchronized, the MHz measured in `slot` (0 when none).
  cudaError_t probe_mhz(int slot, double& mhz);
  static constexpr int max_slots = 64;

 private:
  sm_clock() = default;
  source m_source = source::none;
  const nvml_device* m_nvml = nullptr;
  cudaLibrary_t m_library{};
  cudaKernel_t m_kernel{};
  unsigned long long* m_slots = nullptr;  // device: (ns, cycles) per slot
};

// The probe kernel's source (NVRTC): spins one thread for at least `min_ns` of %globaltimer and
// writes the elapsed nanoseconds and %clock64 cycles to out[0], out[1].
const char* clock_probe_source();

// Compiles the probe to PTX for compute_80 (JIT-compiled by the driver for any newer GPU). Empty
// with `log` set on failure. Works without a GPU.
std::string compile_clock_probe(std::string& log);

// MHz from a probe's reading: cycles per microsecond; 0 when `ns` is 0.
double probe_to_mhz(unsigned long long ns, unsigned long long cycles);

}  // namespace cuop::measure
