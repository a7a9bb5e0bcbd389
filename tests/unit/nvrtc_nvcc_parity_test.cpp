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
#include "tuner/ops/groupnorm/source.hpp"
#include "tuner/ops/norm/source.hpp"
#include "tuner/ops/softmax/source.hpp"

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
std::string nvcc_ptxas_log(const std::string& source, const std::string& entry, const std::string& target_name) {
  const fs::path dir = fs::temp_directory_path() / ("cuop_parity_" + std::to_string(::getpid()) + "_" + target_name);
  fs::create_directories(dir);
  const fs::path cu = dir / (entry + ".cu");
  std::ofstream(cu) << source;
  const std::string arch = target_name.substr(3);  // "sm_90a" -> "90a"
  std::string cmd = quoted(nvcc_path()) + " -cubin -gencode arch=compute_" + arch + ",code=sm_" + arch;
  for (const auto& f : device_flags()) cmd += " " + quoted(f);
  for (const auto& d : default_include_dirs()) cmd += " " + quoted("-I" + d);
  cmd += " -Xptxas -v " + quoted(cu.string()) + " -o " + quoted((dir / "out.cubin").string()) + " 2>&1";
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

void expect_same_usage(const std::string& source, const std::string& entry, const std::string& target_name,
                       int block_threads) {
  SCOPED_TRACE(entry + " on " + target_name);
  const compiler c("", default_include_dirs());
  const result nvrtc = c.build({source, entry, target_name, block_threads, 0});
  ASSERT_EQ(nvrtc.status, build_status::ok) << nvrtc.message << "\n" << nvrtc.log;
  const std::string nvcc_log = nvcc_ptxas_log(source, entry, target_name);
  const resource_usage nvcc = parse_ptxas_log(nvcc_log, entry);
  // Known cause of a register difference with CUDA 13.0: NVRTC addresses shared memory with
  // 64-bit pointers where nvcc's cicc uses 32-bit ones (compare the PTX of both).
  EXPECT_EQ(nvrtc.usage.registers, nvcc.registers) << "nvrtc:\n" << nvrtc.log << "nvcc:\n" << nvcc_log;
  EXPECT_EQ(nvrtc.usage.smem_static, nvcc.smem_static);
  EXPECT_EQ(nvrtc.usage.stack_bytes, nvcc.stack_bytes);
  EXPECT_EQ(nvrtc.usage.spill_stores, nvcc.spill_stores);
  EXPECT_EQ(nvrtc.usage.spill_loads, nvcc.spill_loads);
}

bool have_nvcc() { return fs::exists(nvcc_path()); }

}  // namespace

// One configuration of every family, on every target: the code the tuner measured (NVRTC) and
// the code the library ships (nvcc) use the same registers, shared memory, stack and spills.
// Known trap (docs/ARCHITECTURE.md): NVRTC addresses shared memory through 64-bit generic
// pointers where nvcc uses 32-bit ones, so kernels must not index shared memory through generic
// pointers with run-time offsets; these families do not, and this test keeps them honest.
TEST(nvrtc_nvcc_parity, softmax_configuration_of_every_family) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found at " << nvcc_path() << " (set CUDACXX)";
  namespace ks = cuop::kernels::softmax;
  std::vector<ks::softmax_config> configs(5);
  configs[0] = {ks::family::warp_row, cuop::dtype::bf16, 8, 32, 4, 0, 2};
  configs[1] = {ks::family::block_row, cuop::dtype::f16, 8, 0, 0, 256, 2};
  configs[2] = {ks::family::split_row, cuop::dtype::f32, 4, 0, 0, 512, 8};
  configs[3] = {ks::family::cluster_row, cuop::dtype::f32, 4, 0, 0, 512, 8, 8};  // traps on sm_80
  configs[4] = {ks::family::row_tile, cuop::dtype::f16, 8, 4, 32, 0, 16};        // shared memory by 32-bit addresses
  for (const auto& cfg : configs) {
    ASSERT_EQ(ks::check_config(cfg), "") << ks::instance_name(cfg);
    const std::string source = cuop::ops::softmax_entry_source(cfg);
    for (const char* t : {"sm_80", "sm_90a", "sm_100a"}) {
      SCOPED_TRACE(ks::instance_name(cfg) + " " + t);
      expect_same_usage(source, ks::instance_name(cfg), t, ks::threads_per_block(cfg));
    }
  }
}

// The normalizations: each family, both kinds, the default rule's odd block and chunk counts.
TEST(nvrtc_nvcc_parity, norm_configuration_of_every_family) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found at " << nvcc_path() << " (set CUDACXX)";
  namespace kn = cuop::kernels::norm;
  const std::vector<kn::norm_config> configs = {
      {kn::norm_kind::rmsnorm, kn::family::warp_row, cuop::dtype::bf16, 8, 32, 4, 0, 4},
      {kn::norm_kind::layernorm, kn::family::warp_row, cuop::dtype::f16, 8, 32, 4, 0, 5},
      {kn::norm_kind::layernorm, kn::family::block_row, cuop::dtype::bf16, 8, 0, 0, 160, 4},
      {kn::norm_kind::layernorm, kn::family::block_loop, cuop::dtype::f32, 4, 0, 0, 512, 0}};
  for (const auto& cfg : configs) {
    ASSERT_EQ(kn::check_config(cfg), "") << kn::instance_name(cfg);
    const std::string source = cuop::ops::norm_entry_source(cfg);
    for (const char* t : {"sm_80", "sm_90a", "sm_100a"}) {
      SCOPED_TRACE(kn::instance_name(cfg) + " " + t);
      expect_same_usage(source, kn::instance_name(cfg), t, kn::threads_per_block(cfg));
    }
  }
}

// GroupNorm: NHWC with SiLU (the U-Net's) and NCHW without.
TEST(nvrtc_nvcc_parity, groupnorm_configurations) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not found at " << nvcc_path() << " (set CUDACXX)";
  namespace kg = cuop::kernels::groupnorm;
  const std::vector<kg::groupnorm_config> configs = {
      {kg::family::group_loop, cuop::dtype::bf16, kg::layout::nhwc, true, 8, 512},
      {kg::family::group_loop, cuop::dtype::f32, kg::layout::nchw, false, 4, 256},
      {kg::family::group_cluster, cuop::dtype::bf16, kg::layout::nchw, true, 8, 1024, 2},
      {kg::family::group_span, cuop::dtype::f16, kg::layout::nhwc, false, 8, 512, 4, 8}};
  for (const auto& cfg : configs) {
    ASSERT_EQ(kg::check_config(cfg), "") << kg::instance_name(cfg);
    const std::string source = cuop::ops::groupnorm_entry_source(cfg);
    for (const char* t : {"sm_80", "sm_90a", "sm_100a"}) {
      SCOPED_TRACE(kg::instance_name(cfg) + " " + t);
      expect_same_usage(source, kg::instance_name(cfg), t, cfg.block_threads);
    }
  }
}
