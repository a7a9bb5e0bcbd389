// The cuBLASLt back end of GEMM: the heuristic's choices, the whole configuration space of the
// installed cuBLASLt for one problem, and running one configuration rebuilt from its identifier
// (cublaslt.hpp). Errors are data: every call returns a status and, where asked, a message; none
// throws.
//
// Problem convention (as our kernels, kernels/gemm/args.cuh): D = alpha * A * B + beta * C with
// A row-major m x k (lda), B row-major k x n (B[k * ldb + n]) or column-major (B[n * ldb + k]),
// C and D row-major m x n (ldc, ldd), inputs f16 or bf16, output f32 or the input type, f32
// accumulation (CUBLAS_COMPUTE_32F) and f32 alpha and beta (host pointer mode).
//
// Mapping onto cuBLASLt: the transposed problem in column-major order, D^T = B^T * A^T, with
// every layout CUBLASLT_ORDER_COL. A row-major matrix read as column-major is its transpose, so no
// data moves: cuBLASLt's "A" is our B (n x k after its op: CUBLAS_OP_N for row-major B, stored
// n x k with ld ldb; CUBLAS_OP_T for column-major B, stored k x n with ld ldb), cuBLASLt's "B" is
// our A (stored k x m with ld lda, CUBLAS_OP_N), C and D are stored n x m with ld ldc and ldd.
// Column-major B ("weights stored n x k") becomes the "TN" GEMM. Why not CUBLASLT_ORDER_ROW
// layouts: column order is cuBLASLt's canonical form, the one its documentation and every type
// combination (FP8 needs TN column-major, for one) support, while ORDER_ROW support has varied
// between algorithms and releases. Measured on an H200 with cuBLASLt 13.1 for bf16 problems, the
// two accept exactly the same (algorithm, tile, stages, cluster) sets and the heuristic returns
// the same algorithms, so the choice costs nothing where ORDER_ROW works and is safe where not.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuop/backends/cublaslt.hpp"
#include "cuop/dtype.hpp"
#include "cuop/kernels/gemm/family.hpp"

