// The measurement engine on a GPU: clock-settled warm-up with per-sample clocks, CUDA-graph
// batches over rotated buffer sets (every set really used), the clock probe against NVML, the
// NVML environment readings, and a worker's softmax trials: short ones batched, whatever the
// family's launch (plain, cooperative, clusters). Skipped without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "gpu_test_support.hpp"
#include "measure_engine_kernels.hpp"
#include "tuner/compile/compile.hpp"
#include "tuner/measure/environment_check.hpp"
#include "tuner/measure/nvml.hpp"
#include "tuner/measure/sm_clock.hpp"
#include "tuner/measure/statistics.hpp"
#include "tuner/measure/timer.hpp"
#include "tuner/ops/softmax/source.hpp"
#include "tuner/runner/worker.hpp"
#include "tuner/runner/worker_process.hpp"
#include "tuner/trial/protocol.hpp"

namespace {

using namespace cuop;

struct device_buffers {
  std::vector<float*> in, out;
  ~device_buffers() {
    for (auto* p : in) cudaFree(p);
    for (auto* p : out) cudaFree(p);
  }
};

// The clock source the worker would use: NVML if present, else the probe.
std::unique_ptr<measure::sm_clock> open_clock(std::unique_ptr<measure::nvml_device>& nvml) {
  const auto info = runner::probe_device(0);
  std::string why;
  nvml = measure::nvml_device::open(info.uuid, why);
  std::string note;
  auto clock = measure::sm_clock::open(nvml.get(), note);
  if (!note.empty()) std::cerr << "clock: " << note << '\n';
  return clock;
}

}  // namespace

TEST(measure_engine, single_launches_settle_and_record_a_clock_per_sample) {
  CUOP_REQUIRE_GPU();
  const long long n = 1LL << 25;  // 128 MB in, 128 MB out: tens of microseconds
  device_buffers b;
  b.in.resize(1);
  b.out.resize(1);
  CUOP_CUDA_ASSERT(cudaMalloc(reinterpret_cast<void**>(&b.in[0]), n * sizeof(float)));
  CUOP_CUDA_ASSERT(cudaMalloc(reinterpret_cast<void**>(&b.out[0]), n * sizeof(float)));
  CUOP_CUDA_ASSERT(cudaMemset(b.in[0], 0, n * sizeof(float)));
  const auto info = runner::probe_device(0);
  measure::l2_flusher flusher(info.l2_bytes);
  std::unique_ptr<measure::nvml_device> nvml;
  auto clock = open_clock(nvml);
  measure::settings s;
  s.max_time_s = 0.5;
  measure::timer_options o;
  o.clock = clock.get();
  o.l2_bytes = info.l2_bytes;
  const auto t =
      measure::time_launches([&](cudaStream_t st) { return test::launch_scaled_copy(b.in[0], b.out[0], n, 2.f, st); },
                             s, &flusher, nullptr, o);
  ASSERT_EQ(t.error, cudaSuccess) << cudaGetErrorString(t.error);
  EXPECT_EQ(t.batch, 1);
  EXPECT_GE(t.samples_us.size(), 10u);
  EXPECT_EQ(t.clocks_mhz.size(), t.samples_us.size());
  EXPECT_GE(t.warmup_ms, s.warmup_ms);
  EXPECT_GE(t.warmup_launches, 16);
  EXPECT_FALSE(t.stop_reason.empty());
  EXPECT_EQ(t.clock_source, clock->name());
  if (clock->kind() != measure::sm_clock::source::none) {
    for (double mhz : t.clocks_mhz) {
      EXPECT_TRUE(mhz > 100 && mhz < 5000) << mhz;
    }
  }
  const auto sum = measure::summarize(t.samples_us);
  std::cout << "copy of 128 MB: median " << sum.median << " us, " << t.samples_us.size() << " samples, stop "
            << t.stop_reason << ", warm-up " << t.warmup_ms << " ms (" << t.warmup_launches << " launches"
            << (t.warmup_capped ? ", capped" : "") << "), clock " << t.clock_source << " "
            << (t.clocks_mhz.empty() ? 0 : t.clocks_mhz.back()) << " MHz\n";
}

