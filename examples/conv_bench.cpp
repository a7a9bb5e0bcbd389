// Google Benchmark of the dispatched cuop::conv2d against cuDNN's heuristic first plan (mode A) on
// the same buffers: CUDA events around each launch (manual time), the L2 flushed outside the timed
// region, both answers verified against the GPU reference before timing. Counters: TFLOP/s and
// the bandwidth of reading x and w and writing y once.
//   conv_bench [--shapes=SPEC;SPEC...] [google benchmark flags]
// SPEC is the problem key minus "conv2d_", as `cuop-tune best` prints it:
// "f16_nhwc_32x28x28x512_k512_filter7x7_stride1_pad3_dil1_groups512", "..._groups1_tf32" for f32 with TF32 allowed.
// Default: the depthwise and dense-f32 layers of configs/conv.yaml.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cuop/conv.hpp"
#include "cuop/reference/conv_reference.hpp"
#include "cuop/reference/gemm_reference.hpp"     // compare_gemm
#include "cuop/reference/softmax_reference.hpp"  // fill_random, fill_nan
#if CUOP_HAVE_CUDNN
#include "cuop/backends/cudnn_backend.hpp"
#endif

namespace {

namespace kc = cuop::kernels::conv;

struct shape {
  cuop::dtype type;
  kc::conv_shape sh;
  std::string key;
};

// Buffers of one shape, made once and shared by both benchmarks of it.
struct problem {
  shape s;
  void *x = nullptr, *w = nullptr, *y = nullptr;
  float* ref = nullptr;
  ~problem() {
    cudaFree(x);
    cudaFree(w);
    cudaFree(y);
    cudaFree(ref);
  }
};

long long x_count(const kc::conv_shape& sh) { return 1LL * sh.n * sh.c * sh.h * sh.w; }
long long w_count(const kc::conv_shape& sh) { return 1LL * sh.k * (sh.c / sh.groups) * sh.r * sh.s; }
long long y_count(const kc::conv_shape& sh) { return 1LL * sh.n * sh.k * sh.p() * sh.q(); }

cudaStream_t g_stream{};
std::unique_ptr<cuop::measure::l2_flusher> g_flusher;

problem& problem_for(const shape& s) {
  static std::map<std::string, std::unique_ptr<problem>> cache;
  auto& p = cache[s.key];
  if (p) return *p;
  p = std::make_unique<problem>();
  p->s = s;
  const std::size_t e = cuop::size_of(s.type);
  cudaMalloc(&p->x, x_count(s.sh) * e);
  cudaMalloc(&p->w, w_count(s.sh) * e);
  cudaMalloc(&p->y, y_count(s.sh) * e);
  cudaMalloc(reinterpret_cast<void**>(&p->ref), y_count(s.sh) * sizeof(float));
  cuop::reference::fill_random(s.type, p->x, x_count(s.sh), 11, -1.f, 1.f, g_stream);
  cuop::reference::fill_random(s.type, p->w, w_count(s.sh), 12, -1.f, 1.f, g_stream);
  cuop::reference::conv2d_reference(s.type, s.sh, p->x, p->w, p->ref, g_stream);
  cudaStreamSynchronize(g_stream);
  return *p;
}

bool verify(problem& p, const std::function<cudaError_t(cudaStream_t)>& launch, std::string& why) {
  const auto& sh = p.s.sh;
  cuop::reference::fill_nan(p.s.type, p.y, y_count(sh), g_stream);
  if (auto e = launch(g_stream); e != cudaSuccess) {
    why = cudaGetErrorString(e);
    return false;
  }
  const int last = sh.lay == kc::layout::nhwc ? sh.k : sh.q();
  cuop::reference::compare_result cmp{};
  cuop::reference::compare_gemm(p.s.type, p.y, last, static_cast<int>(y_count(sh) / last), last, p.ref,
                                cuop::reference::conv_atol(p.s.type, sh), cuop::reference::conv_rtol(p.s.type), &cmp,
                                g_stream);
  if (cmp.bad || cmp.nan_count) {
    why = std::to_string(cmp.bad) + " wrong elements, max abs error " + std::to_string(cmp.max_abs_err);
    return false;
  }
  return true;
}

void time_it(benchmark::State& state, const shape& s, const std::function<cudaError_t(cudaStream_t)>& launch) {
  cuop::bench::time_cold(state, launch, *g_flusher, g_stream);
  state.counters["TFLOPs"] = cuop::bench::per_second(kc::conv_flops(s.sh) / 1e12);
  state.counters["TBps"] = cuop::bench::per_second(kc::conv_bytes(s.type, s.sh) / 1e12);
}

void bm_cuop(benchmark::State& state, const shape& s) {
  auto& p = problem_for(s);
  const cuop::conv2d_problem c{s.type, s.sh, 1.f, 0.f};
  const auto launch = [&](cudaStream_t st) {
    return cuop::conv2d(c, p.x, p.w, p.y, st) == cuop::status::success ? cudaSuccess : cudaErrorUnknown;
  };
  std::string why;
  if (!verify(p, launch, why)) {
    state.SkipWithError(("cuop::conv2d answer is wrong: " + why).c_str());
    return;
  }
  cuop::conv2d_choice choice;
  cuop::conv2d_which(c, choice);
  state.SetLabel(std::string(choice.instance) + " (" + choice.source + (choice.exact_shape ? "" : ", nearest") + ")");
  time_it(state, s, launch);
}

#if CUOP_HAVE_CUDNN
void bm_cudnn(benchmark::State& state, const shape& s) {
  auto& p = problem_for(s);
  static cudnnHandle_t handle = [] {
    cudnnHandle_t h = nullptr;
    cudnnCreate(&h);
    return h;
  }();
  cuop::backends::dnn_conv conv;
  cuop::backends::dnn_plan plan;
  std::vector<cuop::backends::cudnn_config> first;
  std::string why;
  if (conv.init(handle, s.type, s.sh, s.sh.allow_tf32, &why) != CUDNN_STATUS_SUCCESS ||
      conv.heuristic(CUDNN_HEUR_MODE_A, 1, first, &why) != CUDNN_STATUS_SUCCESS || first.empty() ||
      conv.build(first[0], plan, &why) != CUDNN_STATUS_SUCCESS) {
    state.SkipWithError(("cuDNN heuristic: " + why).c_str());
    return;
  }
  void* ws = nullptr;
  if (plan.workspace_bytes) cudaMalloc(&ws, static_cast<std::size_t>(plan.workspace_bytes));
  const auto launch = [&](cudaStream_t st) {
    return conv.run(plan, p.x, p.w, p.y, ws, st) == CUDNN_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
  };
  if (!verify(p, launch, why)) {
    state.SkipWithError(("cuDNN answer is wrong: " + why).c_str());
  } else {
    state.SetLabel(cuop::backends::cudnn_config_id(first[0]));
    time_it(state, s, launch);
  }
  cudaFree(ws);
}
#endif

// "f16_nhwc_32x28x28x512_k512_filter7x7_stride1_pad3_dil1_groups512"
bool parse_shape(const std::string& text, shape& out) {
  char type[8] = {}, lay[8] = {};
  kc::conv_shape sh;
  if (std::sscanf(text.c_str(), "%7[a-z0-9]_%7[a-z]_%dx%dx%dx%d_k%d_filter%dx%d_stride%d_pad%d_dil%d_groups%d", type,
                  lay, &sh.n, &sh.h, &sh.w, &sh.c, &sh.k, &sh.r, &sh.s, &sh.stride_h, &sh.pad_h, &sh.dil_h,
                  &sh.groups) != 13)
    return false;
  const auto t = cuop::parse_dtype(type);
  if (!t || !kc::parse_layout(lay, sh.lay)) return false;
  sh.stride_w = sh.stride_h;
  sh.pad_w = sh.pad_h;
  sh.dil_w = sh.dil_h;
  sh.allow_tf32 = text.size() > 5 && text.compare(text.size() - 5, 5, "_tf32") == 0;
  if (!kc::check_shape(sh).empty()) return false;
  out = {*t, sh, text};
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shapes =
      "f16_nhwc_32x56x56x256_k256_filter3x3_stride1_pad1_dil1_groups256;f16_nhwc_32x28x28x512_k512_filter7x7_stride1_"
      "pad3_dil1_groups512;"
      "f16_nhwc_16x64x64x384_k384_filter7x7_stride1_pad3_dil1_groups384;f16_nchw_32x28x28x512_k512_filter7x7_stride1_"
      "pad3_dil1_groups512;"
      "f16_nhwc_8x32x32x1024_k1024_filter31x31_stride1_pad15_dil1_groups1024;f32_nchw_4x256x256x32_k32_filter11x11_"
      "stride1_pad5_dil1_groups1;"
      "f32_nchw_4x256x256x32_k32_filter15x15_stride1_pad7_dil1_groups1;f16_nhwc_32x56x56x64_k64_filter3x3_stride1_pad1_"
      "dil1_groups1";
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--shapes=", 9) == 0) shapes = argv[i] + 9;
    else rest.push_back(argv[i]);
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "conv_bench: no CUDA device: skipped\n");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  cudaStreamCreate(&g_stream);
  g_flusher = std::make_unique<cuop::measure::l2_flusher>(prop.l2CacheSize);
  std::size_t pos = 0;
  while (pos < shapes.size()) {
    auto end = shapes.find(';', pos);
    if (end == std::string::npos) end = shapes.size();
    const auto text = shapes.substr(pos, end - pos);
    pos = end + 1;
    shape s;
    if (!parse_shape(text, s)) {
      std::fprintf(stderr, "conv_bench: cannot read shape \"%s\"\n", text.c_str());
      return 2;
    }
    benchmark::RegisterBenchmark(("cuop_conv2d/" + text).c_str(), bm_cuop, s)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(0.2);
#if CUOP_HAVE_CUDNN
    benchmark::RegisterBenchmark(("cudnn_heuristic/" + text).c_str(), bm_cudnn, s)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(0.2);
#endif
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_flusher.reset();
  return 0;
}
