// Google Benchmark of the dispatched cuop::gemm against cuBLASLt's heuristic first choice on the
// same buffers: CUDA events around each launch (manual time), the L2 flushed outside the timed
// region, the answer of both verified against the reference before timing. Counters: TFLOP/s
// and, for decode shapes, the bandwidth of reading B.
//   gemm_bench [--shapes=MxNxK,...] [--f16] [--min-time=SECONDS] [google benchmark flags]
// --min-time: manual (GPU) time each benchmark runs for, 0.2 s by default; every launch also
// costs a flush, so repetitions of small shapes take many times that in wall time.
#include <benchmark/benchmark.h>
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench_support.hpp"
#include "cuop/backends/cublaslt_backend.hpp"
#include "cuop/gemm.hpp"
#include "cuop/reference/gemm_reference.hpp"
#include "cuop/reference/memory.hpp"

namespace {

struct shape {
  int m, n, k;
  cuop::dtype type;
};

// Buffers of one shape, made once and shared by both benchmarks of it.
struct problem {
  shape s;
  void *a = nullptr, *b = nullptr, *d = nullptr;
  float* ref = nullptr;
  bool verified_cuop = false, verified_lt = false;
  ~problem() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
    cudaFree(ref);
  }
};

cudaStream_t g_stream{};
std::unique_ptr<cuop::measure::l2_flusher> g_flusher;

problem& problem_for(const shape& s) {
  static std::map<std::tuple<int, int, int, cuop::dtype>, std::unique_ptr<problem>> cache;
  auto& p = cache[{s.m, s.n, s.k, s.type}];
  if (p) return *p;
  p = std::make_unique<problem>();
  p->s = s;
  const std::size_t e = cuop::size_of(s.type);
  cudaMalloc(&p->a, static_cast<std::size_t>(s.m) * s.k * e);
  cudaMalloc(&p->b, static_cast<std::size_t>(s.n) * s.k * e);
  cudaMalloc(&p->d, static_cast<std::size_t>(s.m) * s.n * e);
  cudaMalloc(reinterpret_cast<void**>(&p->ref), static_cast<std::size_t>(s.m) * s.n * sizeof(float));
  cuop::reference::fill_random(s.type, p->a, static_cast<long long>(s.m) * s.k, 11, -1.f, 1.f, g_stream);
  cuop::reference::fill_random(s.type, p->b, static_cast<long long>(s.n) * s.k, 12, -1.f, 1.f, g_stream);
  cuop::reference::gemm_reference(s.type, s.type, true, p->a, s.k, p->b, s.k, nullptr, s.n, s.m, s.n, s.k, 1.f, 0.f,
                                  p->ref, g_stream);
  cudaStreamSynchronize(g_stream);
  return *p;
}

bool verify(problem& p, const std::function<cudaError_t(cudaStream_t)>& launch, std::string& why) {
  const auto& s = p.s;
  cuop::reference::fill_nan(s.type, p.d, static_cast<long long>(s.m) * s.n, g_stream);
  if (auto e = launch(g_stream); e != cudaSuccess) {
    why = cudaGetErrorString(e);
    return false;
  }
  cuop::reference::compare_result cmp{};
  cuop::reference::compare_gemm(s.type, p.d, s.n, s.m, s.n, p.ref, cuop::reference::gemm_atol(s.type, s.type, s.k),
                                cuop::reference::gemm_rtol(s.type), &cmp, g_stream);
  if (cmp.bad || cmp.nan_count) {
    why = std::to_string(cmp.bad) + " wrong elements";
    return false;
  }
  return true;
}

void time_it(benchmark::State& state, const shape& s, const std::function<cudaError_t(cudaStream_t)>& launch) {
  cuop::bench::time_cold(state, launch, *g_flusher, g_stream);
  state.counters["TFLOPs"] = cuop::bench::per_second(2.0 * s.m * s.n * static_cast<double>(s.k) / 1e12);
  state.counters["B_TBps"] = cuop::bench::per_second(static_cast<double>(s.n) * s.k * cuop::size_of(s.type) / 1e12);
}

void bm_cuop(benchmark::State& state, shape s) {
  auto& p = problem_for(s);
  cuop::gemm_problem g;
  g.in = g.out = s.type;
  g.m = s.m;
  g.n = s.n;
  g.k = s.k;
  const auto launch = [&](cudaStream_t st) {
    return cuop::gemm(g, p.a, p.b, nullptr, p.d, st) == cuop::status::success ? cudaSuccess : cudaErrorUnknown;
  };
  std::string why;
  if (!verify(p, launch, why)) {
    state.SkipWithError(("cuop::gemm answer is wrong: " + why).c_str());
    return;
  }
  cuop::gemm_choice choice;
  cuop::gemm_which(g, choice);
  state.SetLabel(std::string(choice.instance) + " (" + choice.source + ")");
  time_it(state, s, launch);
}