TEST(measure_engine, short_kernels_are_timed_as_graphs_over_every_buffer_set) {
  CUOP_REQUIRE_GPU();
  const long long n = 1LL << 16;  // 256 KB in, 256 KB out: a few microseconds
  const std::size_t bytes = n * sizeof(float);
  device_buffers b;
  const auto info = runner::probe_device(0);
  measure::buffer_rotation rotation;
  rotation.set_bytes = 2 * bytes;
  rotation.prepare = [&](int sets) {
    while (static_cast<int>(b.in.size()) < sets) {
      float *in = nullptr, *out = nullptr;
      if (auto e = cudaMalloc(reinterpret_cast<void**>(&in), bytes); e != cudaSuccess) return e;
      if (auto e = cudaMalloc(reinterpret_cast<void**>(&out), bytes); e != cudaSuccess) return e;
      b.in.push_back(in);
      b.out.push_back(out);
      // Input 1.0 everywhere; output poisoned with 0xff bytes (NaN) until a launch writes it.
      std::vector<float> ones(n, 1.f);
      if (auto e = cudaMemcpy(in, ones.data(), bytes, cudaMemcpyHostToDevice); e != cudaSuccess) return e;
      if (auto e = cudaMemset(out, 0xff, bytes); e != cudaSuccess) return e;
    }
    return cudaSuccess;
  };
  rotation.launch = [&](int set, cudaStream_t st) {
    return test::launch_scaled_copy(b.in.at(set), b.out.at(set), n, 3.f, st);
  };
  ASSERT_EQ(rotation.prepare(1), cudaSuccess);
  measure::l2_flusher flusher(info.l2_bytes);
  std::unique_ptr<measure::nvml_device> nvml;
  auto clock = open_clock(nvml);
  cudaStream_t stream{};
  CUOP_CUDA_ASSERT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  measure::settings s;
  s.max_time_s = 0.3;
  measure::timer_options o;
  o.clock = clock.get();
  o.l2_bytes = info.l2_bytes;
  const auto single_launch = [&](cudaStream_t st) { return rotation.launch(0, st); };
  o.force_batch = 1;
  const auto single = measure::time_launches(single_launch, s, &flusher, stream, o);
  ASSERT_EQ(single.error, cudaSuccess);
  EXPECT_EQ(single.batch, 1);
  o.force_batch = 0;
  o.rotation = &rotation;
  const auto batched = measure::time_launches(single_launch, s, &flusher, stream, o);
  ASSERT_EQ(batched.error, cudaSuccess) << cudaGetErrorString(batched.error);
  EXPECT_TRUE(batched.note.empty()) << batched.note;
  EXPECT_GT(batched.batch, 1);
  EXPECT_GE(batched.buffer_sets, 2);
  EXPECT_LE(batched.buffer_sets, batched.batch);
  // Sets together exceed twice the L2 unless capped at 256.
  EXPECT_TRUE(batched.buffer_sets == 256 || batched.buffer_sets * 2.0 * bytes > 2.0 * info.l2_bytes);
  // Every set the graph rotated over was written.
  for (int set = 0; set < batched.buffer_sets; ++set) {
    std::vector<float> out(n);
    CUOP_CUDA_ASSERT(cudaMemcpy(out.data(), b.out.at(set), bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(out.front(), 3.f) << "set " << set;
    EXPECT_EQ(out.back(), 3.f) << "set " << set;
  }
  const auto ms = measure::summarize(single.samples_us), mb = measure::summarize(batched.samples_us);
  std::cout << "copy of 256 KB: single launches median " << ms.median << " us (CI " << ms.ci_lo << "-" << ms.ci_hi
            << ", stop " << single.stop_reason << "); graphs of " << batched.batch << " over " << batched.buffer_sets
            << " sets median " << mb.median << " us (CI " << mb.ci_lo << "-" << mb.ci_hi << ", stop "
            << batched.stop_reason << ")\n";
  cudaStreamDestroy(stream);
}

TEST(measure_engine, the_clock_probe_agrees_with_nvml) {
  CUOP_REQUIRE_GPU();
  std::string note;
  auto probe = measure::sm_clock::open(nullptr, note);
  ASSERT_EQ(probe->kind(), measure::sm_clock::source::globaltimer) << note;
  CUOP_CUDA_ASSERT(probe->enqueue_probe(nullptr, 3));
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  double mhz = 0;
  CUOP_CUDA_ASSERT(probe->probe_mhz(3, mhz));
  EXPECT_GT(mhz, 200);
  EXPECT_LT(mhz, 4000);
  std::unique_ptr<measure::nvml_device> nvml;
  auto clock = open_clock(nvml);
  std::cout << "probe: " << mhz << " MHz";
  if (nvml) {
    const double reference = nvml->sm_clock_mhz();
    std::cout << ", NVML: " << reference << " MHz";
    EXPECT_NEAR(mhz, reference, 0.15 * reference);  // an idle GPU may change clock in between
  }
  std::cout << '\n';
}

TEST(measure_engine, nvml_reads_this_gpu_and_its_environment) {
  CUOP_REQUIRE_GPU();
  const auto info = runner::probe_device(0);
  std::string why;
  auto nvml = measure::nvml_device::open(info.uuid, why);
  if (!nvml) GTEST_SKIP() << "NVML not usable here: " << why;
  EXPECT_GT(nvml->sm_clock_mhz(), 0u);
  unsigned long long reasons = 0;
  EXPECT_TRUE(nvml->clock_event_reasons(reasons));
  unsigned now = 0, slowdown = 0;
  EXPECT_TRUE(nvml->temperature_c(now, slowdown));
  EXPECT_GT(now, 0u);
  std::vector<unsigned> pids;
  EXPECT_TRUE(nvml->compute_pids(pids));  // this process holds a context: usually listed
  std::cout << "NVML: " << nvml->sm_clock_mhz() << " MHz, reasons " << measure::describe_clock_reasons(reasons) << ", "
            << now << " C (slowdown " << slowdown << " C), " << pids.size() << " compute processes\n";
}

TEST(measure_engine, the_worker_answers_the_environment_and_batches_short_softmax_trials) {
  CUOP_REQUIRE_GPU();
  runner::worker_process w(0, CUOP_TUNE_BIN);
  const auto env = w.call({{"cmd", "environment"}}, 60);
  ASSERT_EQ(env.kind, runner::worker_process::outcome_kind::answered) << env.message;
  const auto e = measure::gpu_environment_from_json(env.answer);
  if (e.checked) EXPECT_GT(e.sm_clock_mhz, 0u);
  else EXPECT_FALSE(e.error.empty());
  std::cout << "environment: " << env.answer.dump() << '\n';

  namespace ks = kernels::softmax;
  int major = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  const std::string target = major == 8 ? "sm_80" : major == 9 ? "sm_90a" : "sm_100a";
  const auto dir = std::filesystem::temp_directory_path() / ("cuop-measure-gpu-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  compile::compiler cc((dir / "cache").string(), compile::default_include_dirs());
  std::vector<ks::softmax_config> configs = {
      {ks::family::block_row, dtype::f32, 4, 0, 0, 256, 1, 0},
      {ks::family::split_row, dtype::f32, 4, 0, 0, 128, 1, 0},  // cooperative
  };
  if (major >= 9) configs.push_back({ks::family::cluster_row, dtype::f32, 4, 0, 0, 128, 1, 2});  // clusters
  for (const auto& c : configs) {
    const auto name = ks::instance_name(c);
    const auto built = cc.build({ops::softmax_entry_source(c), name, target, c.block_threads, 0});
    ASSERT_EQ(built.status, compile::build_status::ok) << built.message;
    const auto path = (dir / (name + ".cubin")).string();
    std::ofstream(path, std::ios::binary).write(built.cubin.data(), static_cast<std::streamsize>(built.cubin.size()));
    trial::trial_request r;
    r.cubin_path = path;
    r.entry = name;
    r.op = "softmax";
    r.dtype = "f32";
    nlohmann::json params = {{"vec", c.vec}, {"block_threads", c.block_threads}, {"chunks", c.chunks}};
    if (c.fam == ks::family::cluster_row) params["cluster"] = c.cluster;
    r.config = {{"family", std::string(ks::name_of(c.fam))}, {"params", params}};
    r.dims = {{"rows", 64}, {"cols", 1024}};  // 256 KB: a few microseconds
    r.measure.max_time_s = 0.3;
    const auto o = w.call(trial::to_json(r), 60);
    ASSERT_EQ(o.kind, runner::worker_process::outcome_kind::answered) << o.message;
    const auto resp = trial::trial_response_from_json(o.answer);
    ASSERT_EQ(resp.status, "ok") << name << ": " << resp.message;
    EXPECT_GT(resp.batch, 1) << name << ": " << resp.note;
    EXPECT_EQ(resp.clocks_mhz.size(), resp.samples_us.size());
    std::cout << name << ": median " << measure::summarize(resp.samples_us).median << " us, batch " << resp.batch
              << " over " << resp.buffer_sets << " sets, stop " << resp.stop_reason << ", warm-up " << resp.warmup_ms
              << " ms" << (resp.warmup_capped ? " (capped)" : "") << ", clock " << resp.clock_source
              << (resp.note.empty() ? "" : ", note: " + resp.note) << '\n';
  }
  std::filesystem::remove_all(dir);
}
