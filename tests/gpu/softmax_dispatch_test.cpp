// The library's dispatch path: cuop::softmax on awkward shapes, misaligned pointers and strides,
// against the reference, through whatever the emitted table chooses.
#include <gtest/gtest.h>

#include <vector>

#include "cuop/reference/softmax_reference.hpp"
#include "cuop/softmax.hpp"
#include "gpu_test_support.hpp"

namespace {

struct device_buffer {
  void* ptr = nullptr;
  explicit device_buffer(std::size_t bytes) { cudaMalloc(&ptr, bytes); }
  ~device_buffer() { cudaFree(ptr); }
};

struct dispatch_case {
  cuop::dtype type;
  long long rows, cols;
  int misalign;   // elements added to both pointers
  long long pad;  // extra elements between rows
};

void check_dispatch(const dispatch_case& c) {
  const auto elem = cuop::size_of(c.type);
  const long long stride = c.cols + c.pad;
  const std::size_t count = static_cast<std::size_t>(c.rows * stride + c.misalign + 8);
  device_buffer in(count * elem), out(count * elem), ref(count * sizeof(float));
  ASSERT_NE(in.ptr, nullptr);
  auto* in_p = static_cast<char*>(in.ptr) + c.misalign * elem;
  auto* out_p = static_cast<char*>(out.ptr) + c.misalign * elem;
  CUOP_CUDA_ASSERT(cuop::reference::fill_random(c.type, in.ptr, static_cast<long long>(count), 11, -8.f, 8.f, nullptr));
  CUOP_CUDA_ASSERT(cuop::reference::fill_nan(c.type, out.ptr, static_cast<long long>(count), nullptr));
  CUOP_CUDA_ASSERT(
      cuop::reference::softmax_reference(c.type, in_p, c.rows, c.cols, stride, static_cast<float*>(ref.ptr), nullptr));
  const cuop::softmax_problem p{c.type, c.rows, c.cols, stride, stride};
  cuop::softmax_choice choice;
  ASSERT_EQ(cuop::softmax_which(p, choice), cuop::status::success);
  SCOPED_TRACE(choice.instance);
  ASSERT_EQ(cuop::softmax(p, in_p, out_p), cuop::status::success);
  CUOP_CUDA_ASSERT(cudaDeviceSynchronize());
  // Compare row by row through a dense copy: the reference is dense (stride cols).
  std::vector<char> host(static_cast<std::size_t>(c.rows * stride) * elem);
  device_buffer dense(static_cast<std::size_t>(c.rows * c.cols) * elem);
  CUOP_CUDA_ASSERT(
      cudaMemcpy2D(dense.ptr, c.cols * elem, out_p, stride * elem, c.cols * elem, c.rows, cudaMemcpyDeviceToDevice));
  cuop::reference::compare_result r{};
  CUOP_CUDA_ASSERT(cuop::reference::compare_softmax(
      c.type, dense.ptr, c.rows, c.cols, c.cols, static_cast<float*>(ref.ptr),
      cuop::reference::softmax_tolerance(c.type, c.cols), cuop::reference::softmax_rtol(c.type), &r, nullptr));
  EXPECT_EQ(r.bad, 0) << "first bad at row " << r.first_bad_row << " col " << r.first_bad_col << ", max abs error "
                      << r.max_abs_err;
  EXPECT_EQ(r.nan_count, 0);
}

}  // namespace

TEST(sm80_softmax_dispatch, awkward_shapes_every_dtype) {
  CUOP_REQUIRE_GPU();
  for (const auto t : {cuop::dtype::f32, cuop::dtype::f16, cuop::dtype::bf16})
    for (const auto& [rows, cols] : std::vector<std::pair<long long, long long>>{
             {1, 1}, {1, 3}, {65537, 3}, {3, 1000}, {7, 4097}, {2, 100003}, {65537, 128}, {1, 262144}}) {
      SCOPED_TRACE(testing::Message() << cuop::name_of(t) << " " << rows << "x" << cols);
      check_dispatch({t, rows, cols, 0, 0});
    }
}

