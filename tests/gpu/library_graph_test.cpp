// cuop::softmax, cuop::gemm and cuop::conv2d captured into CUDA graphs and replayed, against the
// reference: on the first call for a shape (the choice, handles, plans and buffers made while the
// stream captures) and on later calls, in the three capture modes, for every path the H200 table
// takes (our kernels, split_row's self-resetting workspace, split-K and packed GEMM kernels,
// cuBLASLt configurations and heuristic on plain and packed operands, cuDNN configurations and
// heuristic, FFT convolution, conv2d's staging of misaligned tensors), replayed beside direct calls
// of the same shapes on another stream. A last test runs the first capture in a fresh process, so
// that the library's very first CUDA work (handles, streams, events) happens under capture.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "library_cases.hpp"

namespace {

using cuop::dtype;
using cuop::test::op_case;
namespace kc = cuop::kernels::conv;
namespace kg = cuop::kernels::gemm;

const char* mode_name(cudaStreamCaptureMode m) {
  switch (m) {
    case cudaStreamCaptureModeGlobal: return "global";
    case cudaStreamCaptureModeThreadLocal: return "thread-local";
    case cudaStreamCaptureModeRelaxed: return "relaxed";
  }
  return "?";
}

struct stream_owner {
  cudaStream_t s = nullptr;
  explicit stream_owner(unsigned flags = cudaStreamNonBlocking) { cudaStreamCreateWithFlags(&s, flags); }
  ~stream_owner() { cudaStreamDestroy(s); }
};

struct graph_owner {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~graph_owner() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

// Captures `c`'s call on `s` in `mode` (with `before` captured first, when given), instantiates
// the graph and replays it `replays` times, each time on a poisoned output, checking it after each.
void capture_and_replay(op_case& c, cudaStream_t s, cudaStreamCaptureMode mode, int replays,
                        const std::function<void(cudaStream_t)>& before = {}) {
  SCOPED_TRACE(std::string(mode_name(mode)) + " capture");
  graph_owner g;
  CUOP_CUDA_ASSERT(cudaStreamBeginCapture(s, mode));
  if (before) before(s);
  const cuop::status st = c.call(s);
  const cudaError_t ended = cudaStreamEndCapture(s, &g.graph);
  ASSERT_EQ(st, cuop::status::success) << cuop::to_string(st);
  ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
  ASSERT_NE(g.graph, nullptr);
  CUOP_CUDA_ASSERT(cudaGraphInstantiate(&g.exec, g.graph, 0));
  for (int r = 0; r < replays; ++r) {
    SCOPED_TRACE("replay " + std::to_string(r));
    CUOP_CUDA_ASSERT(c.poison(s));
    CUOP_CUDA_ASSERT(cudaGraphLaunch(g.exec, s));
    EXPECT_EQ(c.check(s), "");
  }
}

// The whole story for one shape: the first call captured and replayed, a later call captured and
// replayed, the graph replayed while a twin case (same shape, its own operands) runs directly on
// another stream, then a direct call.
void graph_story(op_case& c, op_case& twin, cudaStreamCaptureMode mode) {
  SCOPED_TRACE(c.name());
  ASSERT_EQ(c.prepare(), "");
  ASSERT_EQ(twin.prepare(), "");
  stream_owner s, other;
  capture_and_replay(c, s.s, mode, 2);  // the first call for the shape
  if (testing::Test::HasFatalFailure()) return;
  std::printf("  %s: %s\n", c.name().c_str(), c.choice().c_str());
  capture_and_replay(c, s.s, mode, 1);  // a later call
  // A replay beside direct calls of the same shape: separate buffers, both answers right.
  graph_owner g;
  CUOP_CUDA_ASSERT(cudaStreamBeginCapture(s.s, mode));
  const cuop::status st = c.call(s.s);
  CUOP_CUDA_ASSERT(cudaStreamEndCapture(s.s, &g.graph));
  ASSERT_EQ(st, cuop::status::success);
  CUOP_CUDA_ASSERT(cudaGraphInstantiate(&g.exec, g.graph, 0));
  for (int r = 0; r < 3; ++r) {
    CUOP_CUDA_ASSERT(c.poison(s.s));
    CUOP_CUDA_ASSERT(twin.poison(other.s));
    CUOP_CUDA_ASSERT(cudaGraphLaunch(g.exec, s.s));
    ASSERT_EQ(twin.call(other.s), cuop::status::success);
    EXPECT_EQ(c.check(s.s), "") << "graph, beside a direct call";
    EXPECT_EQ(twin.check(other.s), "") << "direct call, beside a graph";
  }
  CUOP_CUDA_ASSERT(c.poison(s.s));  // and the op still runs directly on the capturing stream
  ASSERT_EQ(c.call(s.s), cuop::status::success);
  EXPECT_EQ(c.check(s.s), "") << "direct call after the captures";
}

using case_maker = std::function<std::unique_ptr<op_case>(int variant)>;

// Every case in every capture mode. `variant` makes a shape no earlier mode used, so that each
// mode's first capture is the shape's first call.
void every_mode(const std::vector<case_maker>& cases) {
  int variant = 0;
  for (const auto mode :
       {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed}) {
    for (const auto& make : cases) {
      auto c = make(variant), twin = make(variant);
      graph_story(*c, *twin, mode);
    }
    ++variant;
  }
}

}  // namespace

TEST(sm80_library_graph, softmax_first_call_and_replays) {
  CUOP_REQUIRE_GPU();
  using cuop::test::softmax_case;
  every_mode({
      [](int v) { return softmax_case(dtype::f16, 65536 - v, 128); },       // warp_row
      [](int v) { return softmax_case(dtype::f32, 4096 - v, 4096); },       // block_row
      [](int v) { return softmax_case(dtype::f32, 256 - v, 262144 - v); },  // split_row, one block a segment
      [](int v) { return softmax_case(dtype::bf16, 3 + v, 300000 + v); },   // split_row, cooperative default
      [](int v) { return softmax_case(dtype::f32, 5, 100003 + v, 1, 3); },  // misaligned, padded
  });
}

TEST(sm80_library_graph, gemm_first_call_and_replays) {
  CUOP_REQUIRE_GPU();
  using cuop::test::gemm_case;
  const auto col = kg::b_layout::col;
  every_mode({
      [=](int v) { return gemm_case(dtype::bf16, dtype::bf16, col, 1, 4096 - v, 4096); },     // skinny
      [=](int v) { return gemm_case(dtype::f16, dtype::f16, col, 127 - v, 1031, 4093); },     // mma split-K, packed
      [=](int v) { return gemm_case(dtype::bf16, dtype::bf16, col, 1000 - v, 1000, 1000); },  // cuBLASLt configuration
      [=](int v) { return gemm_case(dtype::bf16, dtype::bf16, col, 128 - v, 4096, 4096); },   // cuBLASLt heuristic
      [=](int v) {
        return gemm_case(dtype::bf16, dtype::bf16, col, 4096 - v, 4096, 4093);
      },  // cuBLASLt on packed operands
      [=](int v) { return gemm_case(dtype::bf16, dtype::f32, col, 64 + v, 256, 512, 0, 0.5f); },  // untuned, beta
      [=](int v) { return gemm_case(dtype::f16, dtype::f16, kg::b_layout::row, 100 + v, 300, 200); },
      [=](int v) {
        return gemm_case(dtype::bf16, dtype::bf16, col, 64 + v, 4096, 4096, 0, 0.f, 1);
      },  // views 2 bytes off
  });
}

TEST(sm80_library_graph, conv2d_first_call_and_replays) {
  CUOP_REQUIRE_GPU();
  using cuop::test::conv_case;
  using cuop::test::conv_shape_of;
  const auto nhwc = kc::layout::nhwc, nchw = kc::layout::nchw;
  every_mode({
      [=](int v) {
        return conv_case(dtype::f16, conv_shape_of(nhwc, 2 + v, 28, 28, 512, 512, 7, 1, 3, 512));
      },  // depthwise
      [=](int v) { return conv_case(dtype::f16, conv_shape_of(nhwc, 8, 32 - v, 32, 1024, 1024, 31, 1, 15, 1024)); },
      [=](int v) {
        return conv_case(dtype::f16, conv_shape_of(nhwc, 32 - v, 56, 56, 64, 64, 3, 1, 1, 1));
      },  // cuDNN configuration
      [=](int v) {
        return conv_case(dtype::bf16, conv_shape_of(nhwc, 2 + v, 12, 12, 16, 32, 3, 1, 1, 1));
      },  // cuDNN heuristic
      [=](int v) { return conv_case(dtype::f32, conv_shape_of(nchw, 1, 256 - v, 256, 32, 32, 11, 1, 5, 1)); },  // FFT
      [=](int v) {
        return conv_case(dtype::f16, conv_shape_of(nhwc, 2 + v, 28, 28, 512, 512, 7, 1, 3, 512), 1.f, 0.f, 1);
      },
      [=](int v) { return conv_case(dtype::f16, conv_shape_of(nhwc, 2 + v, 20, 20, 32, 32, 3, 1, 1, 1), 1.f, 0.f, 1); },
  });
}

// y is read when beta != 0: the graph restores it (a captured copy) before the convolution, so
// every replay starts from the same y; the staged path copies y in and out inside the graph.
TEST(sm80_library_graph, conv2d_with_beta_in_a_larger_graph) {
  CUOP_REQUIRE_GPU();
  for (const int offset : {0, 1}) {
    auto c = cuop::test::conv_case(
        dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 3, 20, 20, 32, 32, 3, 1, 1, 1), 2.f, 0.5f, offset);
    SCOPED_TRACE(c->name());
    ASSERT_EQ(c->prepare(), "");
    stream_owner s;
    capture_and_replay(*c, s.s, cudaStreamCaptureModeGlobal, 3, [&c](cudaStream_t st) { c->poison(st); });
  }
}

