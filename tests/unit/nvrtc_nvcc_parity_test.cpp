// One kernel source, two compilers: the tuner measures what NVRTC built, the library ships what
// nvcc builds. Both must give the same code, checked here through ptxas' resource usage.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tuner/compile/compile.hpp"
#include "tuner/ops/softmax_source.hpp"

namespace fs = std::filesystem;
using namespace cuop::compile;

namespace {

std::string nvcc_path() {
#ifdef CUOP_NVCC
  return CUOP_NVCC;
#else
  if (const char* env = std::getenv("CUDACXX"); env != nullptr && *env != '\0') return env;
  return "/usr/local/cuda/bin/nvcc";
#endif
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Compiles `source` with nvcc the way the library build does (device flags, same includes) and
// returns ptxas' report; fails the test when nvcc fails.
std::string nvcc_ptxas_log(const std::string& source, const std::string& entry,
                           const std::string& target_name) {
  const fs::path dir =
      fs::temp_directory_path() / ("cuop_parity_" + std::to_string(::getpid()) + "_" + target_name);
  fs::create_directories(dir);
  const fs::path cu = dir / (entry + ".cu");
  std::ofstream(cu) << source;
  const std::string arch = target_name.substr(3);  // "sm_90a" -> "90a"
  std::string cmd =
      quoted(nvcc_path()) + " -cubin -gencode arch=compute_" + arch + ",code=sm_" + arch;
  for (const auto& f : device_flags()) cmd += " " + quoted(f);
  for (const auto& d : default_include_dirs()) cmd += " " + quoted("-I" + d);
  cmd += " -Xptxas -v " + quoted(cu.string()) + " -o " + quoted((dir / "out.cubin").string()) +
         " 2>&1";
  std::string out;
  if (FILE* pipe = ::popen(cmd.c_str(), "r")) {
    std::array<char, 4096> buf;
    while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
    const int rc = ::pclose(pipe);
    EXPECT_EQ(rc, 0) << cmd << "\n" << out;
  } else {
    ADD_FAILURE() << "cannot run " << cmd;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return out;
}

void expect_same_usage(const std::string& source, const std::string& entry,
                       const std::string& target_name, int block_threads) {
  SCOPED_TRACE(entry + " on " + target_name);
  const compiler c("", default_include_dirs());
  const result nvrtc = c.build({source, entry, target_name, block_threads, 0});
  ASSERT_EQ(nvrtc.status, build_status::ok) << nvrtc.message << "\n" << nvrtc.log;
  const std::string nvcc_log = nvcc_ptxas_log(source, entry, target_name);
  const resource_usage nvcc = parse_ptxas_log(nvcc_log, entry);
  // Known cause of a register difference with CUDA 13.0: NVRTC addresses shared memory with
  // 64-bit pointers where nvcc's cicc uses 32-bit ones (compare the PTX of both).
  EXPECT_EQ(nvrtc.usage.registers, nvcc.registers) << "nvrtc:\n"
                                                   << nvrtc.log << "nvcc:\n"
                                                   << nvcc_log;
  EXPECT_EQ(nvrtc.usage.smem_static, nvcc.smem_static);
  EXPECT_EQ(nvrtc.usage.stack_bytes, nvcc.stack_bytes);
  EXPECT_EQ(nvrtc.usage.spill_stores, nvcc.spill_stores);
  EXPECT_EQ(nvrtc.usage.spill_loads, nvcc.spill_loads);
}

bool have_nvcc() { return fs::exists(nvcc_path()); }

// A block reduction over registers and dynamic shared memory, written like the kernel templates
// (CCCL headers only), so the mechanism is checked even without the softmax family.
const char* k_stand_in = R"(
#include <cuda/std/limits>
extern "C" __global__ void __launch_bounds__(256) stand_in_row_max(const float* in, float* out,
                                                                  long long cols) {
  extern __shared__ float partial[];
  float m = -cuda::std::numeric_limits<float>::infinity();
  const float* row = in + blockIdx.x * cols;
  for (long long i = threadIdx.x; i < cols; i += blockDim.x) m = fmaxf(m, row[i]);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < blockDim.x / 32; ++w) m = fmaxf(m, partial[w]);
    out[blockIdx.x] = m;
  }
}
)";

}  // namespace

TEST(nvrtc_nvcc_parity, stand_in_kernel) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found at " << nvcc_path() << " (set CUDACXX)";
  for (const char* t : {"sm_90a", "sm_80"})
    expect_same_usage(k_stand_in, "stand_in_row_max", t, 256);
}

TEST(nvrtc_nvcc_parity, softmax_configuration) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found at " << nvcc_path() << " (set CUDACXX)";
  namespace ks = cuop::kernels::softmax;
  ks::softmax_config cfg;
  cfg.fam = ks::family::block_row;
  cfg.type = cuop::dtype::f16;
  cfg.vec = 8;
  cfg.block_threads = 256;
  cfg.chunks = 2;
  ASSERT_EQ(ks::check_config(cfg), "");
  const std::string source = cuop::ops::softmax_entry_source(cfg);
  for (const char* t : {"sm_90a", "sm_80"})
    expect_same_usage(source, ks::instance_name(cfg), t, ks::threads_per_block(cfg));
}
