// tuner/compile: ptxas report parsing, target limits, NVRTC builds (no GPU needed), the cache.
#include "tuner/compile/compile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tuner/core/error.hpp"

#ifndef CUOP_TEST_DATA_DIR
#error "CUOP_TEST_DATA_DIR must name tests/data"
#endif

namespace fs = std::filesystem;
using namespace cuop::compile;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(fs::path(CUOP_TEST_DATA_DIR) / "compile" / name);
  EXPECT_TRUE(in) << "missing fixture " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh folder under the system temp folder, removed with its contents at scope exit.
struct temp_dir {
  fs::path path;
  temp_dir() {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() /
           ("cuop_compile_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const target& tgt(const char* name) {
  const target* t = find_target(name);
  if (t == nullptr) throw std::runtime_error(std::string("no target ") + name);
  return *t;
}

const char* k_tiny = R"(
extern "C" __global__ void tiny(float* p) {
  __shared__ float s[256];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[255 - threadIdx.x] * 2.0f;
}
)";

request tiny_request(const std::string& target_name) { return {k_tiny, "tiny", target_name, 256, 0}; }

}  // namespace

TEST(compile_targets, published_limits) {
  EXPECT_EQ(tgt("sm_80").max_smem_per_block, 166912);
  EXPECT_EQ(tgt("sm_90a").max_smem_per_block, 232448);
  EXPECT_EQ(tgt("sm_100a").max_smem_per_block, 232448);
  EXPECT_EQ(tgt("sm_90a").cc, 90);
  EXPECT_EQ(tgt("sm_100a").cc, 100);
  for (const auto& name : target_names()) {
    const target& t = tgt(name.c_str());
    EXPECT_EQ(t.max_threads_per_block, 1024);
    EXPECT_EQ(t.max_regs_per_thread, 255);
    EXPECT_EQ(t.max_regs_per_block, 65536);
    EXPECT_EQ(t.max_static_smem, 49152);
  }
  EXPECT_EQ(tgt("sm_75").max_smem_per_block, 65536);
  for (const char* consumer : {"sm_86", "sm_89", "sm_120"}) EXPECT_EQ(tgt(consumer).max_smem_per_block, 101376);
  EXPECT_EQ(tgt("sm_90").max_smem_per_block, 232448);
  EXPECT_TRUE(tgt("sm_90a").arch_specific);
  EXPECT_FALSE(tgt("sm_90").arch_specific);
  EXPECT_EQ(target_names(),
            (std::vector<std::string>{"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120"}));
  EXPECT_EQ(default_target_names(), (std::vector<std::string>{"sm_80", "sm_90a", "sm_100a"}));
  EXPECT_EQ(measuring_target(90)->name, "sm_90a");  // an H200 is measured with its own code
  EXPECT_EQ(measuring_target(86)->name, "sm_86");
  EXPECT_EQ(measuring_target(87), nullptr);
  EXPECT_EQ(find_target("sm_91"), nullptr);
  EXPECT_EQ(find_target(""), nullptr);
}

