// Host-side description of 2-D convolution problems and of our convolution kernel families:
// shapes and their validity, configurations, the names that identify them and launch plans.
// Plain C++ (no CUDA headers), shared by the tuner (NVRTC path) and the library (nvcc path).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/depthwise_algo.hpp"

namespace cuop::kernels::conv {

// Both tensors (x: N x C x H x W, y: N x K x P x Q) share the layout, and the filter follows it:
// K x R x S x (C / groups) for NHWC, K x (C / groups) x R x S for NCHW (args.cuh).
enum class layout : int { nhwc = 0, nchw = 1 };
std::string_view name_of(layout l) noexcept;
bool parse_layout(std::string_view s, layout& out) noexcept;

struct conv_shape {
  int n = 1, c = 1, h = 1, w = 1;  // input
  int k = 1;                       // output channels
  int r = 1, s = 1;                // filter
  int stride_h = 1, stride_w = 1;
  int pad_h = 0, pad_w = 0;
  int dil_h = 1, dil_w = 1;
  int groups = 1;
  layout lay = layout::nhwc;
  // f32 only: cuDNN may round inputs to TF32 on tensor cores (the answer is checked with TF32's
  // tolerance, conv_reference.hpp). Our kernels compute in full f32 either way.
  bool allow_tf32 = false;