// A capture on a blocking stream (cudaStreamCreate's default) of shapes already set up, and the
// legacy stream meanwhile: a call on it is refused with capture_conflict and the capture survives.
TEST(sm80_library_graph, blocking_stream_capture_and_the_legacy_stream) {
  CUOP_REQUIRE_GPU();
  auto sm = cuop::test::softmax_case(dtype::f32, 33, 50000);
  auto gm = cuop::test::gemm_case(dtype::f16, dtype::f16, kg::b_layout::col, 127, 1031, 4093);
  auto cv =
      cuop::test::conv_case(dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 2, 20, 20, 32, 32, 3, 1, 1, 1));
  for (auto* c : {sm.get(), gm.get(), cv.get()}) {
    SCOPED_TRACE(c->name());
    ASSERT_EQ(c->prepare(), "");
    stream_owner s(cudaStreamDefault);
    ASSERT_EQ(c->poison(s.s), cudaSuccess);
    ASSERT_EQ(c->call(s.s), cuop::status::success);  // set-up outside the capture
    EXPECT_EQ(c->check(s.s), "");
    graph_owner g;
    CUOP_CUDA_ASSERT(cudaStreamBeginCapture(s.s, cudaStreamCaptureModeGlobal));
    const cuop::status in_capture = c->call(s.s);
    const cuop::status legacy = c->call(nullptr);
    const cudaError_t ended = cudaStreamEndCapture(s.s, &g.graph);
    EXPECT_EQ(in_capture, cuop::status::success) << cuop::to_string(in_capture);
    EXPECT_EQ(legacy, cuop::status::capture_conflict) << cuop::to_string(legacy);
    ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
    CUOP_CUDA_ASSERT(cudaGraphInstantiate(&g.exec, g.graph, 0));
    CUOP_CUDA_ASSERT(c->poison(s.s));
    CUOP_CUDA_ASSERT(cudaGraphLaunch(g.exec, s.s));
    EXPECT_EQ(c->check(s.s), "");
  }
}

