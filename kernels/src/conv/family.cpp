// Convolution shapes and the depthwise family's validity, names and launch plans. The mapping,
// shared memory and grid computed here are those of kernels/include/cuop/kernels/conv/depthwise.cuh
// (its header comment and static_asserts): change both together.
#include "cuop/kernels/conv/family.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "cuop/detail/memory_ranges.hpp"
#include "cuop/detail/named_fields.hpp"
#include "cuop/kernels/conv/depthwise_geometry.hpp"
#include "plane_config.hpp"

namespace cuop::kernels::conv {

namespace {

std::string str(long long v) { return std::to_string(v); }

constexpr int max_filter = 31;  // the largest filter side swept (and unrolled along S)
constexpr long long max_grid_yz = 65535;
// Accumulators of a thread (ph x pw x vec x cvecs floats) beyond which no register allocation of
// 255 registers can hold them with the inputs and taps in flight.
constexpr long long max_accumulators = 192;

using algo = depthwise_algo;

// mma and mma_tma compute on tensor cores (depthwise_mma.cuh); mma_tma loads its input through
// TMA. mma_seg (depthwise_seg.cuh) is a kernel of its own.
bool mma_algo(const depthwise_config& c) { return c.algo == algo::mma || c.algo == algo::mma_tma; }
bool seg_algo(const depthwise_config& c) { return c.algo == algo::mma_seg; }
// plane (depthwise_plane.cuh) is NCHW along each channel's plane.
bool plane_algo(const depthwise_config& c) { return c.algo == algo::plane; }

seg_geometry seg_geometry_of(const depthwise_config& c) noexcept {
  return conv::seg_geometry_of(c.r, c.s, c.tile_h, c.tile_w, c.ph, c.block_c);
}

constexpr std::string_view algo_names[depthwise_algo_count] = {"direct",  "smem",    "smem_f32", "mma",
                                                               "mma_tma", "mma_seg", "plane"};

// "algo mma_seg": the algorithm a message is about.
std::string algo_of(const depthwise_config& c) { return "algo " + std::string(name_of(c.algo)); }

int* field(depthwise_config& c, std::string_view name) {
  if (name == "vec") return &c.vec;
  if (name == "cvecs") return &c.cvecs;
  if (name == "block_c") return &c.block_c;
  if (name == "tile_h") return &c.tile_h;
  if (name == "tile_w") return &c.tile_w;
  if (name == "ph") return &c.ph;
  if (name == "pw") return &c.pw;
  if (name == "via_nhwc") return &c.via_nhwc;
  return nullptr;
}

}  // namespace

std::string_view name_of(depthwise_algo a) noexcept {
  const int i = static_cast<int>(a);
  return i >= 0 && i < depthwise_algo_count ? algo_names[i] : std::string_view();
}

bool parse_depthwise_algo(std::string_view s, depthwise_algo& out) noexcept {
  for (int i = 0; i < depthwise_algo_count; ++i)
    if (s == algo_names[i]) {
      out = static_cast<depthwise_algo>(i);
      return true;
    }
  return false;
}

std::vector<std::string_view> depthwise_algo_names() { return {std::begin(algo_names), std::end(algo_names)}; }

bool uses_tma(depthwise_algo a) noexcept { return a == algo::mma_tma || a == algo::mma_seg; }

std::string_view name_of(layout l) noexcept { return l == layout::nhwc ? "nhwc" : "nchw"; }

bool parse_layout(std::string_view s, layout& out) noexcept {
  return cuop::detail::parse_named(s, {layout::nhwc, layout::nchw}, out);
}

int conv_shape::p() const noexcept {
  const long long span = static_cast<long long>(dil_h) * (r - 1) + 1;
  const long long in = static_cast<long long>(h) + 2ll * pad_h;
  return in < span || stride_h < 1 ? 0 : static_cast<int>((in - span) / stride_h + 1);
}

int conv_shape::q() const noexcept {
  const long long span = static_cast<long long>(dil_w) * (s - 1) + 1;
  const long long in = static_cast<long long>(w) + 2ll * pad_w;
  return in < span || stride_w < 1 ? 0 : static_cast<int>((in - span) / stride_w + 1);
}

std::string check_shape(const conv_shape& sh) {
  if (sh.n < 1 || sh.c < 1 || sh.h < 1 || sh.w < 1 || sh.k < 1 || sh.r < 1 || sh.s < 1)
    return "n, c, h, w, k, r and s must be >= 1";
  if (sh.stride_h < 1 || sh.stride_w < 1) return "stride must be >= 1";
  if (sh.dil_h < 1 || sh.dil_w < 1) return "dilation must be >= 1";
  if (sh.pad_h < 0 || sh.pad_w < 0) return "padding must be >= 0";
  if (sh.groups < 1 || sh.c % sh.groups != 0 || sh.k % sh.groups != 0)
    return "groups " + str(sh.groups) + " must divide c " + str(sh.c) + " and k " + str(sh.k);
  // The output size in 64 bits first: p() and q() are ints, and a padded input near 2^31 (or a
  // large padding) would give one past INT_MAX.
  const auto out_size = [](long long in, long long pad, long long dil, long long taps, long long stride) {
    const long long padded = in + 2 * pad, span = dil * (taps - 1) + 1;
    return padded < span ? 0 : (padded - span) / stride + 1;
  };
  const long long p = out_size(sh.h, sh.pad_h, sh.dil_h, sh.r, sh.stride_h),
                  q = out_size(sh.w, sh.pad_w, sh.dil_w, sh.s, sh.stride_w);
  if (p < 1 || q < 1)
    return "the " + str(sh.r) + "x" + str(sh.s) + " filter (dilation " + str(sh.dil_h) + "x" + str(sh.dil_w) +
           ") does not fit the padded " + str(sh.h) + "x" + str(sh.w) + " input";
  if (p > std::numeric_limits<int>::max() || q > std::numeric_limits<int>::max())
    return "output " + str(p) + "x" + str(q) + " > " + str(std::numeric_limits<int>::max()) + " in a dimension";
  // Whole-tensor offsets are 64-bit everywhere; a tensor past max_tensor_elements is past any memory.
  const auto elements = [](std::initializer_list<long long> dims) {
    constexpr auto limit = static_cast<std::uint64_t>(max_tensor_elements);
    std::uint64_t n = 1;
    for (const long long d : dims) n = ::cuop::detail::capped_product(n, static_cast<std::uint64_t>(d), limit);
    return n;
  };
  const std::uint64_t xn = elements({sh.n, sh.c, sh.h, sh.w}), wn = elements({sh.k, sh.c / sh.groups, sh.r, sh.s}),
                      yn = elements({sh.n, sh.k, p, q});
  if (std::max({xn, wn, yn}) > static_cast<std::uint64_t>(max_tensor_elements))
    return "x, w or y has more than " + str(max_tensor_elements) + " elements";
  return {};
}

double conv_flops(const conv_shape& sh) noexcept {
  const int channels_per_group = sh.c / sh.groups;  // groups divides c (check_shape)
  return 2.0 * sh.n * sh.k * static_cast<double>(sh.p()) * sh.q() * channels_per_group * sh.r * sh.s;
}

double conv_bytes(dtype t, const conv_shape& sh) noexcept {
  const double x = static_cast<double>(sh.n) * sh.c * sh.h * sh.w;
  const int channels_per_group = sh.c / sh.groups;
  const double w = static_cast<double>(sh.k) * channels_per_group * sh.r * sh.s;
  const double y = static_cast<double>(sh.n) * sh.k * sh.p() * sh.q();
  return static_cast<double>(size_of(t)) * (x + w + y);
}

std::vector<std::string_view> depthwise_param_names() {
  return {"vec", "cvecs", "block_c", "tile_h", "tile_w", "ph", "pw", "algo"};
}

std::vector<std::string_view> depthwise_optional_param_names() { return {"via_nhwc"}; }

bool set_param(depthwise_config& c, std::string_view name, long long value) noexcept {
  if (name == "algo") {
    if (value < 0 || value >= depthwise_algo_count) return false;
    c.algo = static_cast<depthwise_algo>(value);
    return true;
  }
  return cuop::detail::set_int_param(c, name, value, field);
}

long long get_param(const depthwise_config& c, std::string_view name) noexcept {
  if (name == "algo") return static_cast<long long>(c.algo);
  return cuop::detail::get_int_param(c, name, field);
}

int threads_per_block(const depthwise_config& c) noexcept {
  if (c.via_nhwc) return threads_per_block(kernel_config(c));
  if (c.vec < 1 || c.cvecs < 1 || c.ph < 1 || c.pw < 1) return 0;
  if (mma_algo(c)) return c.block_c % c.cvecs ? 0 : 32 * (c.block_c / c.cvecs);  // cvecs channels a warp
  if (seg_algo(c)) return static_cast<int>(seg_geometry_of(c).block_threads);
  const long long t =
      plane_algo(c) ? plane_geometry_of(c).block_threads
                    : static_cast<long long>(c.block_c / (c.vec * c.cvecs)) * (c.tile_h / c.ph) * (c.tile_w / c.pw);
  return t > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max() : static_cast<int>(t);
}

namespace {

// Words of a plane row of mma and mma_tma: an odd number of 16-byte units.
long long mma_row_words(const depthwise_config& c) noexcept {
  const long long xblocks = c.tile_w / 8, chunks = (c.s + 7) / 8;
  return ((xblocks + chunks) % 2 ? xblocks + chunks : xblocks + chunks + 1) * 4;
}

// mma (depthwise_mma.cuh): block_c planes of the patch, rows of an odd number of 16-byte units,
// the plane padded to 32 / (block_c / 8) words modulo 32 (4 when that is not a multiple of 4),
// then the block's tap pairs (nine words per channel, tap row and 8-tap chunk). mma_tma: the same,
// rounded up to 128 bytes, then the TMA copy's mbarrier.
long long mma_smem_bytes(const depthwise_config& c) noexcept {
  const long long chunks = (c.s + 7) / 8;
  long long words = (static_cast<long long>(c.tile_h) + c.r - 1) * mma_row_words(c);
  const int qc = c.block_c / 8;
  if (qc > 1) {
    const long long target = qc == 2 ? 16 : qc == 4 ? 8 : 4;
    while (words % 32 != target) words += 4;
  }
  const long long filter = (static_cast<long long>(c.block_c) * c.r * chunks * 9 * 4 + 15) / 16 * 16;
  const long long plain = static_cast<long long>(c.block_c) * words * 4 + filter;
  return c.algo == algo::mma_tma ? (plain + 127) / 128 * 128 + 16 : plain;  // then the copy's mbarrier
}

}  // namespace

int min_blocks_per_sm(const depthwise_config& c, long long smem_per_sm) noexcept {
  if (c.via_nhwc) return min_blocks_per_sm(kernel_config(c), smem_per_sm);
  if (!mma_algo(c) && !seg_algo(c) && !plane_algo(c)) return 1;
  if (smem_per_sm <= 0) smem_per_sm = default_smem_per_sm;
  if (plane_algo(c)) return static_cast<int>(plane_min_blocks(plane_geometry_of(c), smem_per_sm));
  if (seg_algo(c)) return static_cast<int>(seg_min_blocks(seg_geometry_of(c), c.ph, smem_per_sm));
  return static_cast<int>(blocks_for_smem(smem_bytes(c), smem_per_sm, 4));
}

// The layout of depthwise.cuh's header comment: the filter as f32 [taps][block_c], then one region
// reused by phase: the raw filter copy, the input patch (smem: the dtype, smem_f32: f32; nchw pads
// every pixel by one 16-byte chunk) and, for nchw, the f32 output tile ([tile_h * tile_w][block_c + 4]).
long long smem_bytes(const depthwise_config& c) noexcept {
  if (c.via_nhwc) return smem_bytes(kernel_config(c));
  if (mma_algo(c)) return mma_smem_bytes(c);
  if (seg_algo(c)) return seg_geometry_of(c).smem_bytes;
  if (plane_algo(c)) return plane_geometry_of(c).smem_bytes;
  const long long elem = static_cast<long long>(size_of(c.t));
  const long long taps = static_cast<long long>(c.r) * c.s;
  const long long filter = taps * c.block_c * 4;
  const long long raw_filter = taps * c.block_c * elem;
  const long long xsize = c.algo == algo::smem_f32 ? 4 : elem;
  const long long pix = c.block_c + (c.lay == layout::nchw ? 16 / xsize : 0);
  const long long patch = c.algo != algo::direct
                              ? (static_cast<long long>(c.tile_h - 1) * c.stride + c.r) *
                                    ((static_cast<long long>(c.tile_w) - 1) * c.stride + c.s) * pix * xsize
                              : 0;
  const long long out = c.lay == layout::nchw ? static_cast<long long>(c.tile_h) * c.tile_w * (c.block_c + 4) * 4 : 0;
  return filter + std::max({raw_filter, patch, out});
}

namespace {

// mma and mma_tma, tensor cores (depthwise_mma.cuh): cvecs is the channels of a warp.
std::string check_mma_config(const depthwise_config& c) {
  const std::string what = algo_of(c);
  if (c.t != dtype::f16 && c.t != dtype::bf16)
    return what + " (tensor cores) takes f16 or bf16, not " + std::string(name_of(c.t));
  if (c.lay != layout::nhwc) return what + " (tensor cores) is NHWC only";
  if (c.stride != 1) return what + " (tensor cores) is stride 1 only";
  if (c.vec != 8 || c.ph != 1 || c.pw != 1)
    return what + " (tensor cores) takes vec 8, ph 1 and pw 1 (got vec " + str(c.vec) + ", ph " + str(c.ph) + ", pw " +
           str(c.pw) + ")";
  if (c.cvecs < 1) return "cvecs " + str(c.cvecs) + " < 1";
  if (c.tile_h < 16) return what + ": tile_h " + str(c.tile_h) + " < 16 (the MMA's 16 rows)";
  if (c.tile_w < 8 || c.tile_w % 8 != 0) return what + ": tile_w " + str(c.tile_w) + " is not a multiple of 8";
  if (c.block_c < 8 || c.block_c % 8 != 0) return what + ": block_c " + str(c.block_c) + " is not a multiple of 8";
  if (c.block_c % c.cvecs != 0)
    return what + ": block_c " + str(c.block_c) + " is not a multiple of cvecs " + str(c.cvecs) + " (channels a warp)";
  if (const int warps = c.block_c / c.cvecs; warps > 32)
    return what + ": " + str(warps) + " warps (block_c / cvecs) > 32";
  if (const long long acc = 4ll * ((c.tile_h + 15) / 16) * (c.tile_w / 8); acc > max_accumulators / 2)
    return what + ": " + str(acc) + " accumulators per thread (4 x ceil(tile_h / 16) x tile_w / 8) > " +
           str(max_accumulators / 2);
  if (const long long smem = smem_bytes(c); smem > max_smem_any_target)
    return "shared memory of " + str(smem) + " bytes > " + str(max_smem_any_target) +
           " (227 KiB, the largest opt-in shared memory per block of any target)";
  if (c.algo == algo::mma_tma) {
    // One tensor copy a tile: each box dimension at most 256 elements.
    if (const long long pw = static_cast<long long>(c.tile_w) + c.s - 1,
        ph = static_cast<long long>(c.tile_h) + c.r - 1;
        pw > 256 || ph > 256 || c.block_c > 256)
      return what + ": the TMA box of block_c x (tile_w + s - 1) x (tile_h + r - 1) = " + str(c.block_c) + " x " +
             str(pw) + " x " + str(ph) + " has a side > 256";
    // A thread holds its share of the raw patch in registers: 8 per 16-byte task.
    const long long tasks = (static_cast<long long>(c.tile_h) + c.r - 1) * mma_row_words(c) * (c.block_c / 8);
    const long long threads = 32ll * (c.block_c / c.cvecs);
    if (const long long per_thread = (tasks + threads - 1) / threads; per_thread > 16)
      return what + ": " + str(per_thread) + " staged 16-byte chunks per thread (" + str(8 * per_thread) +
             " registers) > 16";
  }
  return {};
}

// mma_seg (depthwise_seg.cuh).
std::string check_seg_config(const depthwise_config& c) {
  const std::string seg = algo_of(c);
  if (c.t != dtype::f16 && c.t != dtype::bf16)
    return seg + " (tensor cores) takes f16 or bf16, not " + std::string(name_of(c.t));
  if (c.lay != layout::nhwc) return seg + " (tensor cores) is NHWC only";
  if (c.stride != 1) return seg + " (tensor cores) is stride 1 only";
  if (c.r > 7 || c.s > 7) return seg + ": filter " + str(c.r) + "x" + str(c.s) + " > 7x7 (16 input columns a tile row)";
  if (c.vec != 8 || c.cvecs != 4 || (c.block_c != 16 && c.block_c != 32) || c.pw != 1)
    return seg + " takes vec 8, cvecs 4, block_c 16 or 32 and pw 1 (got vec " + str(c.vec) + ", cvecs " + str(c.cvecs) +
           ", block_c " + str(c.block_c) + ", pw " + str(c.pw) + ")";
  if (c.ph < 1 || c.ph > 7) return seg + ": segments of ph " + str(c.ph) + " rows (1..7: 16 ph accumulators a lane)";
  if (c.tile_h % c.ph != 0) return seg + ": tile_h " + str(c.tile_h) + " is not a multiple of ph " + str(c.ph);
  if (c.tile_w < 8 || c.tile_w % 8 != 0) return seg + ": tile_w " + str(c.tile_w) + " is not a multiple of 8";
  const seg_geometry gm = seg_geometry_of(c);
  if (gm.sets == 0)
    return seg + ": " + str(c.tile_h / c.ph) + " segments x " + str(c.tile_w / 8) +
           " column tiles do not make slot sets of 16 (1, 2, 4 or 8 segments x 16, 8, 4 or 2 column tiles)";
  if (const long long warps = c.block_c / 4 * gm.sets; warps > 32) return seg + ": " + str(warps) + " warps > 32";
  if (const long long bw = c.tile_w + 7ll, bh = static_cast<long long>(c.tile_h) + c.r - 1; bw > 256 || bh > 256)
    return seg + ": the TMA box of block_c x (tile_w + 7) x (tile_h + r - 1) = " + str(c.block_c) + " x " + str(bw) +
           " x " + str(bh) + " has a side > 256";
  if (const long long smem = smem_bytes(c); smem > max_smem_any_target)
    return "shared memory of " + str(smem) + " bytes > " + str(max_smem_any_target) +
           " (227 KiB, the largest opt-in shared memory per block of any target)";
  return {};
}

}  // namespace

std::string check_config(const depthwise_config& c) {
  if (c.lay != layout::nhwc && c.lay != layout::nchw) return "unknown layout";
  if (c.r < 1 || c.s < 1 || c.r > max_filter || c.s > max_filter)
    return "filter " + str(c.r) + "x" + str(c.s) + " outside 1.." + str(max_filter);
  if (c.stride != 1 && c.stride != 2) return "stride " + str(c.stride) + " is not 1 or 2";
  if (c.via_nhwc != 0 && c.via_nhwc != 1) return "via_nhwc " + str(c.via_nhwc) + " is not 0 or 1";
  if (c.via_nhwc) {
    if (c.lay != layout::nchw)
      return "via_nhwc 1 runs an NCHW problem as NHWC; this one is " + std::string(name_of(c.lay));
    if (std::string bad = check_config(kernel_config(c)); !bad.empty()) return "via_nhwc: " + bad;
    return {};
  }
  if (mma_algo(c)) return check_mma_config(c);
  if (seg_algo(c)) return check_seg_config(c);
  if (plane_algo(c)) return check_plane_config(c);
  const long long vec_bytes = static_cast<long long>(c.vec) * static_cast<long long>(size_of(c.t));
  if (c.vec < 1 || (vec_bytes != 2 && vec_bytes != 4 && vec_bytes != 8 && vec_bytes != 16))
    return "vec " + str(c.vec) + " x " + str(static_cast<long long>(size_of(c.t))) +
           " bytes is not a 2-, 4-, 8- or 16-byte vector";
  if (c.cvecs < 1) return "cvecs " + str(c.cvecs) + " < 1";
  const int cpt = c.vec * c.cvecs;
  if (c.block_c < cpt || c.block_c % cpt != 0)
    return "block_c " + str(c.block_c) + " is not a multiple of vec x cvecs = " + str(cpt);
  if ((static_cast<long long>(c.block_c) * static_cast<long long>(size_of(c.t))) % 16 != 0)
    return "block_c " + str(c.block_c) + " channels are not a multiple of 16 bytes (shared-memory rows)";
  if (c.ph < 1 || c.tile_h < c.ph || c.tile_h % c.ph != 0)
    return "tile_h " + str(c.tile_h) + " is not a multiple of ph " + str(c.ph);
  if (c.pw < 1 || c.tile_w < c.pw || c.tile_w % c.pw != 0)
    return "tile_w " + str(c.tile_w) + " is not a multiple of pw " + str(c.pw);
  if (const long long acc = static_cast<long long>(c.ph) * c.pw * cpt; acc > max_accumulators)
    return "ph x pw x vec x cvecs = " + str(acc) + " accumulators per thread > " + str(max_accumulators) +
           " (255 registers)";
  if (name_of(c.algo).empty())
    return "algo " + str(static_cast<int>(c.algo)) +
           " is not one of direct, smem, smem_f32, mma, mma_tma, mma_seg, plane";
  if (c.algo == algo::smem_f32 && size_of(c.t) == 4)
    return "algo smem_f32 (the input staged as f32) is smem for " + std::string(name_of(c.t));
  if (c.lay == layout::nchw && c.algo == algo::direct)
    return "nchw reads its input through the staged patch (algo smem or smem_f32)";
  const int threads = threads_per_block(c);
  if (threads < 32 || threads > 1024)
    return "block of " + str(threads) +
           " threads ((block_c / (vec x cvecs)) x (tile_h / ph) x (tile_w / pw)) outside 32..1024";
  if (const long long smem = smem_bytes(c); smem > max_smem_any_target)
    return "shared memory of " + str(smem) + " bytes > " + str(max_smem_any_target) +
           " (227 KiB, the largest opt-in shared memory per block of any target)";
  return {};
}

std::string instance_name(const depthwise_config& c) {
  return "conv_depthwise_" + std::string(name_of(c.t)) + "_" + std::string(name_of(c.lay)) +
         (c.via_nhwc ? "_via_nhwc" + (c.via_nhwc == 1 ? std::string() : str(c.via_nhwc)) : std::string()) + "_" +
         std::string(name_of(c.algo)) + "_filter" + str(c.r) + "x" + str(c.s) + "_stride" + str(c.stride) + "_vec" +
         str(c.vec) + "_cvecs" + str(c.cvecs) + "_blockc" + str(c.block_c) + "_tile" + str(c.tile_h) + "x" +
         str(c.tile_w) + "_ph" + str(c.ph) + "_pw" + str(c.pw);
}

std::string template_name(const depthwise_config& config) {
  const depthwise_config c = kernel_config(config);
  return "cuop::kernels::conv::depthwise<" + std::string(device_type_of(c.t)) + ", " +
         (c.lay == layout::nhwc ? "true" : "false") + ", " + str(c.r) + ", " + str(c.s) + ", " + str(c.stride) + ", " +
         str(c.vec) + ", " + str(c.cvecs) + ", " + str(c.block_c) + ", " + str(c.tile_h) + ", " + str(c.tile_w) + ", " +
         str(c.ph) + ", " + str(c.pw) + ", cuop::kernels::conv::depthwise_algo::" + std::string(name_of(c.algo)) + ">";
}

std::string check_target(const depthwise_config& c, int cc) {
  if (uses_tma(c.algo) && cc > 0 && cc < 90)
    return algo_of(c) + " loads through TMA, which needs compute capability 9.0 or newer (the device has " +
           str(cc / 10) + "." + str(cc % 10) + ")";
  return {};
}

std::string_view depthwise_header() noexcept { return "cuop/kernels/conv/depthwise.cuh"; }

depthwise_config for_shape(depthwise_config c, dtype t, const conv_shape& sh) noexcept {
  c.t = t;
  c.lay = sh.lay;
  c.r = sh.r;
  c.s = sh.s;
  c.stride = sh.stride_h;
  return c;
}

depthwise_config kernel_config(depthwise_config c) noexcept {
  if (c.via_nhwc) {
    c.lay = layout::nhwc;
    c.via_nhwc = 0;
  }
  return c;
}

conv_shape kernel_shape(const depthwise_config& c, conv_shape sh) noexcept {
  if (c.via_nhwc) sh.lay = layout::nhwc;
  return sh;
}

std::size_t workspace_y_offset(const depthwise_config& c, const conv_shape& sh) noexcept {
  const auto x = static_cast<std::size_t>(sh.n) * sh.c * sh.h * sh.w * size_of(c.t);
  return (x + 255) / 256 * 256;
}

std::size_t workspace_bytes(const depthwise_config& c, const conv_shape& sh) noexcept {
  if (!c.via_nhwc) return 0;
  return workspace_y_offset(c, sh) + static_cast<std::size_t>(sh.n) * sh.k * sh.p() * sh.q() * size_of(c.t);
}

std::string plan_launch(const depthwise_config& c, const conv_shape& sh, const device_limits& dev, launch_plan& out) {
  if (std::string bad = check_config(c); !bad.empty()) return bad;
  if (std::string bad = check_shape(sh); !bad.empty()) return bad;
  if (sh.groups != sh.c || sh.k != sh.c)
    return "not depthwise: groups " + str(sh.groups) + ", c " + str(sh.c) + ", k " + str(sh.k) +
           " (needs groups == c == k)";
  if (sh.r != c.r || sh.s != c.s)
    return "filter " + str(sh.r) + "x" + str(sh.s) + " is not the configuration's " + str(c.r) + "x" + str(c.s);
  if (sh.stride_h != c.stride || sh.stride_w != c.stride)
    return "stride " + str(sh.stride_h) + "x" + str(sh.stride_w) + " is not the configuration's " + str(c.stride);
  if (sh.dil_h != 1 || sh.dil_w != 1) return "dilation " + str(sh.dil_h) + "x" + str(sh.dil_w) + " is not 1";
  if (sh.lay != c.lay)
    return "layout " + std::string(name_of(sh.lay)) + " is not the configuration's " + std::string(name_of(c.lay));
  if (c.via_nhwc) {
    if (const long long pixels = 1LL * sh.p() * sh.q(); sh.c > via_nhwc_max_rows || pixels > via_nhwc_max_rows)
      return "via_nhwc: " + str(sh.c) + " channels or " + str(pixels) + " output pixels > " + str(via_nhwc_max_rows) +
             " (the transposes' grid)";
    return plan_launch(kernel_config(c), kernel_shape(c, sh), dev, out);
  }
  const int threads = threads_per_block(c);
  if (threads > dev.max_threads_per_block)
    return "block of " + str(threads) + " threads > device limit " + str(dev.max_threads_per_block) +
           " (threads per block)";
  const long long smem = smem_bytes(c);
  if (dev.max_smem_per_block > 0 && smem > dev.max_smem_per_block)
    return "shared memory of " + str(smem) + " bytes > device limit " + str(dev.max_smem_per_block) +
           " (opt-in shared memory per block)";
  const long long tiles = ((static_cast<long long>(sh.p()) + c.tile_h - 1) / c.tile_h) *
                          ((static_cast<long long>(sh.q()) + c.tile_w - 1) / c.tile_w);
  const long long cgroups = (static_cast<long long>(sh.c) + c.block_c - 1) / c.block_c;
  if (tiles > std::numeric_limits<int>::max())
    return str(tiles) + " output tiles > " + str(std::numeric_limits<int>::max());
  if (cgroups > max_grid_yz) return str(cgroups) + " channel groups of " + str(c.block_c) + " > " + str(max_grid_yz);
  if (sh.n > max_grid_yz) return "n " + str(sh.n) + " > " + str(max_grid_yz);
  // 32-bit element offsets inside the kernel are only for positions within a tensor dimension
  // (and, mma with beta, within a tile's rows of the output); whole-tensor offsets are 64-bit.
  if ((mma_algo(c) || seg_algo(c)) &&
      static_cast<long long>(c.tile_h) * sh.q() * sh.c >= std::numeric_limits<int>::max())
    return algo_of(c) + ": tile_h x q x c = " + str(static_cast<long long>(c.tile_h) * sh.q() * sh.c) + " >= 2^31";
  if (std::string bad = check_target(c, dev.cc); !bad.empty()) return bad;
  // mma_seg moves its tiles through TMA only: the tensor's rows (C channels) must be whole 16-byte
  // units. (The pointers' 16-byte alignment is the launcher's and the dispatcher's to check.)
  if (seg_algo(c) && sh.c % 8 != 0)
    return algo_of(c) + ": c " + str(sh.c) + " is not a multiple of 8 (TMA needs 16-byte pixel strides)";
  launch_plan p;
  p.grid_x = static_cast<unsigned>(tiles);
  p.grid_y = static_cast<unsigned>(cgroups);
  p.grid_z = static_cast<unsigned>(sh.n);
  if (seg_algo(c)) {
    // Persistent (depthwise_seg.cuh): as many blocks as run at once, rounded down to a multiple of
    // the channel groups so that each keeps its group; one block a tile where the SMs are not known.
    const long long total = tiles * cgroups * sh.n,
                    slots = static_cast<long long>(min_blocks_per_sm(c, dev.smem_per_sm)) * dev.sms;
    if (total > std::numeric_limits<int>::max()) return str(total) + " tiles > " + str(std::numeric_limits<int>::max());
    long long grid = slots > 0 ? std::min(total, slots >= cgroups ? slots / cgroups * cgroups : slots) : total;
    p.grid_x = static_cast<unsigned>(std::max(grid, 1ll));
    p.grid_y = p.grid_z = 1;
  }
  p.block_x = static_cast<unsigned>(threads);
  p.smem_bytes = static_cast<std::size_t>(smem);
  out = p;
  return {};
}

}  // namespace cuop::kernels::conv
