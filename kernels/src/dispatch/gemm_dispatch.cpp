// Picks a GEMM choice from the emitted table (our kernel, a cuBLASLt configuration rebuilt from
// its identifier, or cuBLASLt's heuristic) and runs it.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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

#include "cuop/backends/cublaslt_backend.hpp"
#include "cuop/detail/memory_ranges.hpp"
#include "cuop/gemm.hpp"
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
// Created with the capture mode relaxed: a thread's first GEMM may be inside a capture.
cublasLtHandle_t lt_handle(int device) {
  thread_local std::map<int, cublasLtHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasLtHandle_t h = nullptr;
  {
    dispatch::relaxed_capture_scope relaxed;
    if (cublasLtCreate(&h) != CUBLAS_STATUS_SUCCESS) h = nullptr;
  }
  handles.emplace(device, h);
  return h;
}

// The full problem a choice is made for (leading dimensions resolved), and how far the call's
// pointers are aligned (powers of two up to 256, cudaMalloc's): a cuBLASLt algorithm chosen for
// 256-byte aligned operands may fault on a view 2 bytes off, so the alignment is part of the key.
struct call_key {
  int device;
  dtype in, out;
  kg::b_layout b;
  int m, n, k;
  long long lda, ldb, ldc, ldd;
  std::uint32_t align_a = 256, align_b = 256, align_c = 256, align_d = 256;
  choice_policy policy = choice_policy::tuned;
  auto tie() const {
    return std::tie(device, in, out, b, m, n, k, lda, ldb, ldc, ldd, align_a, align_b, align_c, align_d, policy);
  }
  bool operator<(const call_key& o) const { return tie() < o.tie(); }
};

struct selection {
  const detail::gemm_entry* entry = nullptr;
  kg::launch_plan plan;             // kernel
  std::shared_ptr<bk::lt_gemm> lt;  // cublaslt and heuristic
  cublasLtMatmulAlgo_t algo{};
  std::size_t lt_workspace = 0;
  kg::pack_plan pack;    // cublaslt on packed operands: regions after lt_workspace
  kg::stage_plan stage;  // cublaslt writing D to aligned rows: after those
  std::size_t scratch_end = 0;
  bool fell_back = false;
  bool exact = false;  // chosen at one of the model's tuned shapes: this one
};

// Configurations measured on packed operands end their identifier (and instance) with "_pk1";
// on aligned copies of every misaligned operand and output, with "_pk2" (library.cpp, pack.hpp).
int pack_level_of(std::string_view& id) {
  for (const int level : {1, 2}) {
    const std::string suffix = "_pk" + std::to_string(level);
    if (id.size() > suffix.size() && id.substr(id.size() - suffix.size()) == suffix) {
      id.remove_suffix(suffix.size());
      return level;
    }
  }
  return 0;
}

// Rows of A and B already allow 16-byte copies (pointers aside): a neighbour's packing choice
// would only add a copy.
bool leading_dims_aligned(const call_key& p) { return p.k % 8 == 0 && p.lda % 8 == 0 && p.ldb % 8 == 0; }

// What cuBLASLt's aligned kernels need of A and B, and of D: 16-byte aligned rows and pointers.
bool operands_aligned(const call_key& p) { return leading_dims_aligned(p) && p.align_a >= 16 && p.align_b >= 16; }
bool output_aligned(const call_key& p) {
  return !detail::rows_misaligned(p.ldd, static_cast<int>(size_of(p.out))) && p.align_d >= 16;
}

// What wgmma's tensor maps need (kg::tma_operands_ok, from the call's key): column-major B, both
// operands 16-byte aligned with rows a multiple of 8 elements apart.
bool tma_operands_ok(const call_key& p) {
  return p.b == kg::b_layout::col && p.align_a >= 16 && p.align_b >= 16 && p.lda % 8 == 0 && p.ldb % 8 == 0;
}

