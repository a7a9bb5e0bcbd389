// lt_gemm::enumerate: the whole configuration space of the installed cuBLASLt for one problem,
// cut to a budget (cublaslt_backend.hpp says how it is built and cut).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cuop/backends/cublaslt_backend.hpp"
#include "lt_internal.hpp"

namespace cuop::backends {

namespace {

using lt_internal::fail;

// A fixed 64-bit mix of the identity (splitmix64 steps): the enumeration's shuffle. Defined
// here, not by std::hash, so the order is the same on every platform and build.
std::uint64_t identity_hash(const lt_config& c) {
  const auto mix = [](std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  std::uint64_t h = 0;
  for (const std::uint64_t v :
       {static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.algo_id)), std::uint64_t{c.tile},
        std::uint64_t{c.stages}, static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.split_k)),
        std::uint64_t{c.reduction}, std::uint64_t{c.swizzle}, std::uint64_t{c.custom}, std::uint64_t{c.inner_shape},
        std::uint64_t{c.cluster_shape}})
    h = mix(h ^ v);
  return h;
}

struct identity_order {
  bool operator()(const lt_config& a, const lt_config& b) const noexcept { return identity_less(a, b); }
};

// One algorithm's candidates, in the enumeration's order, consumed one valid candidate at a time.
struct algo_stream {
  cublasLtMatmulAlgo_t base{};   // as cublasLtMatmulAlgoInit left it
  std::vector<lt_config> order;  // candidates, hash-ordered
  std::size_t next = 0;
  bool done() const { return next >= order.size(); }
};

// The list being built: at most `budget` configurations, each identity once.
struct picked {
  std::vector<lt_config>& out;
  int budget;
  std::set<lt_config, identity_order> taken;

  bool full() const { return static_cast<int>(out.size()) >= budget; }
  bool take(const lt_config& c) {
    if (full() || !taken.insert(c).second) return false;
    out.push_back(c);
    return true;
  }
};

// cublasLtMatmulAlgoCheck of a candidate (its identity set on a copy of its algorithm's base),
// each call counted against opts.max_checks: the enumeration's costly step.
struct checker {
  std::function<cublasStatus_t(const cublasLtMatmulAlgo_t&, cublasLtMatmulHeuristicResult_t&)> check;
  long long max_checks;
  lt_enumerate_stats& st;

  bool operator()(const cublasLtMatmulAlgo_t& base, const lt_config& c, cublasLtMatmulHeuristicResult_t& result) const {
    if (st.checks >= max_checks) {
      st.check_limit_hit = true;
      return false;
    }
    cublasLtMatmulAlgo_t algo = base;
    const char* refused = "";
    if (lt_internal::set_identity(algo, c, refused) != CUBLAS_STATUS_SUCCESS) return false;
    ++st.checks;
    return check(algo, result) == CUBLAS_STATUS_SUCCESS;
  }
};

// The distinct algorithm ids of the problem's type combination, ascending.
cublasStatus_t algorithm_ids(cublasLtHandle_t handle, const lt_problem& p, std::vector<int>& ids, std::string* why) {
  const cudaDataType_t in = lt_internal::cuda_type(p.in), out = lt_internal::cuda_type(p.out);
  ids.assign(4096, 0);
  int id_count = 0;
  const cublasStatus_t s = cublasLtMatmulAlgoGetIds(handle, lt_internal::compute_type, lt_internal::scale_type, in, in,
                                                    out, out, static_cast<int>(ids.size()), ids.data(), &id_count);
  if (s != CUBLAS_STATUS_SUCCESS)
    return fail(why, s, "cublasLtMatmulAlgoGetIds failed for " + describe(p) + ": " + lt_status_text(s));
  ids.resize(static_cast<std::size_t>(std::max(0, id_count)));
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return CUBLAS_STATUS_SUCCESS;
}

bool device_launches_clusters() {
  int device = 0, cluster_launch = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, device) == cudaSuccess &&
         cluster_launch != 0;
}