namespace cuop::backends {

struct lt_problem {
  dtype in = dtype::bf16;  // A and B: f16 or bf16
  dtype out = dtype::f32;  // C and D: f32 or `in`
  kernels::gemm::b_layout b = kernels::gemm::b_layout::col;
  int m = 0, n = 0, k = 0;  // >= 1
  long long lda = 0;        // >= k
  long long ldb = 0;        // >= n (row-major B) or >= k (column-major B)
  long long ldc = 0;        // >= n
  long long ldd = 0;        // >= n
};

// How far the pointers of the calls that will run an lt_gemm are aligned, in bytes (powers of
// two), named after our operands. cuBLASLt assumes 256 (cudaMalloc's) unless told: an algorithm it
// picks or accepts for such pointers may fault on less aligned ones (views into a tensor). With
// less, heuristic() asks only for algorithms that take them (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*)
// and build() refuses a configuration whose algorithm needs more (CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_*).
struct lt_alignment {
  std::uint32_t a = 256, b = 256, c = 256, d = 256;
};

// Empty when the problem is well formed, else why not (e.g. "lda 100 < k 128").
std::string check_problem(const lt_problem& p);

// "bf16->f32 m=127 n=1031 k=4093 b=col": the problem in messages.
std::string describe(const lt_problem& p);

// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported)".
std::string lt_status_text(cublasStatus_t s);

// Reads every CUBLASLT_ALGO_CONFIG_* attribute of an initialized algorithm (a heuristic result or
// one build() made) into out's identity fields; workspace_bytes and waves are left as they are.
cublasStatus_t lt_config_of(const cublasLtMatmulAlgo_t& algo, lt_config& out, std::string* why);

// What one algorithm of the problem's type combination offers (CUBLASLT_ALGO_CAP_*). Alignments
// are named after our operands (cuBLASLt's A is our B and its B our A).
struct lt_caps {
  std::vector<std::uint32_t> tiles;   // TILE_IDS; empty: only tile 0 (undefined)
  std::vector<std::uint32_t> stages;  // STAGES_IDS; empty: only stages 0 (undefined)
  bool split_k = false;               // SPLITK_SUPPORT
  std::uint32_t reduction_mask = 0;   // REDUCTION_SCHEME_MASK (cublasLtReductionScheme_t bits)
  std::uint32_t swizzle_max = 0;      // CTA_SWIZZLING_SUPPORT: swizzle 0..this
  std::uint32_t custom_max = 0;       // CUSTOM_OPTION_MAX: custom option 0..this
  bool out_of_place = true;           // OUT_OF_PLACE_RESULT_SUPPORT (D != C)
  std::uint32_t align_a = 0, align_b = 0, align_c = 0, align_d = 0;  // MIN_ALIGNMENT_*_BYTES
};

// How enumerate() builds the space. The defaults are what a sweep wants.
struct lt_enumerate_options {
  // The heuristic's first answers lead the list (they count against the budget), so the space
  // always holds the library's own choices, including inner and cluster shapes it picked.
  int heuristic_seeds = 8;
  // Split-K counts tried besides "no split" on algorithms with SPLITK_SUPPORT, each with every
  // reduction scheme of the algorithm's mask; a count s only when k >= s * min_k_per_split.
  std::vector<int> split_k{2, 4, 8, 16};
  int min_k_per_split = 32;
  // Explicit cluster shapes (every cublasLtClusterShape_t value besides auto) are probed only
  // when the device launches thread block clusters (sm_90 and later).
  bool cluster_shapes = true;
  // Upper bound on cublasLtMatmulAlgoCheck calls of one enumeration: several times what one bf16
  // problem takes (most of them for clusters), so it stops only a runaway enumeration.
  long long max_checks = 2'000'000;
};

struct lt_enumerate_stats {
  int algorithms = 0;       // ids cublasLtMatmulAlgoGetIds listed
  int algorithms_used = 0;  // of those, initialized and offering at least one valid config
  int seeds = 0;            // configurations that came from the heuristic
  long long valid = 0;      // configurations found valid (AlgoCheck) before the budget cut
  long long checks = 0;     // cublasLtMatmulAlgoCheck calls
  long long over_workspace = 0;
  bool complete = false;  // every candidate was considered: the budget did not cut
  bool check_limit_hit = false;
};

// One problem's cuBLASLt descriptors (matmul descriptor and the four matrix layouts), created once
// by init() and only read by the const members, which take the cuBLASLt handle (created by the
// caller with cublasLtCreate, one per thread and device) as an argument. Move-only.
class lt_gemm {
 public:
  lt_gemm() = default;
  ~lt_gemm();
  lt_gemm(const lt_gemm&) = delete;
  lt_gemm& operator=(const lt_gemm&) = delete;
  lt_gemm(lt_gemm&& other) noexcept;
  lt_gemm& operator=(lt_gemm&& other) noexcept;

  // Creates the descriptors (no GPU work). CUBLAS_STATUS_INVALID_VALUE for a malformed problem.
  cublasStatus_t init(const lt_problem& p, std::string* why);
  bool ready() const noexcept { return m_desc != nullptr; }
  const lt_problem& problem() const noexcept { return m_problem; }

  // The pointers' alignment the later heuristic(), enumerate() and build() calls assume (256 for
  // each until set); run() does not check it.
  void set_alignment(const lt_alignment& a) noexcept { m_align = a; }
  const lt_alignment& alignment() const noexcept { return m_align; }

  // cublasLtMatmulAlgoGetHeuristic's answers, at most top_n, in its order (index 0 is the
  // heuristic's first choice, the reference a sweep measures), each needing at most
  // workspace_limit bytes of workspace; duplicates are dropped. `algos`, when given, receives
  // the heuristic's own algorithm structures, parallel to `out`. compute_type_reductions: only
  // answers whose split-K partials (if any) are reduced in the compute type, never in the output
  // type (for choices nobody verified: a 16-bit reduction fails the tolerance, e.g. 4097^3).
  cublasStatus_t heuristic(cublasLtHandle_t handle, int top_n, std::size_t workspace_limit, std::vector<lt_config>& out,
                           std::string* why, std::vector<cublasLtMatmulAlgo_t>* algos = nullptr,
                           bool compute_type_reductions = false) const;

