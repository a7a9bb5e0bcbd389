// The cuBLASLt back end: descriptors, attributes, the heuristic, build and run (the enumeration of
// the whole space is enumerate.cpp).
#include "cuop/backends/cublaslt_backend.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "lt_internal.hpp"

namespace cuop::backends {

namespace lt_internal {

cudaDataType_t cuda_type(dtype t) {
  switch (t) {
    case dtype::f32: return CUDA_R_32F;
    case dtype::f16: return CUDA_R_16F;
    case dtype::bf16: return CUDA_R_16BF;
  }
  return CUDA_R_32F;
}

cublasStatus_t fail(std::string* why, cublasStatus_t s, std::string message) {
  if (why != nullptr) *why = std::move(message);
  return s;
}

}  // namespace lt_internal

namespace {

using kernels::gemm::b_layout;
using lt_internal::compute_type;
using lt_internal::cuda_type;
using lt_internal::fail;
using lt_internal::scale_type;

std::string join(const std::vector<std::uint32_t>& v) {
  std::string out;
  for (const auto x : v) {
    if (!out.empty()) out += ", ";
    out += std::to_string(x);
  }
  return out.empty() ? "none" : out;
}

// Typed access to one attribute: the size must be the attribute's own, or cuBLASLt refuses.
template <class T>
cublasStatus_t get_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr, T& value) {
  std::size_t written = 0;
  const cublasStatus_t s = cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof(T), &written);
  if (s == CUBLAS_STATUS_SUCCESS && written != sizeof(T)) return CUBLAS_STATUS_INTERNAL_ERROR;
  return s;
}

template <class T>
cublasStatus_t set_config(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr, const T& value) {
  return cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, &value, sizeof(T));
}

template <class T>
cublasStatus_t get_cap(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr, T& value) {
  std::size_t written = 0;
  return cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &value, sizeof(T), &written);
}

cublasStatus_t get_cap_list(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr,
                            std::vector<std::uint32_t>& out) {
  out.clear();
  std::size_t needed = 0;
  cublasStatus_t s = cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &needed);
  if (s != CUBLAS_STATUS_SUCCESS || needed == 0) return s;
  out.resize(needed / sizeof(std::uint32_t));
  std::size_t written = 0;
  s = cublasLtMatmulAlgoCapGetAttribute(&algo, attr, out.data(), out.size() * sizeof(std::uint32_t), &written);
  out.resize(s == CUBLAS_STATUS_SUCCESS ? written / sizeof(std::uint32_t) : 0);
  return s;
}

}  // namespace

cublasStatus_t lt_internal::set_identity(cublasLtMatmulAlgo_t& algo, const lt_config& c, const char*& refused) {
  struct step {
    const char* name;
    cublasStatus_t status;
  };
  const step steps[] = {
      {"tile", set_config(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, c.tile)},
      {"stages", set_config(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, c.stages)},
      {"split-K", set_config(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, c.split_k)},
      {"reduction scheme", set_config(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, c.reduction)},
      {"CTA swizzling", set_config(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, c.swizzle)},
      {"custom option", set_config(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, c.custom)},
      {"inner shape", set_config(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, c.inner_shape)},
      {"cluster shape", set_config(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, c.cluster_shape)},
  };
  for (const auto& st : steps)
    if (st.status != CUBLAS_STATUS_SUCCESS) {
      refused = st.name;
      return st.status;
    }
  return CUBLAS_STATUS_SUCCESS;
}

