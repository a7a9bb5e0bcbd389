// cuop-holdout-runner SHAPES.jsonl: each shape's dispatched op (choice_policy::tuned) against its
// baseline (choice_policy::baseline: the softmax default rule, cuBLASLt's heuristic, cuDNN's
// heuristic) on the same buffers, both answers verified against the GPU reference first, then
// timed side by side: single launches after an L2 flush, CUDA events around each, the two sides
// alternating sample by sample so that clock drift falls on both, in rounds. One JSON line per
// shape on stdout with both medians and an interval of the speedup (baseline / tuned): the wider
// of the samples' bootstrap interval and the rounds' t interval.
// scripts/holdout.py draws the shapes and reads the lines (docs/dispatch.md, "Holdout").
//
// Input lines (docs/dispatch.md): {"op": "softmax", "dtype": "bf16", "rows": R, "cols": C},
// {"op": "gemm", "dtype": "bf16", "m": M, "n": N, "k": K} (B n x k, D of the input type),
// {"op": "conv2d", "dtype": "f16", "layout": "nhwc", "n":, "h":, "w":, "c":, "k":, "r":, "s":,
// "stride":, "pad":, "dilation":, "groups":}.
// Exit: 0 every answer right, 1 a tuned answer wrong or a side failed, 2 unreadable input,
// 77 no CUDA device.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cuop/conv.hpp"
#include "cuop/gemm.hpp"
#include "cuop/reference/conv_reference.hpp"
#include "cuop/reference/gemm_reference.hpp"
#include "cuop/reference/softmax_reference.hpp"
#include "cuop/softmax.hpp"
#include "tuner/measure/bootstrap.hpp"
#include "tuner/measure/statistics.hpp"
#include "tuner/measure/timer.hpp"