TEST(compile_hash, fnv1a_64_reference_values) {
  EXPECT_EQ(hash_hex(""), "cbf29ce484222325");
  EXPECT_EQ(hash_hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(hash_hex("foobar"), "85944171f73967e8");
  EXPECT_NE(hash_hex("ab"), hash_hex("ba"));
}

TEST(compile_status, names) {
  EXPECT_EQ(name_of(build_status::ok), "ok");
  EXPECT_EQ(name_of(build_status::compile_error), "compile_error");
  EXPECT_EQ(name_of(build_status::over_limit), "over_limit");
}

TEST(compile_ptxas_log, picks_the_named_entry_among_several) {
  const std::string log = fixture("nvrtc_sm80_three_entries.log");
  const auto k1 = parse_ptxas_log(log, "k1");
  EXPECT_EQ(k1.registers, 9);
  EXPECT_EQ(k1.smem_static, 1024);
  EXPECT_EQ(k1.stack_bytes, 0);
  const auto k2 = parse_ptxas_log(log, "k2");
  EXPECT_EQ(k2.registers, 21);
  EXPECT_EQ(k2.smem_static, 0);
  EXPECT_EQ(k2.stack_bytes, 256);
  const auto k3 = parse_ptxas_log(log, "k3");
  EXPECT_EQ(k3.registers, 8);
  EXPECT_EQ(k3.smem_static, 0);
}

TEST(compile_ptxas_log, usage_line_without_cmem_or_smem) {
  const auto k3 = parse_ptxas_log(fixture("nvrtc_sm90a_three_entries.log"), "k3");
  EXPECT_EQ(k3.registers, 8);
  EXPECT_EQ(k3.smem_static, 0);
  const auto k1 = parse_ptxas_log(fixture("nvrtc_sm90a_three_entries.log"), "k1");
  EXPECT_EQ(k1.registers, 10);
  EXPECT_EQ(k1.smem_static, 1024);
}

TEST(compile_ptxas_log, spills_and_a_later_device_function) {
  const auto u = parse_ptxas_log(fixture("nvrtc_sm90a_spills.log"), "spilly");
  EXPECT_EQ(u.registers, 24);
  EXPECT_EQ(u.stack_bytes, 1456);
  EXPECT_EQ(u.spill_stores, 2068);
  EXPECT_EQ(u.spill_loads, 2852);
}

TEST(compile_ptxas_log, nvcc_spelling) {
  const auto u = parse_ptxas_log(fixture("nvcc_sm80_static_smem_too_big.log"), "big");
  EXPECT_EQ(u.registers, 10);
  EXPECT_EQ(u.smem_static, 240000);
  EXPECT_EQ(u.stack_bytes, 0);
}

TEST(compile_ptxas_log, entry_not_found_throws_naming_it) {
  const std::string log = fixture("nvrtc_sm80_three_entries.log");
  try {
    parse_ptxas_log(log, "k");  // a prefix of k1 is not k1
    FAIL() << "expected cuop::error";
  } catch (const cuop::error& e) {
    EXPECT_STREQ(e.what(), "ptxas log: entry function \"k\" not found");
  }
  EXPECT_THROW(parse_ptxas_log("", "k1"), cuop::error);
  // A device function's properties are not an entry.
  EXPECT_THROW(parse_ptxas_log(fixture("nvrtc_sm90a_spills.log"), "_Z6helperPfi"), cuop::error);
}

TEST(compile_limits, fits) {
  const resource_usage u{32, 1024, 0, 0, 0};
  EXPECT_EQ(check_limits(u, tgt("sm_80"), 1024, 0), "");
  EXPECT_EQ(check_limits(u, tgt("sm_80"), 1024, 166912 - 1024), "");
  EXPECT_EQ(check_limits(u, tgt("sm_90a"), 1024, 232448 - 1024), "");
  EXPECT_EQ(check_limits({64, 0, 0, 0, 0}, tgt("sm_80"), 1024, 0), "");  // exactly 65536
}

TEST(compile_limits, threads_per_block) {
  EXPECT_EQ(check_limits({16, 0, 0, 0, 0}, tgt("sm_90a"), 2048, 0),
            "block of 2048 threads > 1024 threads per block on sm_90a");
}

TEST(compile_limits, registers_per_thread) {
  EXPECT_EQ(check_limits({256, 0, 0, 0, 0}, tgt("sm_100a"), 32, 0),
            "256 registers > 255 registers per thread on sm_100a");
}

TEST(compile_limits, registers_per_block) {
  EXPECT_EQ(check_limits({128, 0, 0, 0, 0}, tgt("sm_80"), 1024, 0),
            "128 registers x 1024 threads = 131072 > 65536 registers per block on sm_80");
  // Allocation is per warp: 255 x 257 = 65535 fits by product, but 9 warps x 8192 do not.
  EXPECT_EQ(check_limits({255, 0, 0, 0, 0}, tgt("sm_80"), 257, 0),
            "255 registers x 257 threads = 73728 > 65536 registers per block on sm_80");
}

TEST(compile_limits, shared_memory) {
  EXPECT_EQ(check_limits({32, 200000, 0, 0, 0}, tgt("sm_80"), 256, 0),
            "static shared memory 200000 bytes > 49152 bytes per block on sm_80");
  EXPECT_EQ(check_limits({32, 40000, 0, 0, 0}, tgt("sm_80"), 256, 130000),
            "shared memory 40000 + 130000 bytes > 166912 bytes per block on sm_80");
  EXPECT_EQ(check_limits({32, 40000, 0, 0, 0}, tgt("sm_90a"), 256, 130000), "");
  EXPECT_EQ(check_limits({32, 0, 0, 0, 0}, tgt("sm_90a"), 256, 232449),
            "shared memory 0 + 232449 bytes > 232448 bytes per block on sm_90a");
}

TEST(compile_device_flags, reads_the_file_named_by_the_environment) {
  temp_dir dir;
  const fs::path file = dir.path / "flags.txt";
  std::ofstream(file) << "# comment\n-std=c++20\n\n  -DFOO=1  \n#-DIGNORED\n";
  const char* old = std::getenv("CUOP_DEVICE_FLAGS_FILE");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("CUOP_DEVICE_FLAGS_FILE", file.c_str(), 1);
  const auto flags = device_flags();
  ::setenv("CUOP_DEVICE_FLAGS_FILE", (dir.path / "absent.txt").c_str(), 1);
  EXPECT_THROW(device_flags(), cuop::error);
  if (old != nullptr) ::setenv("CUOP_DEVICE_FLAGS_FILE", saved.c_str(), 1);
  else ::unsetenv("CUOP_DEVICE_FLAGS_FILE");
  EXPECT_EQ(flags, (std::vector<std::string>{"-std=c++20", "-DFOO=1"}));
}

TEST(compile_device_flags, project_file_sets_the_language_standard) {
  const auto flags = device_flags();
  EXPECT_NE(std::find(flags.begin(), flags.end(), "-std=c++20"), flags.end());
}

TEST(compile_nvrtc, tiny_kernel_for_every_target) {
  const compiler c("", default_include_dirs());
  std::vector<std::string> keys;
  for (const auto& name : target_names()) {
    SCOPED_TRACE(name);
    const result r = c.build(tiny_request(name));
    ASSERT_EQ(r.status, build_status::ok) << r.message << "\n" << r.log;
    ASSERT_GE(r.cubin.size(), 4u);
    EXPECT_EQ(std::string(r.cubin.data(), 4),
              "\x7f"
              "ELF");
    EXPECT_GT(r.usage.registers, 0);
    EXPECT_EQ(r.usage.smem_static, 1024);
    EXPECT_EQ(r.usage.spill_stores, 0);
    EXPECT_NE(r.log.find("for '" + name + "'"), std::string::npos) << r.log;
    EXPECT_FALSE(r.from_cache);
    EXPECT_EQ(r.cubin_hash, hash_hex(std::string_view(r.cubin.data(), r.cubin.size())));
    EXPECT_EQ(r.source_hash.size(), 16u);
    EXPECT_GT(r.compile_ms, 0);
    keys.push_back(r.source_hash);
  }
  EXPECT_NE(keys[0], keys[1]);
  EXPECT_NE(keys[1], keys[2]);
}

TEST(compile_nvrtc, compile_error_reports_the_first_error_lines) {
  const compiler c("", default_include_dirs());
  const char* src = R"(
extern "C" __global__ void broken(float* p) { undeclared_thing(p); }
)";
  const result r = c.build({src, "broken", "sm_90a", 128, 0});
  EXPECT_EQ(r.status, build_status::compile_error);
  EXPECT_NE(r.message.find("error"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("undeclared_thing"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("broken.cu"), std::string::npos) << r.message;
  EXPECT_LE(std::count(r.message.begin(), r.message.end(), '\n'), 4);
  EXPECT_TRUE(r.cubin.empty());
  EXPECT_FALSE(r.log.empty());
}

TEST(compile_nvrtc, entry_missing_from_the_source_is_a_compile_error) {
  const compiler c("", default_include_dirs());
  const result r = c.build({k_tiny, "not_there", "sm_80", 256, 0});
  EXPECT_EQ(r.status, build_status::compile_error);
  EXPECT_EQ(r.message, "ptxas log: entry function \"not_there\" not found");
  EXPECT_TRUE(r.cubin.empty());
}

TEST(compile_nvrtc, unknown_target_throws) {
  const compiler c("", default_include_dirs());
  try {
    c.build(tiny_request("sm_70"));
    FAIL() << "expected cuop::error";
  } catch (const cuop::error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown target \"sm_70\" (expected one of: sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a, "
                 "sm_100a, sm_120)");
  }
}

TEST(compile_nvrtc, second_build_is_a_cache_hit) {
  temp_dir dir;
  const compiler c(dir.path.string(), default_include_dirs());
  const result first = c.build(tiny_request("sm_90a"));
  ASSERT_EQ(first.status, build_status::ok) << first.message;
  EXPECT_FALSE(first.from_cache);
  const fs::path base = dir.path / "sm_90a" / first.source_hash;
  EXPECT_TRUE(fs::exists(base.string() + ".cubin"));
  EXPECT_TRUE(fs::exists(base.string() + ".log"));

  const result second = c.build(tiny_request("sm_90a"));
  ASSERT_EQ(second.status, build_status::ok) << second.message;
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.cubin_hash, first.cubin_hash);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.usage.registers, first.usage.registers);
  EXPECT_EQ(second.usage.smem_static, first.usage.smem_static);

  // Limits are checked on a hit too: the block size is not part of the key.
  request big_block = tiny_request("sm_90a");
  big_block.block_threads = 2048;
  const result third = c.build(big_block);
  EXPECT_TRUE(third.from_cache);
  EXPECT_EQ(third.status, build_status::over_limit);

  for (const auto& e : fs::directory_iterator(dir.path / "sm_90a"))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(compile_nvrtc, huge_static_shared_array_is_over_limit) {
  const compiler c("", default_include_dirs());
  // 48 KB static (the most ptxas accepts) plus 120000 bytes dynamic: fits sm_90a, not sm_80.
  const char* src = R"(
extern "C" __global__ void hoard(float* p) {
  __shared__ float s[12288];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[12287 - threadIdx.x];
}
)";
  const result a100 = c.build({src, "hoard", "sm_80", 256, 120000});
  EXPECT_EQ(a100.status, build_status::over_limit);
  EXPECT_EQ(a100.message, "shared memory 49152 + 120000 bytes > 166912 bytes per block on sm_80");
  EXPECT_TRUE(a100.cubin.empty());
  EXPECT_EQ(a100.usage.smem_static, 49152);
  const result h100 = c.build({src, "hoard", "sm_90a", 256, 120000});
  EXPECT_EQ(h100.status, build_status::ok) << h100.message;

  // Past 48 KB static, ptxas itself refuses; the limit is still what is reported.
  const char* too_big = R"(