namespace {

// Why `c` lies outside the algorithm's capabilities; empty if it does not. Only clear-cut cases:
// the library's defaults (0, split-K 1) always pass and are left to cublasLtMatmulAlgoCheck.
std::string outside_caps(const lt_config& c, const lt_caps& caps) {
  const std::string algo = "algorithm " + std::to_string(c.algo_id);
  const auto listed = [](const std::vector<std::uint32_t>& v, std::uint32_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (c.tile != 0 && !listed(caps.tiles, c.tile))
    return "tile " + std::to_string(c.tile) + " is not one " + algo + " supports (tiles: " + join(caps.tiles) + ")";
  if (c.stages != 0 && !listed(caps.stages, c.stages))
    return "stages " + std::to_string(c.stages) + " is not one " + algo + " supports (stages: " + join(caps.stages) +
           ")";
  if (c.split_k > 1 && !caps.split_k)
    return "split-K " + std::to_string(c.split_k) + " but " + algo + " does not split K";
  if (c.split_k < 0) return "split-K " + std::to_string(c.split_k) + " is negative";
  if ((c.reduction & ~caps.reduction_mask) != 0)
    return "reduction scheme " + std::to_string(c.reduction) + " is not in the mask " +
           std::to_string(caps.reduction_mask) + " of " + algo;
  if (c.swizzle > caps.swizzle_max)
    return "CTA swizzling " + std::to_string(c.swizzle) + " but " + algo + " supports 0.." +
           std::to_string(caps.swizzle_max);
  if (c.custom > caps.custom_max)
    return "custom option " + std::to_string(c.custom) + " but " + algo + " supports 0.." +
           std::to_string(caps.custom_max);
  return {};
}

}  // namespace

cublasStatus_t lt_internal::read_caps(const cublasLtMatmulAlgo_t& algo, lt_caps& out, std::string* why) {
  lt_caps caps;
  std::int32_t split = 0, custom_max = 0, out_of_place = 1;
  cublasStatus_t s = get_cap_list(algo, CUBLASLT_ALGO_CAP_TILE_IDS, caps.tiles);
  if (s == CUBLAS_STATUS_SUCCESS) s = get_cap_list(algo, CUBLASLT_ALGO_CAP_STAGES_IDS, caps.stages);
  if (s == CUBLAS_STATUS_SUCCESS) s = get_cap(algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT, split);
  if (s == CUBLAS_STATUS_SUCCESS) s = get_cap(algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK, caps.reduction_mask);
  if (s == CUBLAS_STATUS_SUCCESS) s = get_cap(algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, caps.swizzle_max);
  if (s == CUBLAS_STATUS_SUCCESS) s = get_cap(algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, custom_max);
  if (s != CUBLAS_STATUS_SUCCESS) return fail(why, s, "cublasLtMatmulAlgoCapGetAttribute failed: " + lt_status_text(s));
  // Informational capabilities: absent from a library, they keep their permissive defaults.
  if (get_cap(algo, CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT, out_of_place) != CUBLAS_STATUS_SUCCESS)
    out_of_place = 1;
  // cuBLASLt's A is our B and its B our A.
  get_cap(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES, caps.align_b);
  get_cap(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES, caps.align_a);
  get_cap(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES, caps.align_c);
  get_cap(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES, caps.align_d);
  caps.split_k = split != 0;
  caps.custom_max = custom_max > 0 ? static_cast<std::uint32_t>(custom_max) : 0;
  caps.out_of_place = out_of_place != 0;
  out = std::move(caps);
  return CUBLAS_STATUS_SUCCESS;
}

namespace {

using lt_internal::read_caps;
using lt_internal::set_identity;

struct preference_deleter {
  void operator()(cublasLtMatmulPreferenceOpaque_t* p) const noexcept { cublasLtMatmulPreferenceDestroy(p); }
};
using preference_ptr = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, preference_deleter>;

}  // namespace

// ---------------------------------------------------------------------------------------------
// Free functions

std::string check_problem(const lt_problem& p) {
  if (p.in != dtype::f16 && p.in != dtype::bf16)
    return "input type \"" + std::string(name_of(p.in)) + "\" is not f16 or bf16";
  if (p.out != dtype::f32 && p.out != p.in)
    return "output type \"" + std::string(name_of(p.out)) + "\" is neither f32 nor the input type";
  if (p.b != b_layout::row && p.b != b_layout::col) return "unknown layout of B";
  if (p.m < 1 || p.n < 1 || p.k < 1)
    return "empty problem m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k);
  const auto too_small = [](const char* name, long long ld, const char* dim, int v) {
    return std::string(name) + " " + std::to_string(ld) + " < " + dim + " " + std::to_string(v);
  };
  if (p.lda < p.k) return too_small("lda", p.lda, "k", p.k);
  if (p.b == b_layout::row && p.ldb < p.n) return too_small("ldb", p.ldb, "n", p.n);
  if (p.b == b_layout::col && p.ldb < p.k) return too_small("ldb", p.ldb, "k", p.k);
  if (p.ldc < p.n) return too_small("ldc", p.ldc, "n", p.n);
  if (p.ldd < p.n) return too_small("ldd", p.ldd, "n", p.n);
  return {};
}

std::string describe(const lt_problem& p) {
  return std::string(name_of(p.in)) + "->" + std::string(name_of(p.out)) + " m=" + std::to_string(p.m) +
         " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) + (p.b == b_layout::col ? " b=col" : " b=row");
}

std::string lt_status_text(cublasStatus_t s) {
  const char* name = cublasLtGetStatusName(s);
  const char* text = cublasLtGetStatusString(s);
  std::string out = name != nullptr ? name : "CUBLAS_STATUS_" + std::to_string(static_cast<int>(s));
  if (text != nullptr && *text != '\0') out += std::string(" (") + text + ")";
  return out;
}

cublasStatus_t lt_config_of(const cublasLtMatmulAlgo_t& algo, lt_config& out, std::string* why) {
  lt_config c = out;
  struct step {
    const char* name;
    cublasStatus_t status;
  };
  const step steps[] = {
      {"CUBLASLT_ALGO_CONFIG_ID", get_config(algo, CUBLASLT_ALGO_CONFIG_ID, c.algo_id)},
      {"CUBLASLT_ALGO_CONFIG_TILE_ID", get_config(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, c.tile)},
      {"CUBLASLT_ALGO_CONFIG_STAGES_ID", get_config(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, c.stages)},
      {"CUBLASLT_ALGO_CONFIG_SPLITK_NUM", get_config(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, c.split_k)},
      {"CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME", get_config(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, c.reduction)},
      {"CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING", get_config(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, c.swizzle)},
      {"CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION", get_config(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, c.custom)},
      {"CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID", get_config(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, c.inner_shape)},
      {"CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID",
       get_config(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, c.cluster_shape)},
  };
  for (const auto& st : steps)
    if (st.status != CUBLAS_STATUS_SUCCESS)
      return fail(why, st.status,
                  std::string("reading ") + st.name + " of an algorithm failed: " + lt_status_text(st.status));
  out = c;
  return CUBLAS_STATUS_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// lt_gemm: descriptors

lt_gemm::~lt_gemm() { reset(); }

lt_gemm::lt_gemm(lt_gemm&& other) noexcept { *this = std::move(other); }

lt_gemm& lt_gemm::operator=(lt_gemm&& other) noexcept {
  if (this != &other) {
    reset();
    m_problem = other.m_problem;
    m_desc = std::exchange(other.m_desc, nullptr);
    m_layout_b = std::exchange(other.m_layout_b, nullptr);
    m_layout_a = std::exchange(other.m_layout_a, nullptr);
    m_layout_c = std::exchange(other.m_layout_c, nullptr);
    m_layout_d = std::exchange(other.m_layout_d, nullptr);
  }
  return *this;
}

void lt_gemm::reset() noexcept {
  for (auto* layout : {&m_layout_b, &m_layout_a, &m_layout_c, &m_layout_d}) {
    if (*layout != nullptr) cublasLtMatrixLayoutDestroy(*layout);
    *layout = nullptr;
  }
  if (m_desc != nullptr) cublasLtMatmulDescDestroy(m_desc);
  m_desc = nullptr;
}

cublasStatus_t lt_gemm::init(const lt_problem& p, std::string* why) {
  reset();
  if (std::string bad = check_problem(p); !bad.empty()) return fail(why, CUBLAS_STATUS_INVALID_VALUE, std::move(bad));
  m_problem = p;
  const cudaDataType_t in = cuda_type(p.in), out = cuda_type(p.out);
  const auto u = [](long long v) { return static_cast<std::uint64_t>(v); };
  // The transposed column-major problem: see the header.
  const cublasOperation_t op_b = p.b == b_layout::col ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = CUBLAS_OP_N;
  const std::uint64_t b_rows = p.b == b_layout::col ? u(p.k) : u(p.n);
  const std::uint64_t b_cols = p.b == b_layout::col ? u(p.n) : u(p.k);

  cublasLtMatmulDesc_t desc = nullptr;
  cublasStatus_t s = cublasLtMatmulDescCreate(&desc, compute_type, scale_type);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof(op_b));
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof(op_a));
  m_desc = desc;
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&m_layout_b, in, b_rows, b_cols, p.ldb);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&m_layout_a, in, u(p.k), u(p.m), p.lda);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&m_layout_c, out, u(p.n), u(p.m), p.ldc);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&m_layout_d, out, u(p.n), u(p.m), p.ldd);
  if (s != CUBLAS_STATUS_SUCCESS) {
    reset();
    return fail(why, s, "creating the cuBLASLt descriptors of " + describe(p) + " failed: " + lt_status_text(s));
  }
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t lt_gemm::init_algo(cublasLtHandle_t handle, int algo_id, cublasLtMatmulAlgo_t& algo) const {
  const cudaDataType_t in = cuda_type(m_problem.in), out = cuda_type(m_problem.out);
  return cublasLtMatmulAlgoInit(handle, compute_type, scale_type, in, in, out, out, algo_id, &algo);
}