namespace {

using json = nlohmann::json;
namespace kc = cuop::kernels::conv;
namespace ref = cuop::reference;
using launch_fn = std::function<cuop::status(cuop::choice_policy, cudaStream_t)>;

// Device buffers freed at the end of a shape.
struct buffers {
  std::vector<void*> held;
  void* get(std::size_t bytes) {
    void* p = nullptr;
    if (cudaMalloc(&p, std::max<std::size_t>(bytes, 1)) != cudaSuccess) return nullptr;
    held.push_back(p);
    return p;
  }
  ~buffers() {
    for (void* p : held) cudaFree(p);
  }
};

// What one side of a shape is: its choice, whether its answer was right, its samples.
struct side {
  std::string instance, source, kind;
  bool ran = false, correct = false;
  std::string error;
  double max_abs_err = 0;
  std::vector<double> samples_us;
};

// The op-specific part of a shape: how to run it under a policy, how to check the output, and
// what to say about the choice.
struct prepared {
  launch_fn launch;
  std::function<bool(side&, cudaStream_t)> check;  // compares the output just written
  std::function<void(cuop::choice_policy, side&)> describe;
  std::function<void(cudaStream_t)> poison;  // fills the output with NaN
  std::string key;
};

long long get_int(const json& j, const char* name, long long lo, long long hi) {
  if (!j.contains(name) || !j[name].is_number_integer())
    throw std::runtime_error(fmt::format("\"{}\" must be an integer", name));
  const long long v = j[name].get<long long>();
  if (v < lo || v > hi) throw std::runtime_error(fmt::format("\"{}\" = {} is outside {}..{}", name, v, lo, hi));
  return v;
}

cuop::dtype get_dtype(const json& j) {
  if (!j.contains("dtype") || !j["dtype"].is_string()) throw std::runtime_error("\"dtype\" must be a string");
  const auto t = cuop::parse_dtype(j["dtype"].get<std::string>());
  if (!t) throw std::runtime_error("unknown dtype " + j["dtype"].dump());
  return *t;
}

bool prepare_softmax(const json& j, buffers& mem, cudaStream_t s, prepared& out) {
  cuop::softmax_problem p{get_dtype(j), get_int(j, "rows", 1, 1LL << 31), get_int(j, "cols", 1, 1LL << 24), 0, 0};
  const long long n = p.rows * p.cols;
  const std::size_t bytes = static_cast<std::size_t>(n) * cuop::size_of(p.type);
  void* in = mem.get(bytes);
  void* o = mem.get(bytes);
  auto* r = static_cast<float*>(mem.get(static_cast<std::size_t>(n) * 4));
  if (!in || !o || !r) return false;
  ref::fill_random(p.type, in, n, 7, -8.f, 8.f, s);
  ref::softmax_reference(p.type, in, p.rows, p.cols, p.cols, r, s);
  out.key = fmt::format("softmax_{}_{}x{}", cuop::name_of(p.type), p.rows, p.cols);
  out.launch = [=](cuop::choice_policy c, cudaStream_t st) mutable {
    p.policy = c;
    return cuop::softmax(p, in, o, st);
  };
  out.poison = [=](cudaStream_t st) { ref::fill_nan(p.type, o, n, st); };
  out.check = [=](side& sd, cudaStream_t st) {
    ref::compare_result cmp{};
    ref::compare_softmax(p.type, o, p.rows, p.cols, p.cols, r, ref::softmax_tolerance(p.type, p.cols),
                         ref::softmax_rtol(p.type), &cmp, st);
    sd.max_abs_err = cmp.max_abs_err;
    return cmp.bad == 0 && cmp.nan_count == 0;
  };
  out.describe = [=](cuop::choice_policy c, side& sd) mutable {
    p.policy = c;
    cuop::softmax_choice ch;
    if (cuop::softmax_which(p, ch) != cuop::status::success) return;
    sd.instance = ch.instance;
    sd.source = ch.source;
    sd.kind = "kernel";
  };
  return true;
}

bool prepare_gemm(const json& j, buffers& mem, cudaStream_t s, prepared& out) {
  cuop::gemm_problem p;
  p.in = p.out = get_dtype(j);
  p.m = static_cast<int>(get_int(j, "m", 1, 1 << 20));
  p.n = static_cast<int>(get_int(j, "n", 1, 1 << 20));
  p.k = static_cast<int>(get_int(j, "k", 1, 1 << 20));
  const std::size_t e = cuop::size_of(p.in);
  const long long mk = 1LL * p.m * p.k, nk = 1LL * p.n * p.k, mn = 1LL * p.m * p.n;
  void* a = mem.get(mk * e);
  void* b = mem.get(nk * e);
  void* d = mem.get(mn * e);
  auto* r = static_cast<float*>(mem.get(mn * 4));
  if (!a || !b || !d || !r) return false;
  ref::fill_random(p.in, a, mk, 11, -1.f, 1.f, s);
  ref::fill_random(p.in, b, nk, 12, -1.f, 1.f, s);
  ref::gemm_reference(p.in, p.out, true, a, p.k, b, p.k, nullptr, p.n, p.m, p.n, p.k, 1.f, 0.f, r, s);
  out.key = fmt::format("gemm_{}_{}x{}x{}", cuop::name_of(p.in), p.m, p.n, p.k);
  out.launch = [=](cuop::choice_policy c, cudaStream_t st) mutable {
    p.policy = c;
    return cuop::gemm(p, a, b, nullptr, d, st);
  };
  out.poison = [=](cudaStream_t st) { ref::fill_nan(p.out, d, mn, st); };
  out.check = [=](side& sd, cudaStream_t st) {
    ref::compare_result cmp{};
    ref::compare_gemm(p.out, d, p.n, p.m, p.n, r, ref::gemm_atol(p.in, p.out, p.k), ref::gemm_rtol(p.out), &cmp, st);
    sd.max_abs_err = cmp.max_abs_err;
    return cmp.bad == 0 && cmp.nan_count == 0;
  };
  out.describe = [=](cuop::choice_policy c, side& sd) mutable {
    p.policy = c;
    cuop::gemm_choice ch;
    if (cuop::gemm_which(p, ch) != cuop::status::success) return;
    sd.instance = ch.instance;
    sd.source = ch.source;
    sd.kind = ch.kind;
  };
  return true;
}

bool prepare_conv(const json& j, buffers& mem, cudaStream_t s, prepared& out) {
  cuop::conv2d_problem p;
  p.type = get_dtype(j);
  auto& sh = p.shape;
  const std::string lay = j.value("layout", "nhwc");
  if (!kc::parse_layout(lay, sh.lay)) throw std::runtime_error("unknown layout \"" + lay + "\"");
  sh.n = static_cast<int>(get_int(j, "n", 1, 1 << 16));
  sh.h = static_cast<int>(get_int(j, "h", 1, 1 << 16));
  sh.w = static_cast<int>(get_int(j, "w", 1, 1 << 16));
  sh.c = static_cast<int>(get_int(j, "c", 1, 1 << 16));
  sh.k = static_cast<int>(get_int(j, "k", 1, 1 << 16));
  sh.r = static_cast<int>(get_int(j, "r", 1, 64));
  sh.s = static_cast<int>(get_int(j, "s", 1, 64));
  sh.stride_h = sh.stride_w = static_cast<int>(get_int(j, "stride", 1, 8));
  sh.pad_h = sh.pad_w = static_cast<int>(get_int(j, "pad", 0, 64));
  sh.dil_h = sh.dil_w = static_cast<int>(get_int(j, "dilation", 1, 8));
  sh.groups = static_cast<int>(get_int(j, "groups", 1, 1 << 16));
  if (const auto why = kc::check_shape(sh); !why.empty()) throw std::runtime_error(why);
  const std::size_t e = cuop::size_of(p.type);
  const long long xn = 1LL * sh.n * sh.c * sh.h * sh.w, wn = 1LL * sh.k * (sh.c / sh.groups) * sh.r * sh.s;
  const long long yn = 1LL * sh.n * sh.k * sh.p() * sh.q();
  void* x = mem.get(xn * e);
  void* w = mem.get(wn * e);
  void* y = mem.get(yn * e);
  auto* r = static_cast<float*>(mem.get(yn * 4));
  if (!x || !w || !y || !r) return false;
  ref::fill_random(p.type, x, xn, 11, -1.f, 1.f, s);
  ref::fill_random(p.type, w, wn, 12, -1.f, 1.f, s);
  ref::conv2d_reference(p.type, sh, x, w, r, s);
  out.key = fmt::format("conv2d_{}_{}_{}x{}x{}x{}_k{}_r{}x{}_s{}_p{}_d{}_g{}", cuop::name_of(p.type), lay, sh.n, sh.h,
                        sh.w, sh.c, sh.k, sh.r, sh.s, sh.stride_h, sh.pad_h, sh.dil_h, sh.groups);
  out.launch = [=](cuop::choice_policy c, cudaStream_t st) mutable {
    p.policy = c;
    return cuop::conv2d(p, x, w, y, st);
  };
  out.poison = [=](cudaStream_t st) { ref::fill_nan(p.type, y, yn, st); };
  out.check = [=](side& sd, cudaStream_t st) {
    const int last = sh.lay == kc::layout::nhwc ? sh.k : sh.q();
    ref::compare_result cmp{};
    ref::compare_gemm(p.type, y, last, static_cast<int>(yn / last), last, r, ref::conv_atol(p.type, sh),
                      ref::conv_rtol(p.type), &cmp, st);
    sd.max_abs_err = cmp.max_abs_err;
    return cmp.bad == 0 && cmp.nan_count == 0;
  };
  out.describe = [=](cuop::choice_policy c, side& sd) mutable {
    p.policy = c;
    cuop::conv2d_choice ch;
    if (cuop::conv2d_which(p, ch) != cuop::status::success) return;
    sd.instance = ch.instance;
    sd.source = ch.source;
    sd.kind = ch.kind;
  };
  return true;
}

// Runs one side once on poisoned output and checks the answer.
void verify(prepared& pr, cuop::choice_policy c, side& sd, cudaStream_t s) {
  pr.describe(c, sd);
  pr.poison(s);
  const auto st = pr.launch(c, s);
  if (st != cuop::status::success) {
    sd.error = cuop::to_string(st);
    return;
  }
  if (const auto e = cudaStreamSynchronize(s); e != cudaSuccess) {
    sd.error = cudaGetErrorString(e);
    return;
  }
  sd.ran = true;
  sd.correct = pr.check(sd, s);
  if (!sd.correct) sd.error = "wrong answer";
}

double cold_us(prepared& pr, cuop::choice_policy c, cuop::measure::l2_flusher& flusher, cudaStream_t s,
               cudaEvent_t start, cudaEvent_t stop) {
  flusher.flush(s);
  cudaEventRecord(start, s);
  pr.launch(c, s);
  cudaEventRecord(stop, s);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  return ms * 1e3;
}

// Both sides in `rounds` rounds, each taking its share of the samples (at least `min_samples` and
// the time budget in all, at most `max_samples` each), alternating sample by sample. The rounds
// give each side one median per round: what moves between rounds (clocks, the other side's state)
// widens the interval where the samples of one stretch alone would not.
void time_both(prepared& pr, side& tuned, side& base, std::vector<double>& round_log_ratios,
               cuop::measure::l2_flusher& flusher, cudaStream_t s, int min_samples, int max_samples, double budget_ms,
               int rounds) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i) {  // warm-up
    pr.launch(cuop::choice_policy::tuned, s);
    pr.launch(cuop::choice_policy::baseline, s);
  }
  cudaStreamSynchronize(s);
  const int min_round = std::max(3, min_samples / rounds), max_round = std::max(min_round, max_samples / rounds);
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> t_round, b_round;
    double spent_us = 0;
    for (int i = 0; i < max_round; ++i) {
      if (i >= min_round && spent_us > budget_ms * 1e3 / rounds) break;
      const bool tuned_first = (i + r) % 2 == 0;
      for (int k = 0; k < 2; ++k) {
        const bool t = (k == 0) == tuned_first;
        const double us =
            cold_us(pr, t ? cuop::choice_policy::tuned : cuop::choice_policy::baseline, flusher, s, start, stop);
        (t ? t_round : b_round).push_back(us);
        spent_us += us;
      }
    }
    tuned.samples_us.insert(tuned.samples_us.end(), t_round.begin(), t_round.end());
    base.samples_us.insert(base.samples_us.end(), b_round.begin(), b_round.end());
    round_log_ratios.push_back(
        std::log(cuop::measure::summarize(b_round).median / cuop::measure::summarize(t_round).median));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// The 95% t interval of the mean of the rounds' log speedups, as speedups.