// Says once per table entry that the installed cuBLASLt rejects its configuration.
void report_fallback(const detail::gemm_entry& e, const call_key& p, const std::string& why) {
  static std::mutex m;
  static std::set<const detail::gemm_entry*> said;
  std::lock_guard lock(m);
  if (!said.insert(&e).second) return;
  std::fprintf(stderr, "cuop::gemm: the installed cuBLASLt rejects %s for %dx%dx%d (%s); using its heuristic\n",
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

// Prepares `e` for the call; false when it cannot run it (the next candidate is tried). `exact`:
// the model chose `e` at a shape where it was measured, this very one.
bool try_entry(const detail::gemm_entry& e, const call_key& p, const kg::device_limits& limits, cublasLtHandle_t h,
               bool exact, selection& s) {
  s = {};
  s.entry = &e;
  s.exact = exact;
  if (e.kind == detail::gemm_kind::kernel) {
    kg::gemm_config c = e.config;
    if (c.pack == 1 && !exact && leading_dims_aligned(p)) c.pack = 0;
    if (c.fam == kg::family::wgmma && !tma_operands_ok(p)) return false;
    return generated::gemm_kernels[e.kernel] && kg::plan_launch(c, p.m, p.n, p.k, limits, s.plan).empty();
  }
  if (!h) return false;
  std::string_view id = e.kind == detail::gemm_kind::cublaslt ? e.lt_id : "";
  const int level = pack_level_of(id);
  bool pack = level == 1 && (exact || !leading_dims_aligned(p));
  bool stage = false;
  if (level == 2) {  // only what is misaligned; with nothing, this is the heuristic itself
    stage = !output_aligned(p);
    pack = stage || !operands_aligned(p);  // staged, N is padded: B gains zero rows
    if (!pack) return false;
  }
  // Packed, cuBLASLt sees K rounded up to 8 and dense, aligned rows (pack.hpp); staged, N
  // rounded up to 8 too, and D (and C) in aligned rows.
  kg::pack_plan shape;
  if (pack) kg::plan_pack(p.b == kg::b_layout::col, p.m, p.n, p.k, 0, shape, stage);
  kg::stage_plan staged;
  const int np = pack ? shape.n : p.n;
  if (stage) kg::plan_stage(p.m, np, static_cast<int>(size_of(p.out)), 0, staged);
  const int kp = pack ? shape.k : p.k;
  const long long lda = pack ? shape.k : p.lda;
  const long long ldb = pack ? shape.ldb : p.ldb;
  auto lt = std::make_shared<bk::lt_gemm>();
  const bk::lt_problem lp{
      p.in, p.out, p.b, p.m, np, kp, lda, ldb, stage ? staged.ld : p.ldc, stage ? staged.ld : p.ldd};
  if (lt->init(lp, nullptr) != CUBLAS_STATUS_SUCCESS) return false;
  // Packed operands and the staged output sit in the library's 256-byte aligned workspace.
  lt->set_alignment(
      {pack ? 256u : p.align_a, pack ? 256u : p.align_b, stage ? 256u : p.align_c, stage ? 256u : p.align_d});
  s.lt = std::move(lt);
  const auto finish = [&](bool ok) {
    if (!ok) return false;
    s.scratch_end = s.lt_workspace;
    if (pack) s.scratch_end = kg::plan_pack(p.b == kg::b_layout::col, p.m, p.n, p.k, s.scratch_end, s.pack, stage);
    if (stage) s.scratch_end = kg::plan_stage(p.m, np, static_cast<int>(size_of(p.out)), s.scratch_end, s.stage);
    return true;
  };
  // The heuristic's choice measured on packed operands; on aligned copies (level 2) always with
  // split-K partials reduced in the compute type, as the sweep measured it (library.cpp).
  if (id == "heuristic")
    return finish(heuristic_choice(h, s, level != 2 && exact && e.source == detail::entry_source::tuned) ==
                  status::success);
  if (e.kind == detail::gemm_kind::cublaslt) {
    bk::lt_config c;
    std::string why;
    const bool parsed = bk::parse_lt_config_id(id, c, &why);
    // A neighbour's split-K reduced in the output type was verified for its shape only.
    const bool output_type_reduction =
        parsed && c.split_k > 1 &&
        (c.reduction & (CUBLASLT_REDUCTION_SCHEME_INPLACE | CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE));
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
  const int arch = dispatch::table_arch_for(generated::gemm_table, dev.cc, generated::gemm_arch_specific);
  if (arch == 0) return status::no_kernel_image;
  kg::device_limits limits;
  if (auto e = kg::query_limits(device, limits); e != cudaSuccess) return to_status(e);
  cublasLtHandle_t h = lt_handle(device);

  const int in_bytes = static_cast<int>(size_of(p.in));
  const bool operands_misaligned = detail::rows_misaligned(p.lda, in_bytes) || detail::rows_misaligned(p.ldb, in_bytes);
  const bool output_misaligned = detail::rows_misaligned(p.ldd, static_cast<int>(size_of(p.out)));
  const auto* model = dispatch::model_for(generated::gemm_models, generated::gemm_model_count, arch, dev.name,
                                          [&](const detail::gemm_model& m) {
                                            return m.in == p.in && m.out == p.out && m.b == p.b &&
                                                   m.misaligned == (operands_misaligned || output_misaligned);
                                          });
  if (model && p.policy == choice_policy::tuned) {
    double query[detail::gemm_feature_count];
    detail::gemm_features(p.m, p.n, p.k, operands_misaligned, output_misaligned, query);
    const int* columns = generated::gemm_model_columns + model->m.first_column;
    const auto view = detail::view_of(model->m, detail::gemm_feature_count, generated::gemm_model_features,
                                      generated::gemm_model_speedups, generated::gemm_model_trusted);
    bool at_anchor = false;
    const auto usable = [&](int c) {
      return try_entry(generated::gemm_table[columns[c]], p, limits, h, at_anchor, out);
    };
    // try_entry fills `out`: the winner is prepared again, since later candidates were tried.
    if (const int c = detail::nearest_choice(view, query, usable, -1, &at_anchor); c >= 0 && usable(c))
      return status::success;
  }
  for (const auto& e : generated::gemm_table)
    if (e.arch == arch && e.in == p.in && e.out == p.out && e.b == p.b && e.source == detail::entry_source::fallback &&
        try_entry(e, p, limits, h, false, out))
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
  if (p.b != kg::b_layout::col && p.b != kg::b_layout::row) return false;
  if (p.policy != choice_policy::tuned && p.policy != choice_policy::baseline) return false;
  key.policy = p.policy;
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
  return key.lda >= p.k && key.ldb >= (p.b == kg::b_layout::col ? p.k : p.n) && key.ldc >= p.n && key.ldd >= p.n;
}

const char* kind_name(detail::gemm_kind k) {
  switch (k) {
    case detail::gemm_kind::kernel: return "kernel";
    case detail::gemm_kind::cublaslt: return "cublaslt";
    case detail::gemm_kind::cublaslt_heuristic: return "cublaslt-heuristic";
  }
  return "?";
}

// The operands as memory, before anything is looked up or enqueued: A m x k (lda), B n x k (ldb,
// column-major) or k x n (row-major), C and D m x n (ldc, ldd). Each pointer aligned to its
// element type (the kernels read single elements at least), each span within the kernels' 64-bit
// offsets, D apart from A and B, and from C unless C is D with D's leading dimension (in place:
// each element of C is read by the thread that then writes it). Fills the key's alignments.
status check_operands(const gemm_problem& p, const void* a, const void* b, const void* c, const void* d,
                      call_key& key) {
  const std::size_t in = size_of(p.in), out = size_of(p.out);
  const bool col = p.b == kg::b_layout::col;
  detail::strided_range ra, rb, rd;
  if (!detail::make_range(a, p.m, p.k, key.lda, in, ra) ||
      !detail::make_range(b, col ? p.n : p.k, col ? p.k : p.n, key.ldb, in, rb) ||
      !detail::make_range(d, p.m, p.n, key.ldd, out, rd))
    return status::invalid_argument;
  key.align_a = detail::alignment_of(a);
  key.align_b = detail::alignment_of(b);
  key.align_d = key.align_c = detail::alignment_of(d);
  if (key.align_a < in || key.align_b < in || key.align_d < out) return status::invalid_argument;
  if (detail::overlaps(rd, ra) || detail::overlaps(rd, rb)) return status::invalid_argument;
  if (p.beta != 0.f) {  // else C is not read
    detail::strided_range rc;
    if (!detail::make_range(c, p.m, p.n, key.ldc, out, rc)) return status::invalid_argument;
    key.align_c = detail::alignment_of(c);
    if (key.align_c < out) return status::invalid_argument;
    if (!(c == d && key.ldc == key.ldd) && detail::overlaps(rc, rd)) return status::invalid_argument;
  }
  return status::success;
}

}  // namespace

status gemm(const gemm_problem& p, const void* a, const void* b, const void* c, void* d, cudaStream_t stream) {
  call_key key{};
  if (!resolve(p, key) || !d || (p.beta != 0.f && !c)) return status::invalid_argument;
  if (p.m == 0 || p.n == 0) return status::success;
  if (p.k == 0 || !a || !b) return status::invalid_argument;
  if (auto s = check_operands(p, a, b, c, d, key); s != status::success) return s;
  dispatch::stream_info si;
  if (auto s = dispatch::inspect_stream(stream, si); s != status::success) return s;
  selection sel;
  if (auto s = select(key, sel); s != status::success) return s;
  dispatch::call_buffers buffers(si);
  if (sel.entry->kind == detail::gemm_kind::kernel) {
    // Split-K partials and counters (zeroed at every replay under capture), packed operands.
    void* workspace = nullptr;
    if (sel.plan.workspace_bytes > 0)
      if (auto s = buffers.get(dispatch::buffer_purpose::gemm_split, sel.plan.workspace_bytes, sel.plan.zeroed_bytes,
                               workspace);
          s != status::success)
        return s;
    const kg::gemm_args args{a, b, c, d, p.m, p.n, p.k, key.lda, key.ldb, key.ldc, key.ldd, p.alpha, p.beta, workspace};
    return buffers.finish(
        to_status(kg::launch(sel.entry->config, generated::gemm_kernels[sel.entry->kernel], sel.plan, args, stream)));
  }
  const cublasLtHandle_t handle = lt_handle(key.device);
  if (!handle) return status::cuda_error;
  void* workspace = nullptr;
  if (sel.scratch_end > 0)
    if (auto s = buffers.get(dispatch::buffer_purpose::scratch, sel.scratch_end, 0, workspace); s != status::success)
      return s;
  const void* lt_a = a;
  const void* lt_b = b;
  if (sel.pack.on) {
    const kg::gemm_args src{a, b, c, d, p.m, p.n, p.k, key.lda, key.ldb, key.ldc, key.ldd, p.alpha, p.beta, workspace};
    kg::gemm_args packed;
    if (const cudaError_t e = kg::pack_operands(sel.pack, src, packed, stream); e != cudaSuccess)
      return buffers.finish(to_status(e));
    lt_a = packed.a;
    lt_b = packed.b;
  }
  // C only where it is read: with beta 0, D stands in for it (its layout, its alignment). Staged,
  // cuBLASLt reads C from and writes D to the aligned rows.
  const void* lt_c = p.beta != 0.f ? c : nullptr;
  void* lt_d = d;
  if (sel.stage.on) {
    lt_d = kg::staged_rows(sel.stage, workspace);
    if (p.beta != 0.f) {
      if (const cudaError_t e = kg::stage_in(sel.stage, c, key.ldc, p.m, p.n, workspace, stream); e != cudaSuccess)
        return buffers.finish(to_status(e));
      lt_c = lt_d;
    }
  }
  const auto r =
      sel.lt->run(handle, sel.algo, lt_a, lt_b, lt_c, lt_d, p.alpha, p.beta, workspace, sel.lt_workspace, stream);
  status st = status::cuda_error;
  if (r == CUBLAS_STATUS_SUCCESS && sel.stage.on)
    st = to_status(kg::stage_out(sel.stage, workspace, d, key.ldd, p.m, p.n, stream));
  else if (r == CUBLAS_STATUS_SUCCESS) st = status::success;
  else if (r == CUBLAS_STATUS_NOT_SUPPORTED || r == CUBLAS_STATUS_INVALID_VALUE) st = status::unsupported;
  return buffers.finish(st);
}

status gemm_which(const gemm_problem& p, gemm_choice& out) {
  call_key key{};
  if (!resolve(p, key) || p.m < 1 || p.n < 1 || p.k < 1) return status::invalid_argument;
  selection sel;
  if (auto s = select(key, sel); s != status::success) return s;
  const auto& e = *sel.entry;
  dispatch::describe_kind_choice(e, sel.fell_back ? "cublaslt-heuristic" : kind_name(e.kind), sel.exact, sel.fell_back,
                                 out);
  out.tuned_m = e.m;
  out.tuned_n = e.n;
  out.tuned_k = e.k;
  return status::success;
}

}  // namespace cuop