void bm_cublaslt(benchmark::State& state, shape s) {
  auto& p = problem_for(s);
  static cublasLtHandle_t handle = [] {
    cublasLtHandle_t h = nullptr;
    cublasLtCreate(&h);
    return h;
  }();
  cuop::backends::lt_gemm lt;
  const cuop::backends::lt_problem lp{s.type, s.type, cuop::kernels::gemm::b_layout::col, s.m, s.n, s.k, s.k, s.k,
                                      s.n,    s.n};
  std::vector<cuop::backends::lt_config> configs;
  std::vector<cublasLtMatmulAlgo_t> algos;
  std::string why;
  if (lt.init(lp, &why) != CUBLAS_STATUS_SUCCESS ||
      lt.heuristic(handle, 1, 32u << 20, configs, &why, &algos) != CUBLAS_STATUS_SUCCESS || algos.empty()) {
    state.SkipWithError(("cuBLASLt heuristic: " + why).c_str());
    return;
  }
  void* ws = nullptr;
  if (configs[0].workspace_bytes) cudaMalloc(&ws, configs[0].workspace_bytes);
  const auto launch = [&](cudaStream_t st) {
    return lt.run(handle, algos[0], p.a, p.b, nullptr, p.d, 1.f, 0.f, ws, configs[0].workspace_bytes, st) ==
                   CUBLAS_STATUS_SUCCESS
               ? cudaSuccess
               : cudaErrorUnknown;
  };
  if (!verify(p, launch, why)) {
    state.SkipWithError(("cuBLASLt answer is wrong: " + why).c_str());
  } else {
    state.SetLabel(cuop::backends::lt_config_id(configs[0]));
    time_it(state, s, launch);
  }
  cudaFree(ws);
}

// Median of `reps` cold launches (flush, events), microseconds.
double median_cold_us(const std::function<cudaError_t(cudaStream_t)>& launch, int reps) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 2; ++i) launch(g_stream);
  std::vector<double> us;
  for (int i = 0; i < reps; ++i)
    us.push_back(cuop::bench::cold_launch_ms(launch, *g_flusher, g_stream, start, stop) * 1e3);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(us.begin(), us.begin() + reps / 2, us.end());
  return us[reps / 2];
}

// The fastest streaming read of B: every launch shape of read_shapes() is tried (median of 15
// cold launches), then the best is timed like the GEMMs.
void bm_read_floor(benchmark::State& state, shape s) {
  auto& p = problem_for(s);
  const std::size_t bytes = static_cast<std::size_t>(s.n) * s.k * cuop::size_of(s.type) / 16 * 16;
  unsigned* sink = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&sink), sizeof(unsigned));
  cuop::reference::read_shape best{};
  double best_us = 1e30;
  for (const auto& shape : cuop::reference::read_shapes()) {
    const double us =
        median_cold_us([&](cudaStream_t st) { return cuop::reference::read_stream(p.b, bytes, sink, shape, st); }, 15);
    if (us < best_us) best_us = us, best = shape;
  }
  if (const auto e = cudaGetLastError(); e != cudaSuccess) {
    state.SkipWithError((std::string("read floor: ") + cudaGetErrorString(e)).c_str());
  } else {
    state.SetLabel("read_stream " + cuop::reference::read_shape_name(best));
    cuop::bench::time_cold(
        state, [&](cudaStream_t st) { return cuop::reference::read_stream(p.b, bytes, sink, best, st); }, *g_flusher,
        g_stream);
    state.counters["B_TBps"] = cuop::bench::per_second(static_cast<double>(bytes) / 1e12);  // no FLOPs: a read
  }
  cudaFree(sink);
}

std::vector<shape> parse_shapes(const std::string& list, cuop::dtype t) {
  std::vector<shape> out;
  std::size_t pos = 0;
  while (pos < list.size()) {
    auto end = list.find(',', pos);
    if (end == std::string::npos) end = list.size();
    shape s{0, 0, 0, t};
    if (std::sscanf(list.substr(pos, end - pos).c_str(), "%dx%dx%d", &s.m, &s.n, &s.k) == 3) out.push_back(s);
    pos = end + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shapes =
      "4096x4096x4096,8192x8192x8192,16x4096x4096,128x4096x4096,127x1031x4093,"
      "32768x1024x1024,512x28672x8192,2048x2048x128,1x14336x4096,64x8192x28672";
  cuop::dtype type = cuop::dtype::bf16;
  double min_time = 0.2;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--shapes=", 9) == 0) shapes = argv[i] + 9;
    else if (std::strcmp(argv[i], "--f16") == 0) type = cuop::dtype::f16;
    else if (std::strncmp(argv[i], "--min-time=", 11) == 0) min_time = std::atof(argv[i] + 11);
    else rest.push_back(argv[i]);
  }
  if (!(min_time > 0)) {
    std::fprintf(stderr, "gemm_bench: --min-time must be a number of seconds > 0\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "gemm_bench: no CUDA device: skipped\n");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  cudaStreamCreate(&g_stream);
  g_flusher = std::make_unique<cuop::measure::l2_flusher>(prop.l2CacheSize);
  for (const auto& s : parse_shapes(shapes, type)) {
    const auto name = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + "/" +
                      std::string(cuop::name_of(s.type));
    benchmark::RegisterBenchmark(("cuop_gemm/" + name).c_str(), bm_cuop, s)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(min_time);
    benchmark::RegisterBenchmark(("cublaslt_heuristic/" + name).c_str(), bm_cublaslt, s)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(min_time);
    if (s.m <= 64)
      benchmark::RegisterBenchmark(("b_read_floor/" + name).c_str(), bm_read_floor, s)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->MinTime(min_time);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_flusher.reset();
  return 0;
}
