// Picks a GEMM choice from the emitted table (our kernel, a cuBLASLt configuration rebuilt from
// its identifier, or cuBLASLt's heuristic) and runs it.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cuop/gemm.hpp"
#include "cuop/backends/cublaslt_backend.hpp"
#include "cuop/generated/gemm_dispatch.hpp"
#include "cuop/kernels/gemm/launch.hpp"
#include "cuop/kernels/gemm/pack.hpp"
#include "dispatch_common.hpp"

namespace cuop::generated {
extern const void* const gemm_kernels[];
}

namespace cuop {

namespace kg = kernels::gemm;
namespace bk = backends;
using dispatch::to_status;

namespace {

constexpr std::size_t library_workspace_limit = 32u << 20;

// One cuBLASLt handle per (thread, device), as cuBLASLt asks; never destroyed (process lifetime).
cublasLtHandle_t lt_handle(int device) {
  thread_local std::map<int, cublasLtHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasLtHandle_t h = nullptr;
  if (cublasLtCreate(&h) != CUBLAS_STATUS_SUCCESS) h = nullptr;
  handles.emplace(device, h);
  return h;
}

// The full problem a choice is made for (leading dimensions resolved).
struct call_key {
  int device;
  dtype in, out;
  kg::b_layout b;
  int m, n, k;
  long long lda, ldb, ldc, ldd;
  auto tie() const { return std::tie(device, in, out, b, m, n, k, lda, ldb, ldc, ldd); }
  bool operator<(const call_key& o) const { return tie() < o.tie(); }
};

struct selection {
  const detail::gemm_entry* entry = nullptr;
  kg::launch_plan plan;                  // kernel
  std::shared_ptr<bk::lt_gemm> lt;       // cublaslt and heuristic
  cublasLtMatmulAlgo_t algo{};
  std::size_t lt_workspace = 0;
  kg::pack_plan pack;                    // cublaslt on packed operands: regions after lt_workspace
  std::size_t pack_end = 0;
  bool fell_back = false;
};

// Configurations measured on packed operands end their identifier (and instance) with this.
constexpr std::string_view pack_suffix = "_pk1";

// Rows of A and B already allow 16-byte copies (pointers aside): a neighbour's packing choice
// would only add a copy.
bool leading_dims_aligned(const call_key& p) {
  return p.k % 8 == 0 && p.lda % 8 == 0 && p.ldb % 8 == 0;
}

double log_distance(const detail::gemm_entry& e, const call_key& p) {
  const auto d = [](int a, int b) { return std::fabs(std::log(static_cast<double>(a) / b)); };
  return d(e.m, p.m) + d(e.n, p.n) + d(e.k, p.k);
}

// Says once per table entry that the installed cuBLASLt rejects its configuration.
void report_fallback(const detail::gemm_entry& e, const call_key& p, const std::string& why) {
  static std::mutex m;
  static std::set<const detail::gemm_entry*> said;
  std::lock_guard lock(m);
  if (!said.insert(&e).second) return;
  std::fprintf(stderr,
               "cuop::gemm: the installed cuBLASLt rejects %s for %dx%dx%d (%s); using its heuristic\n",
               e.instance, p.m, p.n, p.k, why.c_str());
}

// cuBLASLt's heuristic for the call. `verified`: the table measured and verified this very choice
// for this shape; otherwise (an untuned shape, a default) its split-K partials must be reduced in
// the compute type: reduced in a 16-bit output type they fail the tolerance (4097^3 f16 and bf16
// on the H200, docs/gemm-h200.md).
status heuristic_choice(cublasLtHandle_t h, selection& s, bool verified) {
  std::vector<bk::lt_config> configs;
  std::vector<cublasLtMatmulAlgo_t> algos;
  if (s.lt->heuristic(h, 1, library_workspace_limit, configs, nullptr, &algos, !verified) != CUBLAS_STATUS_SUCCESS ||
      algos.empty())
    return status::unsupported;
  s.algo = algos.front();
  s.lt_workspace = configs.front().workspace_bytes;
  return status::success;
}

// Prepares `e` for the call; false when it cannot run it (the next candidate is tried).
bool try_entry(const detail::gemm_entry& e, const call_key& p, const kg::device_limits& limits,
               cublasLtHandle_t h, selection& s) {
  s = {};
  s.entry = &e;
  const bool exact = e.m == p.m && e.n == p.n && e.k == p.k;
  if (e.kind == detail::gemm_kind::kernel) {
    kg::gemm_config c = e.config;
    if (c.pack == 1 && !exact && leading_dims_aligned(p)) c.pack = 0;
    return generated::gemm_kernels[e.kernel] && kg::plan_launch(c, p.m, p.n, p.k, limits, s.plan).empty();
  }
  if (!h) return false;
  std::string_view id = e.kind == detail::gemm_kind::cublaslt ? e.lt_id : "";
  bool pack = id.size() > pack_suffix.size() && id.substr(id.size() - pack_suffix.size()) == pack_suffix;
  if (pack) id.remove_suffix(pack_suffix.size());
  if (pack && !exact && leading_dims_aligned(p)) pack = false;
  // Packed, cuBLASLt sees K rounded up to 8 and dense, aligned rows (pack.hpp).
  kg::pack_plan shape;
  if (pack) kg::plan_pack(p.b == kg::b_layout::col, p.m, p.n, p.k, 0, shape);
  const int kp = pack ? shape.k : p.k;
  const long long lda = pack ? shape.k : p.lda;
  const long long ldb = pack ? shape.ldb : p.ldb;
  auto lt = std::make_shared<bk::lt_gemm>();
  const bk::lt_problem lp{p.in, p.out, p.b, p.m, p.n, kp, lda, ldb, p.ldc, p.ldd};
  if (lt->init(lp, nullptr) != CUBLAS_STATUS_SUCCESS) return false;
  s.lt = std::move(lt);
  const auto finish = [&](bool ok) {
    if (ok && pack) s.pack_end = kg::plan_pack(p.b == kg::b_layout::col, p.m, p.n, p.k, s.lt_workspace, s.pack);
    return ok;
  };
  if (id == "heuristic")  // the heuristic's choice measured on packed operands
    return finish(heuristic_choice(h, s, exact && e.source == detail::entry_source::tuned) == status::success);
  if (e.kind == detail::gemm_kind::cublaslt) {
    bk::lt_config c;
    std::string why;
    const bool parsed = bk::parse_lt_config_id(id, c, &why);
    // A neighbour's split-K reduced in the output type was verified for its shape only.
    const bool output_type_reduction =
        parsed && c.split_k > 1 && (c.reduction & (CUBLASLT_REDUCTION_SCHEME_INPLACE | CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE));
    if (parsed && (exact || !output_type_reduction) && s.lt->build(h, c, s.algo, &why, &s.lt_workspace))
      return finish(true);
    if (!exact) return false;  // a neighbour's choice: try the next one
    report_fallback(e, p, why);
    s.fell_back = true;
  }
  return finish(heuristic_choice(h, s, exact && !s.fell_back && e.source == detail::entry_source::tuned) ==
                status::success);
}

status select_uncached(const call_key& p, selection& out) {
  dispatch::device_state dev;
  int device = 0;
  if (auto st = dispatch::current_device(device, dev); st != status::success) return st;
  const int arch = dispatch::table_arch_for(generated::gemm_table, dev.cc);
  if (arch == 0) return status::no_kernel_image;
  kg::device_limits limits;
  if (auto e = kg::query_limits(device, limits); e != cudaSuccess) return to_status(e);
  cublasLtHandle_t h = lt_handle(device);

  std::vector<std::pair<double, const detail::gemm_entry*>> ranked;
  for (const auto& e : generated::gemm_table) {
    if (e.arch != arch || e.in != p.in || e.out != p.out || e.b != p.b ||
        e.source == detail::entry_source::fallback)
      continue;
    // Lower is better: exact shape on the same GPU, exact shape on the arch, then nearest shape.
    const double d = log_distance(e, p);
    const bool same_gpu = std::strcmp(e.gpu, dev.name) == 0;
    ranked.emplace_back((d == 0 ? 0.0 : 10.0 + d) + (same_gpu ? 0.0 : 0.5), &e);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [rank, e] : ranked)
    if (try_entry(*e, p, limits, h, out)) return status::success;
  for (const auto& e : generated::gemm_table)
    if (e.arch == arch && e.in == p.in && e.out == p.out && e.b == p.b &&
        e.source == detail::entry_source::fallback && try_entry(e, p, limits, h, out))
      return status::success;
  return status::unsupported;
}

// The choice depends only on the device and the call's types, layout, shape and leading
// dimensions.
status select(const call_key& p, selection& out) { return dispatch::cached_choice(p, out, select_uncached); }

bool resolve(const gemm_problem& p, call_key& key) {
  if (p.m < 0 || p.n < 0 || p.k < 0) return false;  // k == 0 is refused by gemm()
  if (p.in != dtype::f16 && p.in != dtype::bf16) return false;
  if (p.out != dtype::f32 && p.out != p.in) return false;
  if (cudaGetDevice(&key.device) != cudaSuccess) return false;
  key.in = p.in;
  key.out = p.out;
  key.b = p.b;
  key.m = p.m;
  key.n = p.n;
  key.k = p.k;
  key.lda = p.lda ? p.lda : p.k;
  key.ldb = p.ldb ? p.ldb : (p.b == kg::b_layout::col ? p.k : p.n);
  key.ldc = p.ldc ? p.ldc : p.n;
  key.ldd = p.ldd ? p.ldd : p.n;
  return key.lda >= p.k && key.ldb >= (p.b == kg::b_layout::col ? p.k : p.n) && key.ldc >= p.n &&
         key.ldd >= p.n;
}

const char* kind_name(detail::gemm_kind k) {
  switch (k) {
    case detail::gemm_kind::kernel: return "kernel";
    case detail::gemm_kind::cublaslt: return "cublaslt";
    case detail::gemm_kind::cublaslt_heuristic: return "cublaslt-heuristic";
  }
  return "?";
}

}  // namespace

status gemm(const gemm_problem& p, const void* a, const void* b, const void* c, void* d,
            cudaStream_t stream) {
  call_key key{};
  if (!resolve(p, key) || !d || (p.beta != 0.f && !c)) return status::invalid_argument;
  if (p.m == 0 || p.n == 0) return status::success;
  if (p.k == 0 || !a || !b) return status::invalid_argument;
  selection sel;
  if (auto s = select(key, sel); s != status::success) return s;
  if (sel.entry->kind == detail::gemm_kind::kernel) {
    void* workspace = nullptr;
    if (sel.plan.workspace_bytes > 0)
      if (auto s = dispatch::buffer_for(sel.plan.workspace_bytes, stream,
                                        dispatch::buffer_purpose::self_resetting, workspace);
          s != status::success)
        return s;
    const kg::gemm_args args{a, b, c, d, p.m, p.n, p.k, key.lda, key.ldb, key.ldc, key.ldd,
                             p.alpha, p.beta, workspace};
    return to_status(kg::launch(generated::gemm_kernels[sel.entry->kernel], sel.plan, args, stream));
  }
  void* workspace = nullptr;
  const std::size_t scratch = sel.pack.on ? sel.pack_end : sel.lt_workspace;
  if (scratch > 0)
    if (auto s = dispatch::buffer_for(scratch, stream, dispatch::buffer_purpose::scratch, workspace);
        s != status::success)
      return s;
  const void* lt_a = a;
  const void* lt_b = b;
  if (sel.pack.on) {
    const kg::gemm_args src{a, b, c, d, p.m, p.n, p.k, key.lda, key.ldb, key.ldc, key.ldd,
                            p.alpha, p.beta, workspace};
    kg::gemm_args packed;
    if (const cudaError_t e = kg::pack_operands(sel.pack, src, packed, stream); e != cudaSuccess)
      return to_status(e);
    lt_a = packed.a;
    lt_b = packed.b;
  }
  const auto r = sel.lt->run(lt_handle(key.device), sel.algo, lt_a, lt_b, c, d, p.alpha, p.beta, workspace,
                             sel.lt_workspace, stream);
  if (r == CUBLAS_STATUS_SUCCESS) return status::success;
  if (r == CUBLAS_STATUS_NOT_SUPPORTED || r == CUBLAS_STATUS_INVALID_VALUE) return status::unsupported;
  return status::cuda_error;
}

status gemm_which(const gemm_problem& p, gemm_choice& out) {
  call_key key{};
  if (!resolve(p, key)) return status::invalid_argument;
  selection sel;
  if (auto s = select(key, sel); s != status::success) return s;
  const auto& e = *sel.entry;
  out.instance = e.instance;
  out.kind = sel.fell_back ? "cublaslt-heuristic" : kind_name(e.kind);
  out.source = detail::name_of(e.source);
  out.gpu = e.gpu;
  out.exact_shape = e.m == p.m && e.n == p.n && e.k == p.k;
  out.fell_back = sel.fell_back;
  out.tuned_m = e.m;
  out.tuned_n = e.n;
  out.tuned_k = e.k;
  out.table_arch = e.arch;
  return status::success;
}

}  // namespace cuop