  // The whole space, at most `budget` configurations, each valid (cublasLtMatmulAlgoCheck) and
  // within workspace_limit, distinct. How it is built and cut:
  //  1. the heuristic's first opts.heuristic_seeds answers, in its order;
  //  2. for every id of cublasLtMatmulAlgoGetIds (ascending) that cublasLtMatmulAlgoInit accepts
  //     and that writes D out of place, the cores: every (tile, stages) of its capabilities with
  //     the auto cluster shape and, when the device launches clusters (opts.cluster_shapes), with
  //     every explicit cublasLtClusterShape_t, each checked with the other attributes at their
  //     defaults. Kernels that do not use clusters accept every explicit shape and ignore it:
  //     such a pair keeps one core (auto, or 1x1x1 when auto is refused) rather than 50 names for
  //     one kernel; sm_90 kernels (algorithm 66) accept a few shapes and refuse auto. Each valid
  //     core (an invalid one is not combined further) is combined with the split-K counts x
  //     reduction schemes, swizzles and custom options of the capabilities. Inner shape stays 0
  //     (undefined: the library picks): cuBLASLt 13 has no capability listing inner shapes; the
  //     heuristic seeds carry the ones it chooses.
  //  3. the cut: each algorithm's candidates are ordered by a fixed hash of their identity (a
  //     deterministic shuffle: a cut keeps a spread over tiles, stages, split-K, ... rather than
  //     the first tiles' every variant), then the algorithms are visited round-robin in
  //     ascending id order, each visit taking that algorithm's next candidate that passes
  //     cublasLtMatmulAlgoCheck and the workspace limit, until `budget` configurations are
  //     taken or every algorithm is exhausted. Every algorithm with a valid configuration is
  //     thus represented once the budget is at least the number of such algorithms (plus the
  //     seeds). Same cuBLASLt, device, problem and options: same list.
  // Explicit cluster shapes need the current CUDA device (cudaDevAttrClusterLaunch).
  cublasStatus_t enumerate(cublasLtHandle_t handle, std::size_t workspace_limit, int budget,
                           std::vector<lt_config>& out, std::string* why, const lt_enumerate_options& opts = {},
                           lt_enumerate_stats* stats = nullptr) const;

  // The capabilities of algorithm `algo_id` for this problem's types.
  cublasStatus_t capabilities(cublasLtHandle_t handle, int algo_id, lt_caps& out, std::string* why) const;

  // Rebuilds the algorithm an identifier names: cublasLtMatmulAlgoInit, every attribute set and
  // read back, cublasLtMatmulAlgoCheck for this problem. False, with the reason, when the
  // installed cuBLASLt does not know the algorithm, a value is outside its capabilities, or the
  // check rejects it. *workspace_bytes (when given) receives the workspace it needs.
  bool build(cublasLtHandle_t handle, const lt_config& c, cublasLtMatmulAlgo_t& out, std::string* why,
             std::size_t* workspace_bytes = nullptr) const;

  // D = alpha * A * B + beta * C on `stream` with `algo` (from build() or heuristic()). `c` may
  // be null when beta == 0 (D is then passed as C, with D's layout). The workspace must hold
  // what build() reported. Device pointers aligned to 256 bytes are safe; less aligned ones may
  // be refused by algorithms that need more (CUBLAS_STATUS_NOT_SUPPORTED or INVALID_VALUE).
  cublasStatus_t run(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t& algo, const void* a, const void* b,
                     const void* c, void* d, float alpha, float beta, void* workspace, std::size_t workspace_bytes,
                     cudaStream_t stream) const;

 private:
  void reset() noexcept;
  cublasStatus_t init_algo(cublasLtHandle_t handle, int algo_id, cublasLtMatmulAlgo_t& algo) const;
  cublasStatus_t check(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t& algo,
                       cublasLtMatmulHeuristicResult_t& result) const;

  lt_problem m_problem;
  lt_alignment m_align;
  cublasLtMatmulDesc_t m_desc = nullptr;
  cublasLtMatrixLayout_t m_layout_b = nullptr;  // our B: cuBLASLt's A
  cublasLtMatrixLayout_t m_layout_a = nullptr;  // our A: cuBLASLt's B
  cublasLtMatrixLayout_t m_layout_c = nullptr;
  cublasLtMatrixLayout_t m_layout_d = nullptr;
};

}  // namespace cuop::backends