std::pair<double, double> round_interval(const std::vector<double>& logs) {
  static constexpr double t975[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262};
  const int n = static_cast<int>(logs.size());
  if (n < 2) return {0, INFINITY};
  double mean = 0, var = 0;
  for (double x : logs) mean += x / n;
  for (double x : logs) var += (x - mean) * (x - mean) / (n - 1);
  const double half = (n - 1 < 10 ? t975[n - 1] : 2.0) * std::sqrt(var / n);
  return {std::exp(mean - half), std::exp(mean + half)};
}

json side_json(const side& sd) {
  const auto sum = cuop::measure::summarize(sd.samples_us);
  return {{"instance", sd.instance},
          {"source", sd.source},
          {"kind", sd.kind},
          {"ran", sd.ran},
          {"correct", sd.correct},
          {"error", sd.error},
          {"max_abs_err", sd.max_abs_err},
          {"median_us", sum.median},
          {"ci_lo_us", sum.ci_lo},
          {"ci_hi_us", sum.ci_hi},
          {"samples", sum.count}};
}

// The timing settings of a run (the command line's optional arguments).
struct run_options {
  int min_samples = 20;
  int max_samples = 200;
  double budget_ms = 60.0;
  int rounds = 6;
  bool aa = false;  // CUOP_HOLDOUT_AA=1: the baseline on both sides, to see the comparison's own noise
};

