// Host-side description of the GroupNorm kernel families: configurations, the names that identify
// them, the default rule, and how a configuration is launched for a problem. Plain C++ (no CUDA
// headers), shared by the tuner (NVRTC path) and the library's dispatch (nvcc path). Devices are
// described as for the row normalizations (norm::device_limits).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cuop/dtype.hpp"
#include "cuop/kernels/norm/family.hpp"

namespace cuop::kernels::groupnorm {

using norm::device_limits;

// The memory order of the tensor (the LAYOUT template argument; the same values as conv's).
enum class layout : int { nhwc = 0, nchw = 1 };

enum class family : int {
  group_loop = 0,     // one block per group, read twice (the second time mostly from L2)
  group_cluster = 1,  // the blocks of a thread-block cluster per group (sm_90+): few groups
  group_span = 2,     // a block (or cluster) per span of consecutive groups (NHWC): few channels a group
};

std::string_view name_of(layout l) noexcept;  // "nchw", "nhwc"
std::string_view name_of(family f) noexcept;
bool parse_layout(std::string_view s, layout& out) noexcept;
bool parse_family(std::string_view s, family& out) noexcept;
std::vector<family> all_families();

// The oldest architecture (compute capability x 10) a family runs on: 90 for group_cluster
// (thread-block clusters), 80 otherwise. Its kernels compile everywhere. A configuration's also
// counts its cluster (group_span with cluster > 1: 90).
int min_sm(family f) noexcept;
struct groupnorm_config;
int min_sm(const groupnorm_config& c) noexcept;

// The tunable parameters of a family, in the order they appear in names and templates.
// group_loop: vec, block_threads; group_cluster: vec, block_threads, cluster; group_span: vec,
// block_threads, span, cluster
std::vector<std::string_view> param_names(family f);

// One configuration: what it computes (dtype, layout, SiLU after the affine) and how.
struct groupnorm_config {
  family fam = family::group_loop;
  dtype type = dtype::f32;
  layout lay = layout::nchw;
  bool silu = false;
  int vec = 1;            // elements per vector access (1, 2, 4, 8; 16 bytes max)
  int block_threads = 0;  // threads of each block that works on a group
  int cluster = 0;        // group_cluster: blocks per cluster (2, 4, 8 or 16); group_span: 1 to 16; 0 otherwise
  int span = 0;           // group_span: consecutive groups a block owns (2 to 32); 0 otherwise
};

bool set_param(groupnorm_config& c, std::string_view name, long long value) noexcept;
long long get_param(const groupnorm_config& c, std::string_view name) noexcept;

// One problem: n samples of c channels over hw positions, in `groups` groups.
struct groupnorm_shape {
  long long n = 0, c = 0, hw = 0;
  long long groups = 1;
};

// Empty when the shape is well formed, else why not: channels that do not divide into the
// groups, sizes below 0 (or below 1 for c and groups), 2^31 channels or groups (n x groups) or
// more, and groups whose vectors (group_loop's, margins included) reach 2^31.
std::string check_shape(const groupnorm_shape& s);

// The default rule for a device of architecture `sm` (compute capability x 10; docs/norm.md,
// "GroupNorm's default rule"): group_loop on 512 threads, or on sm_90 and newer, where the groups
// are too few to fill the GPU and large enough to share, group_cluster (8 blocks of 256 threads a
// group for up to 32 groups, 16 below 32 on sm_90, else 2 of 1024); NCHW 16-byte vectors, NHWC the
// widest vector that divides a group's channels.
// default_configs lists every configuration it returns there for a dtype, layout and SiLU (the
// library instantiates them all).
groupnorm_config default_config(dtype t, layout l, bool silu, const groupnorm_shape& s, int sm) noexcept;
std::vector<groupnorm_config> default_configs(dtype t, layout l, bool silu, int sm);

// Empty when the configuration is well formed for any problem, else why not.
std::string check_config(const groupnorm_config& c);

// Stable key naming the code, e.g. "groupnorm_bf16_nhwc_silu_group_loop_vec8_threads512",
// "groupnorm_f32_nchw_group_loop_vec4_threads256",
// "groupnorm_bf16_nchw_group_cluster_vec8_threads512_cluster8",
// "groupnorm_f16_nhwc_group_span_vec8_threads512_span8_cluster1".
std::string instance_name(const groupnorm_config& c);

// Device template instantiation spelled as source, e.g.
// "cuop::kernels::groupnorm::group_loop<float, 4, 256, 1, 0>" (NCHW) or
// "cuop::kernels::groupnorm::group_cluster<__half, 8, 512, 0, 1, 8>" or
// "cuop::kernels::groupnorm::group_span<__half, 8, 512, 0, 0, 8, 1>" (span, then cluster), and the
// header that defines it.
std::string template_name(const groupnorm_config& c);
std::string_view header_of(family f) noexcept;

struct launch_plan {
  unsigned grid_x = 1;
  unsigned block_x = 1;
  unsigned cluster_x = 1;  // blocks per thread-block cluster; 1: no cluster
};

// Grid: group_loop, one block per group; group_cluster, one cluster of `cluster` blocks per group
// (needs sm_90); group_span, one block (a cluster of `cluster`) per span of groups, NHWC only, the
// span dividing the groups, its channels no more than the block's threads. Up to 2^31 - 1
// blocks, which then stride over the rest. Returns "" on success, else why `c` cannot run the
// problem.
std::string plan_launch(const groupnorm_config& c, const groupnorm_shape& s, const device_limits& dev,
                        launch_plan& out);

}  // namespace cuop::kernels::groupnorm