// The cores of (tile, stages) `c`, appended to `cores`. It is checked with the auto cluster shape
// and, on a device that launches clusters, with every explicit one: architecture-specific kernels
// may accept only explicit shapes (algorithm 66 on sm_90 refuses auto), while kernels that do not
// use clusters accept every shape and ignore it. A pair that accepts every explicit shape is such
// a kernel: it keeps one core (auto, or 1x1x1 if auto is refused) instead of 50 names for one kernel.
void add_cores(const cublasLtMatmulAlgo_t& base, lt_config c, bool clusters, const checker& checked,
               std::vector<lt_config>& cores) {
  cublasLtMatmulHeuristicResult_t result;
  c.cluster_shape = CUBLASLT_CLUSTER_SHAPE_AUTO;
  const bool auto_ok = checked(base, c, result);
  std::vector<lt_config> explicit_ok;
  if (clusters)
    for (std::uint16_t cl = CUBLASLT_CLUSTER_SHAPE_1x1x1; cl < CUBLASLT_CLUSTER_SHAPE_END; ++cl) {
      c.cluster_shape = cl;
      if (checked(base, c, result)) explicit_ok.push_back(c);
    }
  const bool ignores_cluster =
      explicit_ok.size() == std::size_t{CUBLASLT_CLUSTER_SHAPE_END - CUBLASLT_CLUSTER_SHAPE_1x1x1};
  if (auto_ok) {
    c.cluster_shape = CUBLASLT_CLUSTER_SHAPE_AUTO;
    cores.push_back(c);
  }
  if (ignores_cluster && auto_ok) return;
  if (ignores_cluster) {
    cores.push_back(explicit_ok.front());
    return;
  }
  cores.insert(cores.end(), explicit_ok.begin(), explicit_ok.end());
}

// The cores of one algorithm: (tile, stages, cluster shape) with the other attributes at their
// defaults `def`.
std::vector<lt_config> cores_of(const cublasLtMatmulAlgo_t& base, const lt_config& def, const lt_caps& caps,
                                bool clusters, const checker& checked) {
  const std::vector<std::uint32_t> tiles = caps.tiles.empty() ? std::vector<std::uint32_t>{0} : caps.tiles;
  const std::vector<std::uint32_t> stages = caps.stages.empty() ? std::vector<std::uint32_t>{0} : caps.stages;
  std::vector<lt_config> cores;
  for (const auto t : tiles)
    for (const auto sg : stages) {
      lt_config c = def;
      c.tile = t;
      c.stages = sg;
      c.inner_shape = 0;
      add_cores(base, c, clusters, checked, cores);
    }
  return cores;
}

// The variants of each core, (split-K, reduction) x swizzle x custom option, hash-ordered.
std::vector<lt_config> candidates_of(const std::vector<lt_config>& cores, const lt_config& def, const lt_caps& caps,
                                     const lt_enumerate_options& opts, int k) {
  std::vector<std::pair<std::int32_t, std::uint32_t>> splits{{def.split_k, 0}};
  if (caps.split_k)
    for (const int sk : opts.split_k) {
      if (sk < 2 || sk == def.split_k ||
          static_cast<long long>(k) < static_cast<long long>(sk) * std::max(1, opts.min_k_per_split))
        continue;
      for (std::uint32_t bit = 1; bit <= CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE; bit <<= 1)
        if ((caps.reduction_mask & bit) != 0) splits.emplace_back(sk, bit);
    }
  std::vector<lt_config> order;
  for (const auto& core : cores)
    for (const auto& [sk, red] : splits)
      for (std::uint32_t w = 0; w <= caps.swizzle_max; ++w)
        for (std::uint32_t cu = 0; cu <= caps.custom_max; ++cu) {
          lt_config c = core;
          c.split_k = sk;
          c.reduction = red;
          c.swizzle = w;
          c.custom = cu;
          order.push_back(c);
        }
  std::sort(order.begin(), order.end(), [](const lt_config& a, const lt_config& b) {
    const std::uint64_t ha = identity_hash(a), hb = identity_hash(b);
    return ha != hb ? ha < hb : identity_less(a, b);
  });
  return order;
}

