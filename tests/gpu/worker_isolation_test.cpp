// Trials run in a worker process: a kernel that traps, writes out of bounds, hangs or computes the
// wrong answer is recorded with that status, the worker is restarted, and the next trial runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpu_test_support.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/ops/softmax/source.hpp"
#include "tuner/runner/worker_process.hpp"
#include "tuner/trial/protocol.hpp"

namespace {

namespace ks = cuop::kernels::softmax;
using cuop::runner::worker_process;

// A kernel with the softmax entry signature whose body misbehaves.
std::string faulty(const std::string& name, const std::string& body) {
  return "#include <cuop/kernels/softmax/args.cuh>\n"
         "extern \"C\" __global__ void __launch_bounds__(256) " +
         name + "(cuop::kernels::softmax::softmax_args a) {\n" + body + "\n}\n";
}

class worker_isolation : public testing::Test {
 protected:
  void SetUp() override {
    CUOP_REQUIRE_GPU();
    m_dir = std::filesystem::temp_directory_path() / "cuop-worker-test";
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
  }

  // Compiles `source` for this GPU and runs one trial of it as a block_row f32 configuration.
  worker_process::outcome trial(worker_process& w, const std::string& source, const std::string& entry) {
    int dev = 0, major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    const std::string target = major == 8 ? "sm_80" : major == 9 ? "sm_90a" : "sm_100a";
    cuop::compile::compiler cc((m_dir / "cache").string(), cuop::compile::default_include_dirs());
    const auto built = cc.build({source, entry, target, 256, 0});
    EXPECT_EQ(built.status, cuop::compile::build_status::ok) << built.message;
    const auto path = (m_dir / (entry + ".cubin")).string();
    std::ofstream(path, std::ios::binary).write(built.cubin.data(), static_cast<std::streamsize>(built.cubin.size()));
    cuop::trial::trial_request r;
    r.cubin_path = path;
    r.entry = entry;
    r.op = "softmax";
    r.dtype = "f32";
    r.config = {{"family", "block_row"}, {"params", {{"vec", 4}, {"block_threads", 256}, {"chunks", 4}}}};
    r.dims = {{"rows", 512}, {"cols", 4096}};
    r.measure.min_samples = 5;
    r.measure.max_samples = 20;
    r.measure.warmup_ms = 1;
    return w.call(cuop::trial::to_json(r), 20.0);
  }

  std::filesystem::path m_dir;
};

std::string status_of(const worker_process::outcome& o) {
  return o.kind == worker_process::outcome_kind::answered    ? o.answer.value("status", "?")
         : o.kind == worker_process::outcome_kind::timed_out ? "timeout"
                                                             : "died";
}

}  // namespace

TEST_F(worker_isolation, faults_are_recorded_and_the_sweep_goes_on) {
  worker_process w(0, CUOP_TUNE_BIN);
  ks::softmax_config good{ks::family::block_row, cuop::dtype::f32, 4, 0, 0, 256, 4};
  const auto good_source = cuop::ops::softmax_entry_source(good);
  const auto good_name = ks::instance_name(good);

  EXPECT_EQ(status_of(trial(w, good_source, good_name)), "ok");

  const auto trap = trial(w, faulty("trap_kernel", "__trap();"), "trap_kernel");
  EXPECT_EQ(status_of(trap), "crashed") << trap.answer.dump();

  const auto oob =
      trial(w, faulty("oob_kernel", "reinterpret_cast<float*>(a.out)[(1ll << 40) + threadIdx.x] = 1.f;"), "oob_kernel");
  EXPECT_EQ(status_of(oob), "crashed") << oob.answer.dump();

  const auto wrong =
      trial(w,
            faulty("wrong_kernel",
                   "long long i = blockIdx.x * 256ll + threadIdx.x;"
                   "for (; i < a.rows * a.cols; i += gridDim.x * 256ll) reinterpret_cast<float*>(a.out)[i] = 0.5f;"),
            "wrong_kernel");
  EXPECT_EQ(status_of(wrong), "wrong_answer") << wrong.answer.dump();

  const auto hang = trial(w, faulty("hang_kernel", "for (;;) asm volatile(\"nanosleep.u32 1000;\");"), "hang_kernel");
  EXPECT_EQ(status_of(hang), "timeout") << hang.message;

  // After all that, a healthy configuration still measures.
  const auto after = trial(w, good_source, good_name);
  ASSERT_EQ(status_of(after), "ok") << after.answer.dump();
  EXPECT_GE(after.answer.at("samples_us").size(), 5u);
  EXPECT_GE(w.restarts(), 3);  // trap, out of bounds, hang
}