// The shapes of a JSON-lines file, each with its line number as "line". False, after saying
// why, when the file cannot be read or a line is not a JSON object with an "op".
bool read_shapes(const char* path, std::vector<json>& shapes) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cuop-holdout-runner: cannot read %s\n", path);
    return false;
  }
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (line.empty()) continue;
    auto j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("op") || !j["op"].is_string()) {
      std::fprintf(stderr, "%s:%d: not a JSON object with an \"op\"\n", path, no);
      return false;
    }
    j["line"] = no;
    shapes.push_back(std::move(j));
  }
  return true;
}

// Prepares shape `j` of op `op`; false when the device is out of memory. Throws on a bad shape.
bool prepare(const std::string& op, const json& j, buffers& mem, cudaStream_t stream, prepared& pr) {
  if (op == "softmax") return prepare_softmax(j, mem, stream, pr);
  if (op == "gemm") return prepare_gemm(j, mem, stream, pr);
  if (op == "conv2d") return prepare_conv(j, mem, stream, pr);
  throw std::runtime_error("unknown op \"" + op + "\" (softmax, gemm, conv2d)");
}

// Verifies and times both sides of a prepared shape into `row`; whether the shape failed (a
// wrong tuned answer, or a baseline that did not run).
bool compare_sides(prepared& pr, json& row, const run_options& o, cuop::measure::l2_flusher& flusher,
                   cudaStream_t stream) {
  if (o.aa) {  // both sides the baseline: what the comparison reports when nothing differs
    pr.launch = [inner = pr.launch](cuop::choice_policy, cudaStream_t st) {
      return inner(cuop::choice_policy::baseline, st);
    };
    pr.describe = [inner = pr.describe](cuop::choice_policy, side& sd) { inner(cuop::choice_policy::baseline, sd); };
  }
  side tuned, base;
  verify(pr, cuop::choice_policy::tuned, tuned, stream);
  verify(pr, cuop::choice_policy::baseline, base, stream);
  row["key"] = pr.key;
  if (tuned.correct && base.correct) {
    std::vector<double> round_logs;
    time_both(pr, tuned, base, round_logs, flusher, stream, o.min_samples, o.max_samples, o.budget_ms, o.rounds);
    const auto r = cuop::measure::bootstrap_median_ratio(tuned.samples_us, base.samples_us, {2000, 1, 0.95});
    const auto [lo, hi] = round_interval(round_logs);
    row["speedup"] = r.ratio;  // median(baseline) / median(tuned)
    // The wider of the samples' bootstrap interval and the rounds' t interval.
    row["speedup_lo"] = std::min(r.lo, lo);
    row["speedup_hi"] = std::max(r.hi, hi);
    row["round_speedups"] = json::array();
    for (double x : round_logs) row["round_speedups"].push_back(std::exp(x));
  }
  row["tuned"] = side_json(tuned);
  row["baseline"] = side_json(base);
  return !tuned.correct || !base.ran;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cuop-holdout-runner SHAPES.jsonl [MIN_SAMPLES MAX_SAMPLES BUDGET_MS [ROUNDS]]\n");
    return 2;
  }
  run_options o;
  if (argc > 2) o.min_samples = std::atoi(argv[2]);
  if (argc > 3) o.max_samples = std::atoi(argv[3]);
  if (argc > 4) o.budget_ms = std::atof(argv[4]);
  if (argc > 5) o.rounds = std::atoi(argv[5]);
  if (o.min_samples < 5 || o.max_samples < o.min_samples || !(o.budget_ms > 0) || o.rounds < 2 || o.rounds > 10) {
    std::fprintf(stderr,
                 "cuop-holdout-runner: need 5 <= MIN_SAMPLES <= MAX_SAMPLES, BUDGET_MS > 0, 2 <= ROUNDS <= 10\n");
    return 2;
  }
  o.aa = std::getenv("CUOP_HOLDOUT_AA") != nullptr && std::string(std::getenv("CUOP_HOLDOUT_AA")) == "1";
  std::vector<json> shapes;
  if (!read_shapes(argv[1], shapes)) return 2;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "cuop-holdout-runner: no CUDA device: skipped\n");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  cudaStream_t stream{};
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cuop::measure::l2_flusher flusher(prop.l2CacheSize);
  int failures = 0;
  for (const auto& j : shapes) {
    prepared pr;
    buffers mem;
    json row = j;
    try {
      if (!prepare(j["op"].get<std::string>(), j, mem, stream, pr)) {
        row["error"] = "out of device memory";
        std::printf("%s\n", row.dump().c_str());
        ++failures;
        continue;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s:%d: %s\n", argv[1], j["line"].get<int>(), e.what());
      return 2;
    }
    if (compare_sides(pr, row, o, flusher, stream)) ++failures;
    std::printf("%s\n", row.dump().c_str());
    std::fflush(stdout);
    cudaGetLastError();
  }
  cudaStreamDestroy(stream);
  return failures ? 1 : 0;
}