// Round-robin over the algorithms until the budget is spent or every stream is exhausted: each
// visit takes the algorithm's next candidate that passes the check and the workspace limit.
void take_round_robin(std::vector<algo_stream>& streams, picked& pick, const checker& checked,
                      std::size_t workspace_limit, lt_enumerate_stats& st) {
  bool progress = true;
  while (!pick.full() && progress) {
    progress = false;
    for (auto& as : streams) {
      if (pick.full()) break;
      while (!as.done() && !st.check_limit_hit) {
        lt_config c = as.order[as.next++];
        if (pick.taken.count(c) != 0) continue;  // a heuristic seed
        cublasLtMatmulHeuristicResult_t result;
        if (!checked(as.base, c, result)) continue;
        ++st.valid;
        if (result.workspaceSize > workspace_limit) {
          ++st.over_workspace;
          continue;
        }
        c.workspace_bytes = result.workspaceSize;
        c.waves = result.wavesCount;
        pick.take(c);
        progress = true;
        break;
      }
    }
  }
}

}  // namespace

cublasStatus_t lt_gemm::enumerate(cublasLtHandle_t handle, std::size_t workspace_limit, int budget,
                                  std::vector<lt_config>& out, std::string* why, const lt_enumerate_options& opts,
                                  lt_enumerate_stats* stats) const {
  out.clear();
  lt_enumerate_stats st;
  const auto finish = [&](cublasStatus_t s) {
    if (stats != nullptr) *stats = st;
    return s;
  };
  if (!ready()) return finish(fail(why, CUBLAS_STATUS_NOT_INITIALIZED, "lt_gemm used before init()"));
  if (budget < 1) {
    st.complete = budget == 0;
    return finish(
        budget == 0 ? CUBLAS_STATUS_SUCCESS
                    : fail(why, CUBLAS_STATUS_INVALID_VALUE, "enumeration budget " + std::to_string(budget) + " < 0"));
  }
  picked pick{out, budget, {}};

  // 1. The heuristic's own answers lead. None (an unusual problem) is not an error here.
  if (opts.heuristic_seeds > 0) {
    std::vector<lt_config> seeds;
    std::string ignored;
    if (heuristic(handle, opts.heuristic_seeds, workspace_limit, seeds, &ignored) == CUBLAS_STATUS_SUCCESS)
      for (const auto& c : seeds) st.seeds += pick.take(c) ? 1 : 0;
  }

  // 2. Every algorithm id of the type combination: its cores, then their variants.
  std::vector<int> ids;
  if (const cublasStatus_t s = algorithm_ids(handle, m_problem, ids, why); s != CUBLAS_STATUS_SUCCESS) return finish(s);
  st.algorithms = static_cast<int>(ids.size());
  const bool clusters = opts.cluster_shapes && device_launches_clusters();
  const checker checked{[&](const cublasLtMatmulAlgo_t& algo, cublasLtMatmulHeuristicResult_t& result) {
                          return check(handle, algo, result);
                        },
                        opts.max_checks, st};
  std::vector<algo_stream> streams;
  for (const int id : ids) {
    algo_stream as;
    if (init_algo(handle, id, as.base) != CUBLAS_STATUS_SUCCESS) continue;
    lt_caps caps;
    if (lt_internal::read_caps(as.base, caps, nullptr) != CUBLAS_STATUS_SUCCESS || !caps.out_of_place) continue;
    lt_config def;
    if (lt_config_of(as.base, def, nullptr) != CUBLAS_STATUS_SUCCESS) continue;
    def.algo_id = id;
    const std::vector<lt_config> cores = cores_of(as.base, def, caps, clusters, checked);
    if (cores.empty()) continue;
    as.order = candidates_of(cores, def, caps, opts, m_problem.k);
    streams.push_back(std::move(as));
  }
  st.algorithms_used = static_cast<int>(streams.size());

  // 3. The cut.
  take_round_robin(streams, pick, checked, workspace_limit, st);
  st.complete =
      !st.check_limit_hit && std::all_of(streams.begin(), streams.end(), [](const algo_stream& a) { return a.done(); });
  if (out.empty())
    return finish(fail(why, CUBLAS_STATUS_NOT_SUPPORTED,
                       "cuBLASLt offers no configuration for " + describe(m_problem) + " within " +
                           std::to_string(workspace_limit) + " bytes of workspace"));
  return finish(CUBLAS_STATUS_SUCCESS);
}

}  // namespace cuop::backends
