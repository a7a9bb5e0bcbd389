#include "cuop/kernels/groupnorm/family.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "cuop/detail/named_fields.hpp"

namespace cuop::kernels::groupnorm {

namespace {

constexpr long long max_grid = std::numeric_limits<int>::max();
// The kernels' positions within a group are ints.
constexpr long long max_group = std::numeric_limits<int>::max();
// The default rule (docs/norm.md, "GroupNorm's default rule"): a block of default_threads per
// group where the groups fill the GPU, small_group_threads for groups of fewer than
// small_group_elements (a larger block would idle most of its lanes). Where one default block per
// group would leave the GPU short of cluster_below_threads, and each group has
// cluster_min_elements to share, more threads per group: up to few_groups groups, a cluster of
// small blocks each, enough for rule_blocks in all; up to pair_groups, pairs of large blocks (one
// block of an SM each); more, or without clusters, one large block each. Clusters of 16 blocks
// are non-portable: the rule takes them only on the architecture they were measured on, and 8 at
// most elsewhere.
constexpr int default_threads = 512;
constexpr int small_group_threads = 128;
constexpr long long small_group_elements = 1024;
constexpr long long cluster_below_threads = 1LL << 16;
constexpr long long cluster_min_elements = 1LL << 14;
constexpr long long few_groups = 32;
constexpr long long pair_groups = 64;
constexpr long long rule_blocks = 256;
constexpr int small_cluster_threads = 256;
constexpr int large_threads = 1024;
constexpr int measured_sm = 90;
int max_rule_cluster(int sm) noexcept { return sm == measured_sm ? 16 : 8; }
// group_passes::unroll times the largest step between a thread's vectors (16 blocks of 1024).
constexpr long long unroll_margin = 4LL * 16 * 1024;

int* field(groupnorm_config& c, std::string_view name) {
  if (name == "vec") return &c.vec;
  if (name == "block_threads") return &c.block_threads;
  if (name == "cluster") return &c.cluster;
  if (name == "span") return &c.span;
  return nullptr;
}

}  // namespace

std::string_view name_of(layout l) noexcept { return l == layout::nchw ? "nchw" : "nhwc"; }

std::string_view name_of(family f) noexcept {
  if (f == family::group_cluster) return "group_cluster";
  return f == family::group_span ? "group_span" : "group_loop";
}

bool parse_layout(std::string_view s, layout& out) noexcept {
  return cuop::detail::parse_named(s, {layout::nchw, layout::nhwc}, out);
}

bool parse_family(std::string_view s, family& out) noexcept {
  return cuop::detail::parse_named(s, all_families(), out);
}

std::vector<family> all_families() { return {family::group_loop, family::group_cluster, family::group_span}; }

int min_sm(family f) noexcept { return f == family::group_cluster ? 90 : 80; }

int min_sm(const groupnorm_config& c) noexcept {
  return c.fam == family::group_span && c.cluster > 1 ? 90 : min_sm(c.fam);
}

std::vector<std::string_view> param_names(family f) {
  if (f == family::group_cluster) return {"vec", "block_threads", "cluster"};
  if (f == family::group_span) return {"vec", "block_threads", "span", "cluster"};
  return {"vec", "block_threads"};
}

bool set_param(groupnorm_config& c, std::string_view name, long long value) noexcept {
  return cuop::detail::set_int_param(c, name, value, field);
}

long long get_param(const groupnorm_config& c, std::string_view name) noexcept {
  return cuop::detail::get_int_param(c, name, field);
}

std::string check_shape(const groupnorm_shape& s) {
  if (s.n < 0 || s.hw < 0) return "n and hw must be >= 0";
  if (s.c < 1 || s.groups < 1) return "c and groups must be >= 1";
  if (s.c > std::numeric_limits<int>::max()) return "c must be < 2^31";
  if (s.c % s.groups != 0)
    return "channels " + std::to_string(s.c) + " do not divide into " + std::to_string(s.groups) + " groups";
  // The kernels count a group's vectors in ints: a run's covering vectors reach past it by up to
  // two, and a thread's batch of unrolled ones past the last.
  if (s.c / s.groups + 2 > (max_group - unroll_margin) / std::max<long long>(1, s.hw))
    return "a group of " + std::to_string(s.c / s.groups) + " x " + std::to_string(s.hw) +
           " elements reaches 2^31 vectors with its margins";
  if (s.n > max_group / s.groups) return "n x groups >= 2^31";
  if (s.n > 0 && s.hw > 0 && s.c > std::numeric_limits<long long>::max() / s.n / s.hw) return "tensor too large";
  return {};
}

namespace {

int widest_vec(dtype t) noexcept { return static_cast<int>(16 / size_of(t)); }
int narrowest_vec(dtype t) noexcept { return std::max(1, static_cast<int>(4 / size_of(t))); }

// A few values, without allocating (default_config is noexcept).
template <typename T, std::size_t N = 4>
struct short_list {
  std::array<T, N> at{};
  std::size_t size = 0;
  void push_back(const T& v) noexcept { at[size++] = v; }
  const T* begin() const noexcept { return at.data(); }
  const T* end() const noexcept { return at.data() + size; }
};

// The vectors the rule takes: NCHW 16 bytes; NHWC 4 to 16 bytes, the widest that divides a
// group's channels, so that every run of the group starts and ends on a vector. A group of an odd
// channel count starts off the grid of any vector wider than an element every other run, and takes
// the widest: the kernels cover a run's ends with whole vectors.
short_list<int> rule_vecs(dtype t, layout l) noexcept {
  short_list<int> out;
  for (int vec = l == layout::nchw ? widest_vec(t) : narrowest_vec(t); vec <= widest_vec(t); vec *= 2)
    out.push_back(vec);
  return out;
}

int rule_vec(dtype t, layout l, long long channels_per_group) noexcept {
  if (channels_per_group % 2 == 1) return widest_vec(t);
  const auto vecs = rule_vecs(t, l);
  int vec = vecs.at[0];
  for (const int v : vecs)
    if (channels_per_group % v == 0) vec = v;
  return vec;
}

// How the rule launches a group: its family, threads a block and blocks a group.
struct rule_launch {
  family fam = family::group_loop;
  int threads = 0;
  int cluster = 0;
};

// Every launch the rule takes on architecture `sm`, in the order rule_launch_for indexes them:
// group_loop with default, small and large blocks; then, where clusters run, pairs of large
// blocks, then clusters of small blocks from 8 up to the largest the architecture allows the rule.
constexpr std::size_t loop_default = 0, loop_small = 1, loop_large = 2, cluster_pairs = 3, small_clusters = 4;
short_list<rule_launch, 6> rule_launches(int sm) noexcept {
  short_list<rule_launch, 6> out;
  out.push_back({family::group_loop, default_threads, 0});
  out.push_back({family::group_loop, small_group_threads, 0});
  out.push_back({family::group_loop, large_threads, 0});
  if (sm < min_sm(family::group_cluster)) return out;
  out.push_back({family::group_cluster, large_threads, 2});
  for (int cluster = 8; cluster <= max_rule_cluster(sm); cluster *= 2)
    out.push_back({family::group_cluster, small_cluster_threads, cluster});
  return out;
}

rule_launch rule_launch_for(const groupnorm_shape& s, int sm) noexcept {
  const auto launches = rule_launches(sm);
  const long long owners = std::max<long long>(1, s.n * s.groups);
  const long long elements = s.c / std::max<long long>(1, s.groups) * s.hw;
  if (elements < small_group_elements) return launches.at[loop_small];
  if (owners * default_threads >= cluster_below_threads || elements < cluster_min_elements)
    return launches.at[loop_default];
  if (launches.size <= cluster_pairs || owners > pair_groups) return launches.at[loop_large];
  if (owners > few_groups) return launches.at[cluster_pairs];
  std::size_t i = small_clusters;  // the smallest cluster that gives rule_blocks in all, or the largest
  while (i + 1 < launches.size && owners * launches.at[i].cluster < rule_blocks) ++i;
  return launches.at[i];
}

groupnorm_config rule_config(dtype t, layout l, bool silu, int vec, const rule_launch& r) noexcept {
  return {r.fam, t, l, silu, vec, r.threads, r.cluster, 0};
}

}  // namespace

groupnorm_config default_config(dtype t, layout l, bool silu, const groupnorm_shape& s, int sm) noexcept {
  const int vec = rule_vec(t, l, s.c / std::max<long long>(1, s.groups));
  return rule_config(t, l, silu, vec, rule_launch_for(s, sm));
}

std::vector<groupnorm_config> default_configs(dtype t, layout l, bool silu, int sm) {
  std::vector<groupnorm_config> out;
  for (const int vec : rule_vecs(t, l))
    for (const auto& r : rule_launches(sm)) out.push_back(rule_config(t, l, silu, vec, r));
  return out;
}

std::string check_config(const groupnorm_config& c) {
  if (c.vec != 1 && c.vec != 2 && c.vec != 4 && c.vec != 8) return "vec must be 1, 2, 4 or 8";
  if (static_cast<long long>(c.vec) * static_cast<long long>(size_of(c.type)) > 16)
    return "vec * sizeof(element) > 16 bytes";
  if (c.block_threads < 32 || c.block_threads % 32 != 0) return "threads per block must be a multiple of 32";
  if (c.block_threads > 1024) return "block of " + std::to_string(c.block_threads) + " threads > 1024";
  if (c.fam == family::group_cluster && c.cluster != 2 && c.cluster != 4 && c.cluster != 8 && c.cluster != 16)
    return "cluster must be 2, 4, 8 or 16 blocks";
  if (c.fam == family::group_loop && c.cluster != 0) return "group_loop takes no cluster";
  if (c.fam != family::group_span && c.span != 0) return std::string(name_of(c.fam)) + " takes no span";
  if (c.fam == family::group_span) {
    if (c.span != 2 && c.span != 4 && c.span != 8 && c.span != 16 && c.span != 32)
      return "span must be 2, 4, 8, 16 or 32 groups";
    if (c.cluster != 1 && c.cluster != 2 && c.cluster != 4 && c.cluster != 8 && c.cluster != 16)
      return "cluster must be 1, 2, 4, 8 or 16 blocks";
    if (c.block_threads * c.vec > 4096) return "block_threads x vec > 4096 (the lanes' moments in shared memory)";
    if (c.lay != layout::nhwc) return "group_span runs NHWC only";
  }
  return {};
}

std::string instance_name(const groupnorm_config& c) {
  return "groupnorm_" + std::string(name_of(c.type)) + "_" + std::string(name_of(c.lay)) + (c.silu ? "_silu_" : "_") +
         std::string(name_of(c.fam)) + "_vec" + std::to_string(c.vec) + "_threads" + std::to_string(c.block_threads) +
         (c.fam == family::group_span ? "_span" + std::to_string(c.span) : "") +
         (c.fam != family::group_loop ? "_cluster" + std::to_string(c.cluster) : "");
}

std::string template_name(const groupnorm_config& c) {
  const std::string_view type = c.type == dtype::f32 ? "float" : (c.type == dtype::f16 ? "__half" : "__nv_bfloat16");
  return "cuop::kernels::groupnorm::" + std::string(name_of(c.fam)) + "<" + std::string(type) + ", " +
         std::to_string(c.vec) + ", " + std::to_string(c.block_threads) + ", " +
         std::to_string(static_cast<int>(c.lay)) + ", " + std::to_string(c.silu ? 1 : 0) +
         (c.fam == family::group_span ? ", " + std::to_string(c.span) : "") +
         (c.fam != family::group_loop ? ", " + std::to_string(c.cluster) : "") + ">";
}

std::string_view header_of(family f) noexcept {
  if (f == family::group_cluster) return "cuop/kernels/groupnorm/group_cluster.cuh";
  return f == family::group_span ? "cuop/kernels/groupnorm/group_span.cuh" : "cuop/kernels/groupnorm/group_loop.cuh";
}

std::string plan_launch(const groupnorm_config& c, const groupnorm_shape& s, const device_limits& dev,
                        launch_plan& out) {
  if (auto why = check_config(c); !why.empty()) return why;
  if (auto why = check_shape(s); !why.empty()) return why;
  if (dev.sm != 0 && dev.sm < min_sm(c))
    return std::string(name_of(c.fam)) + (c.fam == family::group_span ? " with a cluster" : "") + " needs sm_" +
           std::to_string(min_sm(c)) + " or newer";
  if (c.block_threads > dev.max_threads_per_block) return "block larger than the device allows";
  long long owners = std::max<long long>(1, s.n * s.groups);  // what a block or cluster owns
  if (c.fam == family::group_span) {
    if (s.groups % c.span != 0)
      return "span of " + std::to_string(c.span) + " does not divide " + std::to_string(s.groups) + " groups";
    if (s.c / s.groups * c.span > c.block_threads)
      return "a span of " + std::to_string(s.c / s.groups * c.span) + " channels > " + std::to_string(c.block_threads) +
             " threads";
    owners = std::max<long long>(1, s.n * (s.groups / c.span));
  }
  const long long per_owner = c.fam == family::group_loop ? 1 : c.cluster;
  out.grid_x = static_cast<unsigned>(std::min(owners, max_grid / per_owner) * per_owner);
  out.block_x = static_cast<unsigned>(c.block_threads);
  out.cluster_x = static_cast<unsigned>(per_owner);
  return {};
}

}  // namespace cuop::kernels::groupnorm
