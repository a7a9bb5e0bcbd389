// The library's answers to arguments an application gets wrong or that are unusual: the legacy
// and per-thread default streams (they work), pointers off their element size (refused) or off
// 16 bytes (they work, cuBLASLt included), outputs overlapping inputs (refused, GEMM's C == D
// in place excepted), shapes past what the kernels' arithmetic or any memory holds (refused or
// sent to a choice that holds them), unknown enum values, a stream of another device. Each is a
// status, never a fault: pointers of refused calls are never dereferenced, so some are fake.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <vector>

#include "cuop/conv.hpp"
#include "cuop/gemm.hpp"
#include "cuop/reference/gemm_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "cuop/softmax.hpp"
#include "gpu_test_support.hpp"
#include "library_cases.hpp"

namespace {

using cuop::dtype;
using cuop::status;
namespace kc = cuop::kernels::conv;
namespace kg = cuop::kernels::gemm;

// An address no call may touch: only calls refused before anything is queued get it.
void* fake(std::uintptr_t offset = 0) {
  return reinterpret_cast<void*>(std::uintptr_t{1} << 40 | offset);  // NOLINT(performance-no-int-to-ptr): by design
}

const char* str(status s) { return cuop::to_string(s); }

}  // namespace

TEST(sm80_library_arguments, default_streams_give_the_right_answer) {
  CUOP_REQUIRE_GPU();
  auto cases = std::vector<std::unique_ptr<cuop::test::op_case>>{};
  cases.push_back(cuop::test::softmax_case(dtype::f32, 64, 262144));  // split_row workspace
  cases.push_back(cuop::test::softmax_case(dtype::f16, 1000, 1000));
  cases.push_back(cuop::test::gemm_case(dtype::f16, dtype::f16, kg::b_layout::col, 127, 1031, 4093));
  cases.push_back(cuop::test::gemm_case(dtype::bf16, dtype::bf16, kg::b_layout::col, 1000, 1000, 1000));
  cases.push_back(
      cuop::test::conv_case(dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 2, 20, 20, 32, 32, 3, 1, 1, 1)));
  cases.push_back(cuop::test::conv_case(
      dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 2, 28, 28, 512, 512, 7, 1, 3, 512), 1.f, 0.f, 1));
  for (auto& c : cases) {
    SCOPED_TRACE(c->name());
    ASSERT_EQ(c->prepare(), "");
    for (cudaStream_t s : {cudaStream_t{nullptr}, cudaStreamLegacy, cudaStreamPerThread}) {
      SCOPED_TRACE(s == nullptr ? "null stream" : s == cudaStreamLegacy ? "cudaStreamLegacy" : "cudaStreamPerThread");
      CUOP_CUDA_ASSERT(c->poison(s));
      ASSERT_EQ(c->call(s), status::success);
      EXPECT_EQ(c->check(s), "");
    }
  }
}

// Views into tensors: 2 bytes off every 16-byte boundary. Our kernels take the element-wise
// paths; a cuBLASLt choice is made for the pointers' alignment (the key of the choice), never one
// made for cudaMalloc's 256 bytes.
TEST(sm80_library_arguments, pointers_off_16_bytes_give_the_right_answer) {
  CUOP_REQUIRE_GPU();
  const auto col = kg::b_layout::col;
  std::vector<std::unique_ptr<cuop::test::op_case>> cases;
  cases.push_back(cuop::test::gemm_case(dtype::bf16, dtype::bf16, col, 1, 4096, 4096, 0, 0.f, 1));
  cases.push_back(cuop::test::gemm_case(dtype::bf16, dtype::bf16, col, 1000, 1000, 1000, 0, 0.f, 1));
  cases.push_back(cuop::test::gemm_case(dtype::bf16, dtype::bf16, col, 128, 4096, 4096, 0, 0.f, 1));
  cases.push_back(cuop::test::gemm_case(dtype::bf16, dtype::bf16, col, 4096, 4096, 4093, 0, 0.f, 1));
  cases.push_back(cuop::test::gemm_case(dtype::bf16, dtype::f32, col, 64, 256, 512, 0, 0.5f, 1));
  cases.push_back(cuop::test::gemm_case(dtype::f16, dtype::f16, col, 127, 1031, 4093, 0, 0.f, 1));
  cases.push_back(cuop::test::softmax_case(dtype::bf16, 7, 4097, 1, 0));
  cases.push_back(cuop::test::softmax_case(dtype::f32, 64, 262144, 1, 0));
  for (auto& c : cases) {
    SCOPED_TRACE(c->name());
    ASSERT_EQ(c->prepare(), "");
    CUOP_CUDA_ASSERT(c->poison(nullptr));
    ASSERT_EQ(c->call(nullptr), status::success);
    EXPECT_EQ(c->check(nullptr), "") << c->choice();
  }
}

