#include "tuner/ops/gemm/library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <set>

#include "cuop/backends/cublaslt_backend.hpp"
#include "cuop/kernels/gemm/pack.hpp"

namespace cuop::ops {

namespace bk = backends;

std::string library_instance(dtype t, const std::string& identifier) {
  return fmt::format("gemm_{}_cublaslt_{}", name_of(t), identifier);
}

namespace {

// The identity fields as the parameters stored with a configuration (integers, by name).
nlohmann::json params_of(const bk::lt_config& c) {
  return {{"algo", c.algo_id},    {"tile", c.tile},           {"stages", c.stages},
          {"split_k", c.split_k}, {"reduction", c.reduction}, {"swizzle", c.swizzle},
          {"custom", c.custom},   {"inner", c.inner_shape},   {"cluster", c.cluster_shape}};
}

bk::lt_config config_of(const nlohmann::json& p) {
  bk::lt_config c;
  c.algo_id = p.at("algo").get<std::int32_t>();
  c.tile = p.at("tile").get<std::uint32_t>();
  c.stages = p.at("stages").get<std::uint32_t>();
  c.split_k = p.at("split_k").get<std::int32_t>();
  c.reduction = p.at("reduction").get<std::uint32_t>();
  c.swizzle = p.at("swizzle").get<std::uint32_t>();
  c.custom = p.at("custom").get<std::uint32_t>();
  c.inner_shape = p.at("inner").get<std::uint16_t>();
  c.cluster_shape = p.at("cluster").get<std::uint16_t>();
  return c;
}

// Each stored identity field with the range of its attribute's C type.
struct lt_field {
  const char* name;
  long long lo, hi;
};
constexpr lt_field lt_fields[] = {
    {"algo", INT32_MIN, INT32_MAX},    {"tile", 0, UINT32_MAX},      {"stages", 0, UINT32_MAX},
    {"split_k", INT32_MIN, INT32_MAX}, {"reduction", 0, UINT32_MAX}, {"swizzle", 0, UINT32_MAX},
    {"custom", 0, UINT32_MAX},         {"inner", 0, UINT16_MAX},     {"cluster", 0, UINT16_MAX}};

std::size_t workspace_limit(const nlohmann::json& params) {
  return static_cast<std::size_t>(params.value("workspace_mb", 32LL)) << 20;
}

// `pack: 1`: the configurations of the problem on packed copies of A and B (K rounded up to 8,
// 16-byte aligned rows; kernels/include/cuop/kernels/gemm/pack.hpp), named with a "_pk1" suffix.
// `pack: 2`: on aligned copies of what is misaligned: A and B packed where K is not a multiple of
// 8; where N is not, N padded to 8 too (B with zero rows, A and B packed), D written to aligned
// rows and its first N columns copied out ("_pk2"). Its heuristic answers reduce split-K
// partials in the compute type, as dispatch runs them wherever it was not measured.
int pack_level(const nlohmann::json& params) { return static_cast<int>(params.value("pack", 0LL)); }
std::string pack_suffix(int level) { return level ? fmt::format("_pk{}", level) : ""; }

// What a packing level aligns for a swept problem (lda = ldb = k, ldd = n, 16-bit elements).
struct alignment_work {
  bool pack = false, stage = false;
};
alignment_work work_of(int level, int n, int k) {
  if (level == 1) return {true, false};
  if (level == 2) return {k % 8 != 0 || n % 8 != 0, n % 8 != 0};
  return {};
}

struct prepared {
  const bk::lt_gemm* gemm = nullptr;
  cublasLtMatmulAlgo_t algo{};
  std::size_t lt_workspace = 0;     // cuBLASLt's part, at the start of the workspace
  kernels::gemm::pack_plan pack;    // after it
  kernels::gemm::stage_plan stage;  // after that
};

}  // namespace

std::string cublaslt_instance_of(dtype t, const catalog::stored_values& params, std::string& why) {
  const long long pack = catalog::value_or(params, "pack", 0);
  if (pack < 0 || pack > 2) {
    why = fmt::format("parameter \"pack\" = {} is not 0, 1 or 2", pack);
    return {};
  }
  const std::string suffix = pack_suffix(static_cast<int>(pack));
  const auto only = [&](std::initializer_list<const char*> names) {
    for (const auto& entry : params) {
      const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one
      if (name != "pack" && std::none_of(names.begin(), names.end(), [&](const char* n) { return name == n; })) {
        why = fmt::format("unknown parameter \"{}\" of family \"cublaslt\"", name);
        return false;
      }
    }
    for (const char* n : names)
      if (!params.contains(n)) {
        why = fmt::format("missing parameter \"{}\" of family \"cublaslt\"", n);
        return false;
      }
    return true;
  };
  if (params.contains("rank")) {  // the heuristic's first choice
    if (!only({"rank", "workspace_mb"})) return {};
    if (params.at("rank") != 0 || params.at("workspace_mb") < 0 || params.at("workspace_mb") > (1 << 20)) {
      why = "the heuristic's choice must have \"rank\" 0 and \"workspace_mb\" in [0, 1048576]";
      return {};
    }
    return library_instance(t, "heuristic" + suffix);
  }
  if (!only({"algo", "tile", "stages", "split_k", "reduction", "swizzle", "custom", "inner", "cluster"})) return {};
  nlohmann::json fields;
  for (const auto& f : lt_fields) {
    const long long v = params.at(f.name);
    if (v < f.lo || v > f.hi) {
      why = fmt::format("parameter \"{}\" = {} is outside [{}, {}]", f.name, v, f.lo, f.hi);
      return {};
    }
    fields[f.name] = v;
  }
  return library_instance(t, bk::lt_config_id(config_of(fields)) + suffix);
}

struct gemm_library::impl {
  cublasLtHandle_t handle = nullptr;
  cublasStatus_t handle_status = CUBLAS_STATUS_NOT_INITIALIZED;
  std::map<std::tuple<dtype, int, int, int, int>, bk::lt_gemm> problems;