TEST(sm80_softmax_dispatch, misaligned_and_strided) {
  CUOP_REQUIRE_GPU();
  for (const auto t : {cuop::dtype::f32, cuop::dtype::f16, cuop::dtype::bf16})
    for (const long long cols : {1000LL, 4096LL, 100003LL}) {
      SCOPED_TRACE(testing::Message() << cuop::name_of(t) << " cols " << cols);
      check_dispatch({t, 5, cols, 1, 0});
      check_dispatch({t, 5, cols, 0, 3});
      check_dispatch({t, 5, cols, 3, 5});
    }
}

// Short 16-bit rows of an odd length: the rule stages them whole (row_tile) when they are one
// contiguous range, and keeps strided ones in registers (warp_row), which read each row from its
// own start; both answers are checked.
TEST(sm80_softmax_dispatch, short_odd_rows_are_staged_only_when_contiguous) {
  CUOP_REQUIRE_GPU();
  cuop::softmax_choice choice;
  for (const auto t : {cuop::dtype::f16, cuop::dtype::bf16}) {
    SCOPED_TRACE(cuop::name_of(t));
    ASSERT_EQ(cuop::softmax_which({t, 100003, 13, 0, 0}, choice), cuop::status::success);
    if (std::string(choice.source) == "default") {
      EXPECT_NE(std::string(choice.instance).find("_row_tile_"), std::string::npos);
    }
    ASSERT_EQ(cuop::softmax_which({t, 100003, 13, 16, 16}, choice), cuop::status::success);
    EXPECT_EQ(std::string(choice.instance).find("_row_tile_"), std::string::npos) << choice.instance;
    ASSERT_EQ(cuop::softmax_which({t, 100003, 13, 13, 16}, choice), cuop::status::success);
    EXPECT_EQ(std::string(choice.instance).find("_row_tile_"), std::string::npos) << choice.instance;
    check_dispatch({t, 100003, 13, 0, 0});
    check_dispatch({t, 100003, 13, 1, 0});
    check_dispatch({t, 100003, 13, 0, 3});
    check_dispatch({t, 40000, 37, 0, 0});
  }
}

TEST(sm80_softmax_dispatch, tuned_shapes_report_their_entry) {
  CUOP_REQUIRE_GPU();
  cuop::softmax_choice choice;
  ASSERT_EQ(cuop::softmax_which({cuop::dtype::f32, 4096, 4096, 0, 0}, choice), cuop::status::success);
  ASSERT_NE(choice.instance, nullptr);
  EXPECT_NE(std::string(choice.instance).find("softmax_f32_"), std::string::npos);
  // A shape nobody tunes: never reported as exact.
  ASSERT_EQ(cuop::softmax_which({cuop::dtype::bf16, 3, 77777, 0, 0}, choice), cuop::status::success);
  EXPECT_FALSE(choice.exact_shape);
  if (std::string(choice.source) == "tuned") {
    EXPECT_GT(choice.tuned_cols, 0);
  }
}

TEST(sm80_softmax_dispatch, bad_arguments_are_statuses) {
  CUOP_REQUIRE_GPU();
  device_buffer b(1024);
  EXPECT_EQ(cuop::softmax({cuop::dtype::f32, 4, 8, 0, 0}, nullptr, b.ptr), cuop::status::invalid_argument);
  EXPECT_EQ(cuop::softmax({cuop::dtype::f32, -1, 8, 0, 0}, b.ptr, b.ptr), cuop::status::invalid_argument);
  EXPECT_EQ(cuop::softmax({cuop::dtype::f32, 4, 8, 4, 0}, b.ptr, b.ptr), cuop::status::invalid_argument);
  EXPECT_EQ(cuop::softmax({cuop::dtype::f32, 0, 8, 0, 0}, b.ptr, b.ptr), cuop::status::success);
}