extern "C" __global__ void hoard(float* p) {
  __shared__ float s[60000];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[59999 - threadIdx.x];
}
)";
  const result refused = c.build({too_big, "hoard", "sm_80", 256, 0});
  EXPECT_EQ(refused.status, build_status::over_limit);
  EXPECT_EQ(refused.message, "static shared memory 240000 bytes > 49152 bytes per block on sm_80");
}

TEST(compile_nvrtc, build_all_keeps_request_order) {
  const compiler c("", default_include_dirs());
  std::vector<request> rs = {tiny_request("sm_100a"),
                             tiny_request("sm_70"),
                             {"this is not c++", "nope", "sm_80", 32, 0},
                             tiny_request("sm_80")};
  const auto results = c.build_all(rs, 3);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status, build_status::ok) << results[0].message;
  EXPECT_NE(results[0].log.find("'sm_100a'"), std::string::npos);
  EXPECT_EQ(results[1].status, build_status::compile_error);
  EXPECT_NE(results[1].message.find("unknown target \"sm_70\""), std::string::npos);
  EXPECT_EQ(results[2].status, build_status::compile_error);
  EXPECT_EQ(results[3].status, build_status::ok) << results[3].message;
  EXPECT_NE(results[3].log.find("'sm_80'"), std::string::npos);
  EXPECT_TRUE(c.build_all({}, 0).empty());
}

TEST(compile_nvrtc, concurrent_builds_share_the_cache) {
  temp_dir dir;
  const compiler c(dir.path.string(), default_include_dirs());
  const std::vector<request> rs(4, tiny_request("sm_80"));
  const auto results = c.build_all(rs, 4);
  for (const auto& r : results) {
    ASSERT_EQ(r.status, build_status::ok) << r.message;
    EXPECT_EQ(r.cubin_hash, results[0].cubin_hash);
  }
  EXPECT_TRUE(c.build(rs[0]).from_cache);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path / "sm_80")) ++files;
  EXPECT_EQ(files, 2u);  // <key>.cubin and <key>.log, no temporaries left
}
