#include "tuner/measure/sm_clock.hpp"

#include <nvrtc.h>

#include <vector>

#include "tuner/measure/nvml.hpp"

namespace cuop::measure {

namespace {

constexpr unsigned long long probe_ns = 20000;  // long enough for a coarse %globaltimer

}  // namespace

const char* clock_probe_source() {
  return R"cuda(
extern "C" __global__ void cuop_clock_probe(unsigned long long* out, unsigned long long min_ns) {
  const long long c0 = clock64();
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  long long c1;
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    c1 = clock64();
  } while (t1 - t0 < min_ns);
  out[0] = t1 - t0;
  out[1] = (unsigned long long)(c1 - c0);
}
)cuda";
}

std::string compile_clock_probe(std::string& log) {
  nvrtcProgram prog{};
  if (nvrtcCreateProgram(&prog, clock_probe_source(), "cuop_clock_probe.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    log = "nvrtcCreateProgram failed";
    return {};
  }
  const char* options[] = {"--gpu-architecture=compute_80"};
  const nvrtcResult compiled = nvrtcCompileProgram(prog, 1, options);
  std::size_t size = 0;
  nvrtcGetProgramLogSize(prog, &size);
  log.assign(size, '\0');
  if (size > 0) nvrtcGetProgramLog(prog, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  std::string ptx;
  if (compiled == NVRTC_SUCCESS && nvrtcGetPTXSize(prog, &size) == NVRTC_SUCCESS) {
    ptx.assign(size, '\0');
    if (nvrtcGetPTX(prog, ptx.data()) != NVRTC_SUCCESS) ptx.clear();
  } else if (log.empty()) {
    log = nvrtcGetErrorString(compiled);
  }
  nvrtcDestroyProgram(&prog);
  return ptx;
}

double probe_to_mhz(unsigned long long ns, unsigned long long cycles) {
  return ns == 0 ? 0.0 : static_cast<double>(cycles) * 1000.0 / static_cast<double>(ns);
}

std::unique_ptr<sm_clock> sm_clock::unknown() { return std::unique_ptr<sm_clock>(new sm_clock()); }

std::unique_ptr<sm_clock> sm_clock::open(const nvml_device* nvml, std::string& note) {
  auto c = unknown();
  if (nvml) {
    c->m_source = source::nvml;
    c->m_nvml = nvml;
    return c;
  }
  std::string log;
  const std::string ptx = compile_clock_probe(log);
  if (ptx.empty()) {
    note = "clock probe did not compile: " + log;
    return c;
  }
  if (auto e = cudaLibraryLoadData(&c->m_library, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0);
      e != cudaSuccess) {
    note = std::string("clock probe did not load: ") + cudaGetErrorString(e);
    c->m_library = {};
    return c;
  }
  if (auto e = cudaLibraryGetKernel(&c->m_kernel, c->m_library, "cuop_clock_probe"); e != cudaSuccess) {
    note = std::string("clock probe not found: ") + cudaGetErrorString(e);
    return c;
  }
  if (auto e = cudaMalloc(reinterpret_cast<void**>(&c->m_slots), 2 * max_slots * sizeof(unsigned long long));
      e != cudaSuccess) {
    note = std::string("clock probe buffer: ") + cudaGetErrorString(e);
    c->m_slots = nullptr;
    return c;
  }
  c->m_source = source::globaltimer;
  return c;
}

sm_clock::~sm_clock() {
  if (m_slots) cudaFree(m_slots);
  if (m_library) cudaLibraryUnload(m_library);
}

const char* sm_clock::name() const {
  switch (m_source) {
    case source::nvml: return "nvml";
    case source::globaltimer: return "globaltimer";
    case source::none: break;
  }
  return "none";
}

double sm_clock::read_now() const {
  return m_source == source::nvml ? static_cast<double>(m_nvml->sm_clock_mhz()) : 0.0;
}

cudaError_t sm_clock::enqueue_probe(cudaStream_t stream, int slot) {
  if (m_source != source::globaltimer || slot < 0 || slot >= max_slots) return cudaSuccess;
  unsigned long long* out = m_slots + 2 * slot;
  unsigned long long min_ns = probe_ns;
  void* args[] = {&out, &min_ns};
  return cudaLaunchKernel(reinterpret_cast<const void*>(m_kernel), dim3(1), dim3(1), args, 0, stream);
}

cudaError_t sm_clock::probe_mhz(int slot, double& mhz) {
  mhz = 0;
  if (m_source != source::globaltimer || slot < 0 || slot >= max_slots) return cudaSuccess;
  unsigned long long v[2] = {0, 0};
  if (auto e = cudaMemcpy(v, m_slots + 2 * slot, sizeof(v), cudaMemcpyDeviceToHost); e != cudaSuccess) return e;
  mhz = probe_to_mhz(v[0], v[1]);
  return cudaSuccess;
}

}  // namespace cuop::measure