// A call on a stream whose capture is already invalidated is refused, and nothing is queued.
TEST(sm80_library_graph, an_invalidated_capture_is_refused) {
  CUOP_REQUIRE_GPU();
  auto c = cuop::test::softmax_case(dtype::f32, 4, 1000);
  ASSERT_EQ(c->prepare(), "");
  stream_owner s;
  CUOP_CUDA_ASSERT(cudaStreamBeginCapture(s.s, cudaStreamCaptureModeRelaxed));
  EXPECT_NE(cudaStreamSynchronize(s.s), cudaSuccess);  // illegal in capture: invalidates it
  cudaGetLastError();
  EXPECT_EQ(c->call(s.s), cuop::status::capture_conflict);
  cudaGraph_t g = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(s.s, &g), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(g, nullptr);
  cudaGetLastError();
}

// The scenario of a model captured before anything ran: in a fresh process, the first library
// call of each op (cuBLASLt, cuDNN and cuFFT handles and plans, the library's streams and events,
// every choice) is made under a global-mode capture. Runs this binary again on the test below.
TEST(sm80_library_graph, first_library_use_under_capture_in_a_fresh_process) {
  CUOP_REQUIRE_GPU();
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  const std::string command = "CUOP_FRESH_PROCESS=1 '" + std::string(self, static_cast<std::size_t>(n)) +
                              "' --gtest_filter=sm80_library_graph_fresh.* > /dev/null 2>&1";
  const int rc = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(rc)) << command;
  EXPECT_EQ(WEXITSTATUS(rc), 0) << command << " (rerun it without the redirection to see why)";
}

TEST(sm80_library_graph_fresh, every_op_first_under_capture) {
  if (std::getenv("CUOP_FRESH_PROCESS") == nullptr)
    GTEST_SKIP() << "run by sm80_library_graph.first_library_use_under_capture_in_a_fresh_process";
  CUOP_REQUIRE_GPU();
  std::vector<std::unique_ptr<op_case>> cases;
  cases.push_back(cuop::test::softmax_case(dtype::f32, 255, 262143));
  cases.push_back(cuop::test::gemm_case(dtype::bf16, dtype::bf16, kg::b_layout::col, 999, 1000, 1000));
  cases.push_back(cuop::test::gemm_case(dtype::f16, dtype::f16, kg::b_layout::col, 126, 1031, 4093));
  cases.push_back(
      cuop::test::conv_case(dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 31, 56, 56, 64, 64, 3, 1, 1, 1)));
  cases.push_back(
      cuop::test::conv_case(dtype::f32, cuop::test::conv_shape_of(kc::layout::nchw, 1, 255, 256, 32, 32, 11, 1, 5, 1)));
  cases.push_back(cuop::test::conv_case(
      dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 3, 28, 28, 512, 512, 7, 1, 3, 512), 1.f, 0.f, 1));
  // Operands and references first (the reference kernels are not the library's).
  for (auto& c : cases) ASSERT_EQ(c->prepare(), "") << c->name();
  stream_owner s;
  for (auto& c : cases) {
    SCOPED_TRACE(c->name());
    capture_and_replay(*c, s.s, cudaStreamCaptureModeGlobal, 2);
  }
}