TEST(sm80_library_arguments, pointers_off_their_element_size_are_refused) {
  CUOP_REQUIRE_GPU();
  cuop::test::device_buffer buf(1 << 20);
  ASSERT_NE(buf.get(), nullptr);
  char* const p = buf.bytes();
  const cuop::softmax_problem sp{dtype::f16, 4, 100, 0, 0};
  EXPECT_EQ(cuop::softmax(sp, p + 1, p + 4096), status::invalid_argument);
  EXPECT_EQ(cuop::softmax(sp, p, p + 4097), status::invalid_argument);
  const cuop::softmax_problem sp32{dtype::f32, 4, 100, 0, 0};
  EXPECT_EQ(cuop::softmax(sp32, p + 2, p + 4096), status::invalid_argument);

  cuop::gemm_problem gp;
  gp.in = dtype::bf16;
  gp.out = dtype::f32;
  gp.m = gp.n = gp.k = 16;
  EXPECT_EQ(cuop::gemm(gp, p + 1, p + 4096, nullptr, p + 8192), status::invalid_argument);
  EXPECT_EQ(cuop::gemm(gp, p, p + 4097, nullptr, p + 8192), status::invalid_argument);
  EXPECT_EQ(cuop::gemm(gp, p, p + 4096, nullptr, p + 8194), status::invalid_argument);  // f32 D 2 bytes off
  gp.beta = 1.f;
  EXPECT_EQ(cuop::gemm(gp, p, p + 4096, p + 12290, p + 8192), status::invalid_argument);  // f32 C

  const cuop::conv2d_problem cp{dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 1, 8, 8, 8, 8, 3, 1, 1, 1)};
  EXPECT_EQ(cuop::conv2d(cp, p + 1, p + 4096, p + 8192), status::invalid_argument);
  EXPECT_EQ(cuop::conv2d(cp, p, p + 4097, p + 8192), status::invalid_argument);
  EXPECT_EQ(cuop::conv2d(cp, p, p + 4096, p + 8193), status::invalid_argument);
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());  // nothing was queued, nothing faulted
}

TEST(sm80_library_arguments, outputs_overlapping_inputs_are_refused) {
  CUOP_REQUIRE_GPU();
  cuop::test::device_buffer buf(64 << 20);
  ASSERT_NE(buf.get(), nullptr);
  char* const p = buf.bytes();
  // softmax: in place, and one element shared.
  const cuop::softmax_problem sp{dtype::f32, 4, 100, 0, 0};
  EXPECT_EQ(cuop::softmax(sp, p, p), status::invalid_argument) << str(cuop::softmax(sp, p, p));
  EXPECT_EQ(cuop::softmax(sp, p, p + 4 * 399), status::invalid_argument);
  EXPECT_EQ(cuop::softmax(sp, p + 4 * 399, p), status::invalid_argument);
  // Interleaved rows of one buffer (column slices) do not overlap and run.
  {
    auto bytes = std::vector<float>(4 * 200, 0.f);
    CUOP_CUDA_ASSERT(cudaMemcpy(p, bytes.data(), bytes.size() * 4, cudaMemcpyHostToDevice));
    const cuop::softmax_problem sliced{dtype::f32, 4, 100, 200, 200};
    ASSERT_EQ(cuop::softmax(sliced, p, p + 4 * 100), status::success);
    CUOP_CUDA_ASSERT(cudaMemcpy(bytes.data(), p, bytes.size() * 4, cudaMemcpyDeviceToHost));
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 100; ++c) {
        EXPECT_EQ(bytes[r * 200 + c], 0.f);                // the input slice, untouched
        EXPECT_FLOAT_EQ(bytes[r * 200 + 100 + c], 0.01f);  // softmax of zeros
      }
  }

  // gemm: D over A, over B, over a C that is not D itself.
  cuop::gemm_problem gp;
  gp.in = dtype::f16;
  gp.out = dtype::f16;
  gp.m = gp.n = gp.k = 64;
  char* const a = p;
  char* const b = p + (1 << 20);
  char* const c = p + (2 << 20);
  char* const d = p + (3 << 20);
  EXPECT_EQ(cuop::gemm(gp, a, b, nullptr, a + 128), status::invalid_argument);
  EXPECT_EQ(cuop::gemm(gp, a, b, nullptr, b), status::invalid_argument);
  gp.beta = 1.f;
  EXPECT_EQ(cuop::gemm(gp, a, b, c, c + 2), status::invalid_argument);
  gp.ldd = 80;  // C is D's pointer with another leading dimension: not in place
  EXPECT_EQ(cuop::gemm(gp, a, b, c, c), status::invalid_argument);
  gp.ldd = 0;
  gp.beta = 0.f;  // C is not read: any C will do
  CUOP_CUDA_ASSERT(cudaMemset(p, 0, 4 << 20));
  EXPECT_EQ(cuop::gemm(gp, a, b, d, d), status::success);

  // conv2d: y over x or over w.
  const cuop::conv2d_problem cp{dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 1, 8, 8, 8, 8, 3, 1, 1, 1)};
  EXPECT_EQ(cuop::conv2d(cp, a, b, a), status::invalid_argument);
  EXPECT_EQ(cuop::conv2d(cp, a, b, b + 64), status::invalid_argument);
  EXPECT_EQ(cuop::conv2d(cp, a, a, d), status::success);  // x and w may share bytes: both only read
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
}

