#include "cuop/kernels/groupnorm/family.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace cuop::kernels::groupnorm {

namespace {

constexpr long long max_grid = std::numeric_limits<int>::max();
// The kernels' positions within a group are ints.
constexpr long long max_group = std::numeric_limits<int>::max();
constexpr int default_threads = 512;

int* field(groupnorm_config& c, std::string_view name) {
  if (name == "vec") return &c.vec;
  if (name == "block_threads") return &c.block_threads;
  return nullptr;
}

}  // namespace

std::string_view name_of(layout l) noexcept { return l == layout::nchw ? "nchw" : "nhwc"; }

std::string_view name_of(family) noexcept { return "group_loop"; }

bool parse_layout(std::string_view s, layout& out) noexcept {
  for (const layout l : {layout::nchw, layout::nhwc}) {
    if (s == name_of(l)) {
      out = l;
      return true;
    }
  }
  return false;
}

bool parse_family(std::string_view s, family& out) noexcept {
  for (const family f : all_families()) {
    if (s == name_of(f)) {
      out = f;
      return true;
    }
  }
  return false;
}

std::vector<family> all_families() { return {family::group_loop}; }

std::vector<std::string_view> param_names(family) { return {"vec", "block_threads"}; }

bool set_param(groupnorm_config& c, std::string_view name, long long value) noexcept {
  int* p = field(c, name);
  if (p == nullptr || value < 0 || value > std::numeric_limits<int>::max()) return false;
  *p = static_cast<int>(value);
  return true;
}

long long get_param(const groupnorm_config& c, std::string_view name) noexcept {
  groupnorm_config copy = c;
  const int* p = field(copy, name);
  return p == nullptr ? -1 : *p;
}

std::string check_shape(const groupnorm_shape& s) {
  if (s.n < 0 || s.hw < 0) return "n and hw must be >= 0";
  if (s.c < 1 || s.groups < 1) return "c and groups must be >= 1";
  if (s.c > std::numeric_limits<int>::max()) return "c must be < 2^31";
  if (s.c % s.groups != 0)
    return "channels " + std::to_string(s.c) + " do not divide into " + std::to_string(s.groups) + " groups";
  if (s.c / s.groups > max_group / std::max<long long>(1, s.hw))
    return "a group of " + std::to_string(s.c / s.groups) + " x " + std::to_string(s.hw) + " elements >= 2^31";
  if (s.n > max_group / s.groups) return "n x groups >= 2^31";
  if (s.n > 0 && s.hw > 0 && s.c > std::numeric_limits<long long>::max() / s.n / s.hw) return "tensor too large";
  return {};
}

groupnorm_config default_config(dtype t, layout l, bool silu, const groupnorm_shape&) noexcept {
  return {family::group_loop, t, l, silu, static_cast<int>(16 / size_of(t)), default_threads};
}

std::vector<groupnorm_config> default_configs(dtype t, layout l, bool silu) { return {default_config(t, l, silu, {})}; }

std::string check_config(const groupnorm_config& c) {
  if (c.vec != 1 && c.vec != 2 && c.vec != 4 && c.vec != 8) return "vec must be 1, 2, 4 or 8";
  if (static_cast<long long>(c.vec) * static_cast<long long>(size_of(c.type)) > 16)
    return "vec * sizeof(element) > 16 bytes";
  if (c.block_threads < 32 || c.block_threads % 32 != 0) return "threads per block must be a multiple of 32";
  if (c.block_threads > 1024) return "block of " + std::to_string(c.block_threads) + " threads > 1024";
  return {};
}

std::string instance_name(const groupnorm_config& c) {
  return "groupnorm_" + std::string(name_of(c.type)) + "_" + std::string(name_of(c.lay)) + (c.silu ? "_silu_" : "_") +
         std::string(name_of(c.fam)) + "_vec" + std::to_string(c.vec) + "_threads" + std::to_string(c.block_threads);
}

std::string template_name(const groupnorm_config& c) {
  const std::string_view type = c.type == dtype::f32 ? "float" : (c.type == dtype::f16 ? "__half" : "__nv_bfloat16");
  return "cuop::kernels::groupnorm::group_loop<" + std::string(type) + ", " + std::to_string(c.vec) + ", " +
         std::to_string(c.block_threads) + ", " + std::to_string(static_cast<int>(c.lay)) + ", " +
         std::to_string(c.silu ? 1 : 0) + ">";
}

std::string_view header_of(family) noexcept { return "cuop/kernels/groupnorm/group_loop.cuh"; }

std::string plan_launch(const groupnorm_config& c, const groupnorm_shape& s, const device_limits& dev,
                        launch_plan& out) {
  if (auto why = check_config(c); !why.empty()) return why;
  if (auto why = check_shape(s); !why.empty()) return why;
  if (dev.sm != 0 && dev.sm < 80) return "needs sm_80 or newer";
  if (c.block_threads > dev.max_threads_per_block) return "block larger than the device allows";
  const long long groups = std::max<long long>(1, s.n * s.groups);
  out.grid_x = static_cast<unsigned>(std::min(groups, max_grid));
  out.block_x = static_cast<unsigned>(c.block_threads);
  return {};
}

}  // namespace cuop::kernels::groupnorm