  int p() const noexcept;  // output height (<= 0 when the filter does not fit)
  int q() const noexcept;  // output width
};

// The most elements one tensor of a shape may have (2^48 bytes of f32, past any device's memory).
inline constexpr long long max_tensor_elements = 1LL << 46;

// Empty when the shape is a valid convolution, else why not (sizes >= 1, groups dividing c and k,
// the filter fitting the padded input, p and q ints, no tensor past max_tensor_elements).
std::string check_shape(const conv_shape& sh);
double conv_flops(const conv_shape& sh) noexcept;               // 2 N K P Q (C / groups) R S
double conv_bytes(dtype t, const conv_shape& sh) noexcept;      // x, w and y, each once

struct device_limits {
  int max_threads_per_block = 1024;
  long long max_smem_per_block = 48 * 1024;  // opt-in maximum; 0: not known (validation, no device)
  int cc = 0;                                // compute capability x 10 (90: sm_90); 0: not known
  int sms = 0;  // multiprocessors; 0: not known (a persistent mma_seg grid is then one block a tile)
  long long smem_per_sm = 0;  // shared memory of an SM; 0: not known (default_smem_per_sm then)
};

struct launch_plan {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1;
  std::size_t smem_bytes = 0;  // dynamic shared memory
};

// ---- family depthwise (kernels/include/cuop/kernels/conv/depthwise.cuh) ----------------------

// One configuration. The filter size, stride, layout and dtype come from the problem; the rest
// are the tunables, in the order names and templates use (and declared in that order, for the
// emitted designated initializers):
//   vec      channels of a group: the vector of a load or store (2, 4, 8 or 16 bytes)
//   cvecs    groups per thread (channels per thread = vec * cvecs)
//   block_c  channels per block
//   tile_h, tile_w  output tile per block
//   ph, pw   outputs per thread: ph rows (tile_h % ph == 0) by pw columns (tile_w % pw == 0)
//   algo     the algorithm (depthwise_algo.hpp): direct, inputs read through L1 (nhwc only); smem,
//            the input patch staged in shared memory as the dtype; smem_f32, staged already
//            converted to f32 (16-bit dtypes only); mma, tensor cores (depthwise_mma.cuh);
//            mma_tma, mma with the patch brought in by one TMA copy (sm_90 and newer; its entry
//            takes a tma_input, launch.hpp); mma_seg, tensor cores with each input row's A
//            fragments kept across tap rows, persistent, through TMA (depthwise_seg.cuh; sm_90 and
//            newer, a tma_input too): ph is the segment's rows, block_c 16 or 32, and vec 8,
//            cvecs 4, pw 1 are fixed
//            plane, NCHW only, CUDA cores along each channel's plane (depthwise_plane.cuh): block_c
//            is the block's channels, a thread's ph x pw outputs lie in one channel, pw x stride
//            a multiple of 4, and vec 1, cvecs 1 are fixed
//   via_nhwc 1: an NCHW problem runs the NHWC kernel of the other tunables, x transposed into a
//            workspace first and y transposed back after (launch.hpp), so that NCHW layers get
//            the NHWC-only algorithms; 0 (the default, and for NHWC problems): the layout's own kernel
struct depthwise_config {
  dtype t = dtype::f16;
  layout lay = layout::nhwc;
  int r = 3, s = 3, stride = 1;
  int vec = 8, cvecs = 1, block_c = 32, tile_h = 4, tile_w = 8, ph = 1, pw = 4;
  int via_nhwc = 0;
  depthwise_algo algo = depthwise_algo::smem;
};

std::string_view name_of(depthwise_algo a) noexcept;  // "direct", ..., "plane"; "" when out of range
bool parse_depthwise_algo(std::string_view s, depthwise_algo& out) noexcept;
std::vector<std::string_view> depthwise_algo_names();  // in the order of their values
// mma_tma and mma_seg load through TMA: their entries take a tma_input after conv_args.
bool uses_tma(depthwise_algo a) noexcept;

// Parameters are ints; algo's value is the index of its name (depthwise_algo_names()). The
// optional ones may be left out of sweep files and stored configurations (their default applies).
std::vector<std::string_view> depthwise_param_names();
std::vector<std::string_view> depthwise_optional_param_names();
bool set_param(depthwise_config& c, std::string_view name, long long value) noexcept;
long long get_param(const depthwise_config& c, std::string_view name) noexcept;

// Empty when well formed for some problem, else why not.
std::string check_config(const depthwise_config& c);
int threads_per_block(const depthwise_config& c) noexcept;
long long smem_bytes(const depthwise_config& c) noexcept;
// The kernel's __launch_bounds__ minimum of blocks per SM: 1 (all registers to one block: direct,
// smem and smem_f32 spill otherwise), mma and mma_tma as many as an SM's shared memory holds (at
// most 4; registers are then capped so that they fit too), mma_seg depthwise_geometry.hpp's
// seg_min_blocks. `smem_per_sm` 0: default_smem_per_sm, what the kernel is built with.
int min_blocks_per_sm(const depthwise_config& c, long long smem_per_sm = 0) noexcept;

// Stable key naming the code: every template argument appears in it, each field named in full,
// e.g. "conv_depthwise_f16_nhwc_smem_f32_filter7x7_stride1_vec4_cvecs1_blockc32_tile8x16_ph2_pw4".
std::string instance_name(const depthwise_config& c);
std::string template_name(const depthwise_config& c);  // device instantiation spelled as source
std::string_view depthwise_header() noexcept;

// Empty when `c` can run on compute capability cc (x 10; 0: not known), else why not: mma_tma
// and mma_seg load through TMA, sm_90 and newer. plan_launch and the emitter (no entry borrowed for an
// older architecture) both ask.
std::string check_target(const depthwise_config& c, int cc);

// The configuration's problem-fixed fields taken from a shape (its tunables kept).
depthwise_config for_shape(depthwise_config c, dtype t, const conv_shape& sh) noexcept;

// The kernel that runs `c`: c itself, or for via_nhwc the NHWC configuration of its tunables.
depthwise_config kernel_config(depthwise_config c) noexcept;
// The NHWC shape a via_nhwc configuration's kernel runs (sh with the layout NHWC).
conv_shape kernel_shape(const depthwise_config& c, conv_shape sh) noexcept;
// Device memory `c` needs besides the tensors for shape sh: for via_nhwc, x and y in NHWC (y at
// workspace_y_offset, 256-byte aligned); 0 otherwise. The tuner and the library both give it.
std::size_t workspace_bytes(const depthwise_config& c, const conv_shape& sh) noexcept;
// The most channels, and output pixels, via_nhwc's transposes take (layout_transpose.cu: 65535
// tiles of 32 along the grid's y dimension); plan_launch refuses larger shapes, saying so.
inline constexpr long long via_nhwc_max_rows = 65535LL * 32;
std::size_t workspace_y_offset(const depthwise_config& c, const conv_shape& sh) noexcept;

// Plans `c` for the shape. Empty on success, else why this configuration cannot run it (the
// device's threads and opt-in shared memory per block included, naming the limit; mma_tma and
// mma_seg need compute capability 9.0 or newer where dev.cc is known).
std::string plan_launch(const depthwise_config& c, const conv_shape& sh, const device_limits& dev,
                        launch_plan& out);

}  // namespace cuop::kernels::conv
