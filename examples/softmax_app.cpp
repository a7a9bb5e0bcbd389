// Example application: softmax of a 4096 x 4096 f16 tensor through the tuned dispatch, checked
// against the reference kernel. Exit code 0 when correct, 1 on a wrong answer or CUDA error,
// 77 (skip) without a GPU.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#include "cuop/reference/softmax_reference.hpp"
#include "cuop/softmax.hpp"

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("softmax_app: no CUDA device; nothing to run\n");
    return 77;
  }
  cuop::softmax_problem p;
  p.type = cuop::dtype::f16;
  p.rows = argc > 1 ? std::atoll(argv[1]) : 4096;
  p.cols = argc > 2 ? std::atoll(argv[2]) : 4096;
  const long long n = p.rows * p.cols;
  void *in = nullptr, *out = nullptr;
  float* ref = nullptr;
  cudaMalloc(&in, n * 2);
  cudaMalloc(&out, n * 2);
  cudaMalloc(reinterpret_cast<void**>(&ref), n * sizeof(float));
  cuop::reference::fill_random(p.type, in, n, 42, -8.f, 8.f, nullptr);
  cuop::reference::fill_nan(p.type, out, n, nullptr);
  cuop::reference::softmax_reference(p.type, in, p.rows, p.cols, p.cols, ref, nullptr);

  cuop::softmax_choice choice;
  if (cuop::softmax_which(p, choice) == cuop::status::success)
    std::printf("dispatch: %s (%s%s%s, tuned shape %lldx%lld)\n", choice.instance, choice.source,
                *choice.gpu ? " on " : "", choice.gpu, choice.tuned_rows, choice.tuned_cols);
  const cuop::status s = cuop::softmax(p, in, out);
  if (s != cuop::status::success) {
    std::printf("cuop::softmax failed: %s\n", cuop::to_string(s));
    return 1;
  }
  cuop::reference::compare_result r{};
  const double tol = cuop::reference::softmax_tolerance(p.type, p.cols);
  const auto e = cuop::reference::compare_softmax(p.type, out, p.rows, p.cols, p.cols, ref, tol,
                                                  cuop::reference::softmax_rtol(p.type), &r, nullptr);
  if (e != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("%lldx%lld f16: max abs error %.3g, %lld wrong, %lld NaN\n", p.rows, p.cols, r.max_abs_err, r.bad,
              r.nan_count);
  return r.bad == 0 && r.nan_count == 0 ? 0 : 1;
}