// C == D with D's leading dimension: the in-place update D = A B + beta D, against the reference.
TEST(sm80_library_arguments, gemm_in_place_c_is_d) {
  CUOP_REQUIRE_GPU();
  for (const int m : {1, 127, 1000}) {
    auto out_of_place = cuop::test::gemm_case(dtype::bf16, dtype::bf16, kg::b_layout::col, m, 1031, 4093, 0, 0.5f);
    SCOPED_TRACE(out_of_place->name());
    ASSERT_EQ(out_of_place->prepare(), "");
    // The same problem in place: D starts as C.
    cuop::gemm_problem p;
    p.in = p.out = dtype::bf16;
    p.m = m;
    p.n = 1031;
    p.k = 4093;
    p.beta = 0.5f;
    cuop::test::device_buffer a(static_cast<std::size_t>(m) * 4093 * 2), b(1031ull * 4093 * 2),
        cd(static_cast<std::size_t>(m) * 1031 * 2), want(static_cast<std::size_t>(m) * 1031 * 2),
        ref(static_cast<std::size_t>(m) * 1031 * 4);
    CUOP_CUDA_ASSERT(cuop::reference::fill_random(dtype::bf16, a.get(), 1LL * m * 4093, 1, -1.f, 1.f, nullptr));
    CUOP_CUDA_ASSERT(cuop::reference::fill_random(dtype::bf16, b.get(), 1031LL * 4093, 2, -1.f, 1.f, nullptr));
    CUOP_CUDA_ASSERT(cuop::reference::fill_random(dtype::bf16, cd.get(), 1LL * m * 1031, 3, -1.f, 1.f, nullptr));
    CUOP_CUDA_ASSERT(cuop::reference::gemm_reference(dtype::bf16, dtype::bf16, true, a.get(), 4093, b.get(), 4093,
                                                     cd.get(), 1031, m, 1031, 4093, 1.f, 0.5f,
                                                     static_cast<float*>(ref.get()), nullptr));
    CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
    ASSERT_EQ(cuop::gemm(p, a.get(), b.get(), cd.get(), cd.get()), status::success);
    cuop::reference::compare_result r{};
    CUOP_CUDA_ASSERT(cuop::reference::compare_gemm(dtype::bf16, cd.get(), 1031, m, 1031, static_cast<float*>(ref.get()),
                                                   cuop::reference::gemm_atol(dtype::bf16, dtype::bf16, 4093) * 2,
                                                   cuop::reference::gemm_rtol(dtype::bf16), &r, nullptr));
    EXPECT_EQ(r.bad, 0) << out_of_place->choice();
  }
}

