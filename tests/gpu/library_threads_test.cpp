// The library under concurrent calls: 8 host threads share 4 streams per device (two devices when
// the machine has them) and call softmax, gemm and conv2d on mixed shapes, each thread on its own
// operands, every path that keeps state (choices made by racing threads, per-stream buffers
// growing while other threads queue work on the same stream, split_row's and split-K's
// self-resetting workspaces, the shared cuDNN handle, cuFFT plans, per-thread cuBLASLt handles).
// Every output is checked against the reference.
#include <gtest/gtest.h>

#include <barrier>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_support.hpp"
#include "library_cases.hpp"

namespace {

using cuop::dtype;
using cuop::test::op_case;
namespace kc = cuop::kernels::conv;
namespace kg = cuop::kernels::gemm;

constexpr int threads = 8;
constexpr int streams_per_device = 4;
constexpr int rounds = 3;

// The same list for every thread, so that threads race to make the same first choices. Ordered
// so that per-stream buffers grow while other threads use them (small workspaces first).
std::vector<std::unique_ptr<op_case>> mixed_cases() {
  using namespace cuop::test;
  const auto col = kg::b_layout::col;
  std::vector<std::unique_ptr<op_case>> v;
  v.push_back(softmax_case(dtype::f16, 8192, 128));
  v.push_back(softmax_case(dtype::bf16, 3, 300000));  // split_row, cooperative: a small workspace
  v.push_back(gemm_case(dtype::bf16, dtype::bf16, col, 1, 4096, 4096));
  v.push_back(conv_case(dtype::f16, conv_shape_of(kc::layout::nhwc, 2, 28, 28, 512, 512, 7, 1, 3, 512)));
  v.push_back(softmax_case(dtype::f32, 64, 262144));  // split_row, a block per segment: more workspace
  v.push_back(gemm_case(dtype::f16, dtype::f16, col, 127, 1031, 4093));  // split-K counters, packed operands
  v.push_back(conv_case(dtype::f16, conv_shape_of(kc::layout::nhwc, 4, 56, 56, 64, 64, 3, 1, 1, 1)));
  v.push_back(softmax_case(dtype::f32, 512, 4096));
  v.push_back(gemm_case(dtype::bf16, dtype::bf16, col, 1000, 1000, 1000));
  v.push_back(conv_case(dtype::f32, conv_shape_of(kc::layout::nchw, 1, 128, 128, 32, 32, 11, 1, 5, 1)));
  v.push_back(softmax_case(dtype::f32, 255, 262144));  // more still
  v.push_back(gemm_case(dtype::bf16, dtype::bf16, col, 128, 4096, 4096));
  v.push_back(conv_case(dtype::f16, conv_shape_of(kc::layout::nhwc, 2, 20, 20, 32, 32, 3, 1, 1, 1), 1.f, 0.5f, 1));
  v.push_back(gemm_case(dtype::bf16, dtype::f32, col, 64, 256, 512, 0, 0.5f));
  v.push_back(gemm_case(dtype::bf16, dtype::bf16, col, 64, 1024, 1024, 0, 0.f, 1));
  v.push_back(conv_case(dtype::bf16, conv_shape_of(kc::layout::nhwc, 2, 12, 12, 16, 32, 3, 1, 1, 1)));
  v.push_back(softmax_case(dtype::f32, 5, 100003, 1, 3));
  return v;
}

// One thread's work: prepare its cases, wait for the others, then per round queue every case on
// a stream (a different one each round) and check them all. Failures are returned as text.
std::vector<std::string> run_thread(int t, int device, const std::vector<cudaStream_t>& streams,
                                    std::barrier<>& start) {
  std::vector<std::string> failures;
  const auto fail = [&](const std::string& what) { failures.push_back("thread " + std::to_string(t) + ": " + what); };
  if (cudaSetDevice(device) != cudaSuccess) {
    fail("cudaSetDevice");
    start.arrive_and_drop();
    return failures;
  }
  auto cases = mixed_cases();
  for (auto& c : cases)
    if (const std::string why = c->prepare(); !why.empty()) fail(c->name() + ": " + why);
  start.arrive_and_wait();
  if (!failures.empty()) return failures;
  for (int round = 0; round < rounds; ++round) {
    std::vector<cudaStream_t> used(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      used[i] = streams[(t + i + round) % streams.size()];
      if (cases[i]->poison(used[i]) != cudaSuccess) fail(cases[i]->name() + ": poison");
      if (const auto s = cases[i]->call(used[i]); s != cuop::status::success)
        fail(cases[i]->name() + ": " + cuop::to_string(s));
    }
    for (std::size_t i = 0; i < cases.size(); ++i)
      if (const std::string bad = cases[i]->check(used[i]); !bad.empty())
        fail(cases[i]->name() + " round " + std::to_string(round) + ": " + bad + " [" + cases[i]->choice() + "]");
  }
  return failures;
}

}  // namespace