  // The problem's descriptors, made once; null with `why` when cuBLASLt refuses the problem.
  // `level`: the problem cuBLASLt sees after packing (K rounded up to 8, lda = ldb = that K) and
  // staging (ldc = ldd = N rounded up to 8).
  const bk::lt_gemm* problem(dtype t, int m, int n, int k, int level, std::string& why) {
    if (!handle) {
      why = "cublasLtCreate failed: " + bk::lt_status_text(handle_status);
      return nullptr;
    }
    const alignment_work work = work_of(level, n, k);
    if (level == 2 && !work.pack && !work.stage) {
      why = "pack 2: K and N are multiples of 8, nothing to align (the configurations without packing)";
      return nullptr;
    }
    const auto key = std::make_tuple(t, m, n, k, level);
    if (auto it = problems.find(key); it != problems.end()) return &it->second;
    bk::lt_gemm g;
    kernels::gemm::pack_plan shape;
    if (work.pack) kernels::gemm::plan_pack(true, m, n, k, 0, shape, work.stage);
    const int nn = work.pack ? shape.n : n;
    kernels::gemm::stage_plan staged;
    if (work.stage) kernels::gemm::plan_stage(m, nn, static_cast<int>(size_of(t)), 0, staged);
    const int kk = work.pack ? shape.k : k;
    const long long ld_out = work.stage ? staged.ld : n;
    bk::lt_problem p{t, t, kernels::gemm::b_layout::col, m, nn, kk, kk, kk, ld_out, ld_out};
    if (g.init(p, &why) != CUBLAS_STATUS_SUCCESS) return nullptr;
    return &problems.emplace(key, std::move(g)).first->second;
  }
};

gemm_library::gemm_library() : m(std::make_unique<impl>()) {
  m->handle_status = cublasLtCreate(&m->handle);
  if (m->handle_status != CUBLAS_STATUS_SUCCESS) m->handle = nullptr;
}

gemm_library::~gemm_library() {
  m->problems.clear();
  if (m->handle) cublasLtDestroy(m->handle);
}

nlohmann::json gemm_library::list(dtype t, int mm, int n, int k, const nlohmann::json& point, std::string& message) {
  const auto& params = point.at("params");
  const int pack = pack_level(params);
  const auto* g = m->problem(t, mm, n, k, pack, message);
  if (!g) return nullptr;
  const std::string suffix = pack_suffix(pack);
  const int top = static_cast<int>(params.value("top", 8LL));
  const int space = static_cast<int>(params.value("space", 0LL));
  const std::size_t limit = workspace_limit(params);
  const long long workspace_mb = static_cast<long long>(limit >> 20);

  std::vector<bk::lt_config> ranked;
  if (g->heuristic(m->handle, std::max(1, top), limit, ranked, &message, nullptr, pack == 2) != CUBLAS_STATUS_SUCCESS)
    return nullptr;
  if (ranked.empty()) {
    message = "cuBLASLt's heuristic has no algorithm for this problem";
    return nullptr;
  }
  nlohmann::json out = nlohmann::json::array();
  std::set<std::string> seen;
  // The heuristic's first choice, whatever it is on the running library: the reference to beat.
  nlohmann::json first = {{"rank", 0}, {"workspace_mb", workspace_mb}};
  if (pack) first["pack"] = pack;
  out.push_back(
      {{"instance", library_instance(t, "heuristic" + suffix)}, {"family", "cublaslt"}, {"params", std::move(first)}});
  seen.insert(bk::lt_config_id(ranked.front()));
  const auto add = [&](const bk::lt_config& c) {
    const auto id = bk::lt_config_id(c);
    if (!seen.insert(id).second) return;
    nlohmann::json p = params_of(c);
    if (pack) p["pack"] = pack;
    out.push_back({{"instance", library_instance(t, id + suffix)}, {"family", "cublaslt"}, {"params", std::move(p)}});
  };
  for (std::size_t i = 1; i < ranked.size(); ++i) add(ranked[i]);
  if (space > 0) {
    std::vector<bk::lt_config> all;
    if (g->enumerate(m->handle, limit, space, all, &message) != CUBLAS_STATUS_SUCCESS) return nullptr;
    for (const auto& c : all) add(c);
  }
  message.clear();
  return out;
}

std::string gemm_library::prepare(dtype t, int mm, int n, int k, const nlohmann::json& config, library_call& out) {
  std::string why;
  const auto& params = config.at("params");
  const int pack = pack_level(params);
  const auto* g = m->problem(t, mm, n, k, pack, why);
  if (!g) return why;
  auto state = std::make_shared<prepared>();
  state->gemm = g;
  if (params.contains("rank")) {  // the heuristic's answer of that rank, asked now
    const int rank = params.at("rank").get<int>();
    std::vector<bk::lt_config> ranked;
    std::vector<cublasLtMatmulAlgo_t> algos;
    if (g->heuristic(m->handle, rank + 1, workspace_limit(params), ranked, &why, &algos, pack == 2) !=
        CUBLAS_STATUS_SUCCESS)
      return why;
    if (static_cast<int>(algos.size()) <= rank)
      return fmt::format("cuBLASLt's heuristic has no answer of rank {}", rank);
    state->algo = algos[static_cast<std::size_t>(rank)];
    out.workspace_bytes = ranked[static_cast<std::size_t>(rank)].workspace_bytes;
  } else {
    std::size_t workspace = 0;
    if (!g->build(m->handle, config_of(params), state->algo, &why, &workspace)) return why;
    out.workspace_bytes = workspace;
  }
  state->lt_workspace = out.workspace_bytes;
  const alignment_work work = work_of(pack, n, k);
  if (work.pack)
    out.workspace_bytes = kernels::gemm::plan_pack(true, mm, n, k, out.workspace_bytes, state->pack, work.stage);
  if (work.stage)
    out.workspace_bytes =
        kernels::gemm::plan_stage(mm, state->pack.n, static_cast<int>(size_of(t)), out.workspace_bytes, state->stage);
  out.state = std::move(state);
  return {};
}

cudaError_t gemm_library::run(const library_call& call, const kernels::gemm::gemm_args& a, void* workspace,
                              std::size_t workspace_bytes, cudaStream_t stream) {
  const auto* p = static_cast<const prepared*>(call.state.get());
  kernels::gemm::gemm_args in = a;
  if (p->pack.on) {
    kernels::gemm::gemm_args src = a;
    src.workspace = workspace;
    if (const cudaError_t e = kernels::gemm::pack_operands(p->pack, src, in, stream); e != cudaSuccess) return e;
  }
  if (p->stage.on) {  // D (and C where it is read) in aligned rows of the workspace
    in.d = kernels::gemm::staged_rows(p->stage, workspace);
    if (in.c && in.beta != 0.f) {
      if (const cudaError_t e = kernels::gemm::stage_in(p->stage, a.c, a.ldc, a.m, a.n, workspace, stream);
          e != cudaSuccess)
        return e;
      in.c = in.d;
    } else {
      in.c = nullptr;
    }
  }
  if (p->pack.on || p->stage.on) workspace_bytes = p->lt_workspace;
  const auto s =
      p->gemm->run(m->handle, p->algo, in.a, in.b, in.c, in.d, in.alpha, in.beta, workspace, workspace_bytes, stream);
  if (s == CUBLAS_STATUS_SUCCESS && p->stage.on)
    return kernels::gemm::stage_out(p->stage, workspace, a.d, a.ldd, a.m, a.n, stream);
  if (s == CUBLAS_STATUS_SUCCESS) return cudaSuccess;
  // cuBLASLt reports its own status; the CUDA error behind an execution failure is the one
  // that says whether the context survived.
  const cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : cudaErrorNotSupported;
}

}  // namespace cuop::ops