// Shapes past what the kernels' arithmetic or any memory holds: a status before anything runs.
TEST(sm80_library_arguments, shapes_past_the_kernels_integers) {
  CUOP_REQUIRE_GPU();
  // softmax: rows x stride past 2^48 bytes.
  EXPECT_EQ(cuop::softmax({dtype::f32, 1LL << 40, 1 << 20, 0, 0}, fake(), fake(1ull << 46)), status::invalid_argument);
  EXPECT_EQ(cuop::softmax({dtype::f32, 2, 8, 1LL << 62, 0}, fake(), fake(1ull << 46)), status::invalid_argument);
  // gemm: leading dimensions past 2^48 bytes; an extent the mma family's 32-bit tiles cannot hold
  // is never given to it (gemm_which plans without running).
  cuop::gemm_problem gp;
  gp.m = gp.n = gp.k = 64;
  gp.lda = 1LL << 60;
  EXPECT_EQ(cuop::gemm(gp, fake(), fake(1ull << 30), nullptr, fake(1ull << 31)), status::invalid_argument);
  gp.lda = 0;
  gp.m = INT_MAX;
  gp.n = 8;
  cuop::gemm_choice choice;
  if (cuop::gemm_which(gp, choice) == status::success) {
    EXPECT_STRNE(choice.kind, "kernel") << choice.instance;  // cuBLASLt, whose indices are 64-bit
  }
  // conv2d: an output dimension past INT_MAX, a tensor past 2^46 elements.
  cuop::conv2d_problem cp{dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 1, 8, 8, 8, 8, 1, 1, 0, 1)};
  cp.shape.h = INT_MAX;
  cp.shape.pad_h = 1 << 30;
  EXPECT_EQ(cuop::conv2d(cp, fake(), fake(1ull << 38), fake(1ull << 39)), status::invalid_argument);
  cp.shape = cuop::test::conv_shape_of(kc::layout::nhwc, 1 << 20, 1 << 14, 1 << 14, 1 << 12, 8, 1, 1, 0, 1);
  EXPECT_EQ(cuop::conv2d(cp, fake(), fake(1ull << 38), fake(1ull << 39)), status::invalid_argument);
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
}

TEST(sm80_library_arguments, unknown_enum_values_are_refused) {
  CUOP_REQUIRE_GPU();
  cuop::softmax_problem sp{static_cast<dtype>(7), 4, 100, 0, 0};
  EXPECT_EQ(cuop::softmax(sp, fake(), fake(1 << 20)), status::invalid_argument);
  cuop::softmax_choice sc;
  EXPECT_EQ(cuop::softmax_which(sp, sc), status::invalid_argument);
  cuop::gemm_problem gp;
  gp.m = gp.n = gp.k = 16;
  gp.b = static_cast<kg::b_layout>(5);
  EXPECT_EQ(cuop::gemm(gp, fake(), fake(1 << 20), nullptr, fake(2 << 20)), status::invalid_argument);
  cuop::conv2d_problem cp{dtype::f16, cuop::test::conv_shape_of(kc::layout::nhwc, 1, 8, 8, 8, 8, 3, 1, 1, 1)};
  cp.shape.lay = static_cast<kc::layout>(9);
  EXPECT_EQ(cuop::conv2d(cp, fake(), fake(1 << 20), fake(2 << 20)), status::invalid_argument);
  cp.shape.lay = kc::layout::nhwc;
  cp.type = static_cast<dtype>(3);
  EXPECT_EQ(cuop::conv2d(cp, fake(), fake(1 << 20), fake(2 << 20)), status::invalid_argument);
}

TEST(sm80_library_arguments, a_stream_of_another_device_is_refused) {
  CUOP_REQUIRE_GPU();
  int count = 0;
  CUOP_CUDA_ASSERT(cudaGetDeviceCount(&count));
  if (count < 2) GTEST_SKIP() << "needs two devices (" << count << " present)";
  CUOP_CUDA_ASSERT(cudaSetDevice(1));
  cudaStream_t other = nullptr;
  CUOP_CUDA_ASSERT(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  CUOP_CUDA_ASSERT(cudaSetDevice(0));
  cuop::test::device_buffer buf(1 << 20);
  const cuop::softmax_problem sp{dtype::f32, 4, 100, 0, 0};
  EXPECT_EQ(cuop::softmax(sp, buf.bytes(), buf.bytes() + 4096, other), status::invalid_argument);
  CUOP_CUDA_ASSERT(cudaStreamDestroy(other));
}