TEST(sm80_library_threads, eight_threads_four_streams_mixed_shapes) {
  CUOP_REQUIRE_GPU();
  int count = 0;
  CUOP_CUDA_ASSERT(cudaGetDeviceCount(&count));
  const int devices = count >= 2 ? 2 : 1;
  std::vector<std::vector<cudaStream_t>> streams(devices);
  for (int d = 0; d < devices; ++d) {
    CUOP_CUDA_ASSERT(cudaSetDevice(d));
    for (int i = 0; i < streams_per_device; ++i) {
      cudaStream_t s = nullptr;
      CUOP_CUDA_ASSERT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      streams[d].push_back(s);
    }
  }
  CUOP_CUDA_ASSERT(cudaSetDevice(0));
  std::barrier start(threads);
  std::vector<std::vector<std::string>> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { failures[t] = run_thread(t, t % devices, streams[t % devices], start); });
  for (auto& th : pool) th.join();
  for (const auto& per_thread : failures)
    for (const auto& f : per_thread) ADD_FAILURE() << f;
  for (int d = 0; d < devices; ++d) {
    cudaSetDevice(d);
    for (cudaStream_t s : streams[d]) cudaStreamDestroy(s);
  }
  cudaSetDevice(0);
  std::printf("  %d threads x %d streams on %d device(s), %d rounds of %zu cases each\n", threads, streams_per_device,
              devices, rounds, mixed_cases().size());
}

// The per-thread default stream of several threads is one handle for as many streams: 4 threads
// call split_row softmax and split-K GEMM on cudaStreamPerThread at once, and must not share a
// self-resetting workspace.
TEST(sm80_library_threads, per_thread_default_streams) {
  CUOP_REQUIRE_GPU();
  std::vector<std::string> failures;
  std::mutex m;
  std::barrier start(4);
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&] {
      auto a = cuop::test::softmax_case(dtype::f32, 64, 262144);
      auto b = cuop::test::gemm_case(dtype::f16, dtype::f16, kg::b_layout::col, 127, 1031, 4093);
      std::vector<std::string> mine;
      for (auto* c : {a.get(), b.get()})
        if (auto why = c->prepare(); !why.empty()) mine.push_back(c->name() + ": " + why);
      start.arrive_and_wait();
      for (int i = 0; i < 8 && mine.empty(); ++i)
        for (auto* c : {a.get(), b.get()}) {
          c->poison(cudaStreamPerThread);
          if (auto st = c->call(cudaStreamPerThread); st != cuop::status::success)
            mine.push_back(c->name() + ": " + cuop::to_string(st));
          if (auto bad = c->check(cudaStreamPerThread); !bad.empty()) mine.push_back(c->name() + ": " + bad);
        }
      std::lock_guard lock(m);
      failures.insert(failures.end(), mine.begin(), mine.end());
    });
  for (auto& th : pool) th.join();
  for (const auto& f : failures) ADD_FAILURE() << f;
}

// A stream destroyed with the library's work still queued, and a new stream, which CUDA may give
// the same handle: the new stream's call must wait for the old work before it uses the buffers
// the library keeps for that handle.
TEST(sm80_library_threads, a_destroyed_stream_handle_reused) {
  CUOP_REQUIRE_GPU();
  auto a = cuop::test::softmax_case(dtype::f32, 255, 262144);
  auto b = cuop::test::softmax_case(dtype::f32, 255, 262144);
  ASSERT_EQ(a->prepare(), "");
  ASSERT_EQ(b->prepare(), "");
  cudaStream_t keep = nullptr;
  CUOP_CUDA_ASSERT(cudaStreamCreateWithFlags(&keep, cudaStreamNonBlocking));
  int reused = 0;
  for (int i = 0; i < 8; ++i) {
    cudaStream_t first = nullptr, second = nullptr;
    CUOP_CUDA_ASSERT(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
    CUOP_CUDA_ASSERT(a->poison(first));
    ASSERT_EQ(a->call(first), cuop::status::success);
    CUOP_CUDA_ASSERT(cudaStreamDestroy(first));  // the softmax may still be running
    CUOP_CUDA_ASSERT(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
    reused += second == first;
    CUOP_CUDA_ASSERT(b->poison(second));
    ASSERT_EQ(b->call(second), cuop::status::success);
    CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
    EXPECT_EQ(a->check(keep), "") << "the call on the destroyed stream";
    EXPECT_EQ(b->check(keep), "") << "the call on the new stream";
    CUOP_CUDA_ASSERT(cudaStreamDestroy(second));
  }
  cudaStreamDestroy(keep);
  std::printf("  the new stream reused the destroyed one's handle %d of 8 times\n", reused);
}