cublasStatus_t lt_gemm::check(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t& algo,
                              cublasLtMatmulHeuristicResult_t& result) const {
  result = {};
  return cublasLtMatmulAlgoCheck(handle, m_desc, m_layout_b, m_layout_a, m_layout_c, m_layout_d, &algo, &result);
}

// ---------------------------------------------------------------------------------------------
// lt_gemm: the heuristic

cublasStatus_t lt_gemm::heuristic(cublasLtHandle_t handle, int top_n, std::size_t workspace_limit,
                                  std::vector<lt_config>& out, std::string* why,
                                  std::vector<cublasLtMatmulAlgo_t>* algos, bool compute_type_reductions) const {
  out.clear();
  if (algos != nullptr) algos->clear();
  if (!ready()) return fail(why, CUBLAS_STATUS_NOT_INITIALIZED, "lt_gemm used before init()");
  if (top_n < 1)
    return fail(why, CUBLAS_STATUS_INVALID_VALUE, "heuristic asked for " + std::to_string(top_n) + " answers");

  cublasLtMatmulPreference_t raw = nullptr;
  cublasStatus_t s = cublasLtMatmulPreferenceCreate(&raw);
  const preference_ptr pref(raw);
  const std::uint64_t limit = workspace_limit;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &limit, sizeof(limit));
  const std::uint32_t mask = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;  // and none (no split-K)
  if (s == CUBLAS_STATUS_SUCCESS && compute_type_reductions)
    s = cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask, sizeof(mask));
  // Only less than cuBLASLt's default is said, so that the usual call asks exactly what it did
  // before alignments were known. cuBLASLt's A is our B, its B our A.
  const lt_alignment def;
  if (s == CUBLAS_STATUS_SUCCESS &&
      (m_align.a < def.a || m_align.b < def.b || m_align.c < def.c || m_align.d < def.d)) {
    const std::pair<cublasLtMatmulPreferenceAttributes_t, std::uint32_t> alignments[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, m_align.b},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, m_align.a},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, m_align.c},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, m_align.d}};
    for (const auto& [attr, bytes] : alignments)
      if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulPreferenceSetAttribute(raw, attr, &bytes, sizeof(bytes));
  }
  if (s != CUBLAS_STATUS_SUCCESS) return fail(why, s, "creating the cuBLASLt preference failed: " + lt_status_text(s));

  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(top_n));
  int count = 0;
  s = cublasLtMatmulAlgoGetHeuristic(handle, m_desc, m_layout_b, m_layout_a, m_layout_c, m_layout_d, raw, top_n,
                                     results.data(), &count);
  if (s != CUBLAS_STATUS_SUCCESS)
    return fail(why, s, "cublasLtMatmulAlgoGetHeuristic failed for " + describe(m_problem) + ": " + lt_status_text(s));

  for (int i = 0; i < count && i < top_n; ++i) {
    const auto& r = results[static_cast<std::size_t>(i)];
    if (r.state != CUBLAS_STATUS_SUCCESS || r.workspaceSize > workspace_limit) continue;
    lt_config c;
    if (const cublasStatus_t e = lt_config_of(r.algo, c, why); e != CUBLAS_STATUS_SUCCESS) {
      out.clear();
      if (algos != nullptr) algos->clear();
      return e;
    }
    c.workspace_bytes = r.workspaceSize;
    c.waves = r.wavesCount;
    const bool seen = std::any_of(out.begin(), out.end(), [&](const lt_config& o) { return same_identity(o, c); });
    if (seen) continue;
    out.push_back(c);
    if (algos != nullptr) algos->push_back(r.algo);
  }
  if (out.empty())
    return fail(why, CUBLAS_STATUS_NOT_SUPPORTED,
                "cublasLtMatmulAlgoGetHeuristic found no algorithm for " + describe(m_problem) + " within " +
                    std::to_string(workspace_limit) + " bytes of workspace");
  return CUBLAS_STATUS_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// lt_gemm: capabilities, build, run

