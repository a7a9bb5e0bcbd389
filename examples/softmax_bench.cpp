// Times the dispatched cuop::softmax on the reference shapes with the tuner's own method (CUDA
// events, L2 flushed outside the timed region, warm-up, median with a CI stopping rule) and prints
// one JSON line per shape. scripts/softmax_vs_torch.py runs torch.softmax the same way beside it.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuop/reference/softmax_reference.hpp"
#include "cuop/softmax.hpp"
#include "tuner/measure/statistics.hpp"
#include "tuner/measure/timer.hpp"

int main(int argc, char** argv) {
  struct shape {
    long long rows, cols;
    cuop::dtype type;
  };
  std::vector<shape> shapes = {{4096, 4096, cuop::dtype::f32},  {32768, 1024, cuop::dtype::f16},
                               {8192, 8192, cuop::dtype::bf16}, {65536, 128, cuop::dtype::f16},
                               {1024, 65536, cuop::dtype::f32}, {16384, 32000, cuop::dtype::bf16},
                               {256, 262144, cuop::dtype::f32}};
  // softmax_bench [--dirty-flush] [ROWS COLS DTYPE]
  auto mode = cuop::measure::l2_flusher::mode::clean_read;
  if (argc > 1 && std::string(argv[1]) == "--dirty-flush") {
    mode = cuop::measure::l2_flusher::mode::dirty_write;
    --argc;
    ++argv;
  }
  if (argc == 4) shapes = {{std::atoll(argv[1]), std::atoll(argv[2]), *cuop::parse_dtype(argv[3])}};
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "softmax_bench: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  cudaStream_t stream{};
  cudaStreamCreate(&stream);
  cuop::measure::l2_flusher flusher(prop.l2CacheSize, mode);
  cuop::measure::settings settings;
  settings.max_samples = 500;
  int failures = 0;
  for (const auto& s : shapes) {
    const long long n = s.rows * s.cols;
    const std::size_t bytes = static_cast<std::size_t>(n) * cuop::size_of(s.type);
    void *in = nullptr, *out = nullptr;
    float* ref = nullptr;
    cudaMalloc(&in, bytes);
    cudaMalloc(&out, bytes);
    cudaMalloc(reinterpret_cast<void**>(&ref), n * sizeof(float));
    cuop::reference::fill_random(s.type, in, n, 7, -8.f, 8.f, stream);
    cuop::reference::fill_nan(s.type, out, n, stream);
    cuop::reference::softmax_reference(s.type, in, s.rows, s.cols, s.cols, ref, stream);
    const cuop::softmax_problem p{s.type, s.rows, s.cols, 0, 0};
    cuop::softmax_choice choice;
    cuop::softmax_which(p, choice);
    auto st = cuop::softmax(p, in, out, stream);
    cuop::reference::compare_result cmp{};
    const double tol = cuop::reference::softmax_tolerance(s.type, s.cols);
    cuop::reference::compare_softmax(s.type, out, s.rows, s.cols, s.cols, ref, tol,
                                     cuop::reference::softmax_rtol(p.type), &cmp, stream);
    const bool correct = st == cuop::status::success && cmp.bad == 0 && cmp.nan_count == 0;
    failures += correct ? 0 : 1;
    const auto t = cuop::measure::time_launches(
        [&](cudaStream_t st2) {
          return cuop::softmax(p, in, out, st2) == cuop::status::success ? cudaSuccess : cudaErrorUnknown;
        },
        settings, &flusher, stream);
    const auto sum = cuop::measure::summarize(t.samples_us);
    std::printf(
        "{\"rows\": %lld, \"cols\": %lld, \"dtype\": \"%s\", \"instance\": \"%s\", \"source\": \"%s\", "
        "\"exact\": %s, \"median_us\": %.3f, \"gbps\": %.1f, \"samples\": %d, \"correct\": %s, "
        "\"max_abs_err\": %.3g}\n",
        s.rows, s.cols, std::string(cuop::name_of(s.type)).c_str(), choice.instance ? choice.instance : "?",
        choice.source ? choice.source : "?", choice.exact_shape ? "true" : "false", sum.median,
        2.0 * bytes / sum.median / 1e3, sum.count, correct ? "true" : "false", cmp.max_abs_err);
    std::fflush(stdout);
    cudaFree(in);
    cudaFree(out);
    cudaFree(ref);
  }
  return failures ? 1 : 0;
}