cublasStatus_t lt_gemm::capabilities(cublasLtHandle_t handle, int algo_id, lt_caps& out, std::string* why) const {
  if (!ready()) return fail(why, CUBLAS_STATUS_NOT_INITIALIZED, "lt_gemm used before init()");
  cublasLtMatmulAlgo_t algo{};
  if (const cublasStatus_t s = init_algo(handle, algo_id, algo); s != CUBLAS_STATUS_SUCCESS)
    return fail(why, s,
                "cuBLASLt does not offer algorithm " + std::to_string(algo_id) + " for " + describe(m_problem) + ": " +
                    lt_status_text(s));
  return read_caps(algo, out, why);
}

bool lt_gemm::build(cublasLtHandle_t handle, const lt_config& c, cublasLtMatmulAlgo_t& out, std::string* why,
                    std::size_t* workspace_bytes) const {
  const std::string id = lt_config_id(c);
  const auto reject = [&](std::string message) {
    if (why != nullptr) *why = id + ": " + std::move(message);
    return false;
  };
  if (!ready()) return reject("lt_gemm used before init()");
  cublasLtMatmulAlgo_t algo{};
  cublasStatus_t s = init_algo(handle, c.algo_id, algo);
  if (s != CUBLAS_STATUS_SUCCESS)
    return reject("cuBLASLt does not offer algorithm " + std::to_string(c.algo_id) + " for " + describe(m_problem) +
                  ": " + lt_status_text(s));
  lt_caps caps;
  std::string message;
  if (read_caps(algo, caps, &message) != CUBLAS_STATUS_SUCCESS) return reject(message);
  if (message = outside_caps(c, caps); !message.empty()) return reject(message);
  const std::pair<const char*, std::pair<std::uint32_t, std::uint32_t>> needs[] = {{"A", {caps.align_a, m_align.a}},
                                                                                   {"B", {caps.align_b, m_align.b}},
                                                                                   {"C", {caps.align_c, m_align.c}},
                                                                                   {"D", {caps.align_d, m_align.d}}};
  for (const auto& [operand, need] : needs)
    if (need.first > need.second)
      return reject(std::string("the algorithm needs ") + operand + " aligned to " + std::to_string(need.first) +
                    " bytes; the call's is aligned to " + std::to_string(need.second));
  const char* refused = "";
  if (s = set_identity(algo, c, refused); s != CUBLAS_STATUS_SUCCESS)
    return reject("cuBLASLt refused the " + std::string(refused) + " value: " + lt_status_text(s));
  // What was set must be what is read back: the identifier is the algorithm, exactly.
  lt_config back;
  if (lt_config_of(algo, back, &message) != CUBLAS_STATUS_SUCCESS) return reject(message);
  if (!same_identity(back, c)) return reject("cuBLASLt holds it as " + lt_config_id(back));
  cublasLtMatmulHeuristicResult_t result;
  if (s = check(handle, algo, result); s != CUBLAS_STATUS_SUCCESS)
    return reject("cublasLtMatmulAlgoCheck rejects it for " + describe(m_problem) + ": " + lt_status_text(s));
  out = algo;
  if (workspace_bytes != nullptr) *workspace_bytes = result.workspaceSize;
  return true;
}

cublasStatus_t lt_gemm::run(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t& algo, const void* a, const void* b,
                            const void* c, void* d, float alpha, float beta, void* workspace,
                            std::size_t workspace_bytes, cudaStream_t stream) const {
  if (!ready()) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (a == nullptr || b == nullptr || d == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  cublasLtMatrixLayout_t c_layout = m_layout_c;
  if (c == nullptr) {
    if (beta != 0.0f) return CUBLAS_STATUS_INVALID_VALUE;
    c = d;
    c_layout = m_layout_d;
  }
  // Our B is cuBLASLt's A, our A its B (see the header).
  return cublasLtMatmul(handle, m_desc, &alpha, b, m_layout_b, a, m_layout_a, &beta, c, c_layout, d, m_layout_d, &algo,
                        workspace, workspace_bytes, stream);
}

}  // namespace cuop::backends
