// FFT convolution (2-D forward, cuFFT) without cuFFT: the configuration, its stable identifier,
// whether it supports a problem (and why not), transform sizes and the workspace plan. Plain C++
// (no CUDA headers): the tuner enumerates, stores and sizes candidates on a machine without a
// GPU. The object that plans and runs the transforms is fft_conv_backend.hpp.
//
// Algorithm (overlap-save): the output is cut into tile_h x tile_w tiles; each tile's input patch
// (tile + (filter - 1) * dilation, zero outside the image) and the dilated filter are zero-padded
// to an lh x lw real buffer and transformed (R2C); for every frequency the spectra are multiplied,
// Y[n, tile, k] = sum_c X[n, tile, c] * conj(W[k, c]) (conj: DL convolution is a correlation);
// the C2R result holds the tile's outputs at its top-left, unwrapped because lh, lw >= the patch.
#pragma once

#include <string>
#include <string_view>

#include "cuop/dtype.hpp"
#include "cuop/kernels/conv/family.hpp"

namespace cuop::backends {

// The tunables:
//   tile  output tile edge (0: the whole output is one tile; else 8 to 16384, clamped to the
//         output per dimension)
//   pad   transform size: 0 = the smallest size >= the patch with no prime factor above 7;
//         1 = the next power of two
//   kb    output channels per thread in the frequency-domain product (1, 2, 4 or 8)
struct fft_conv_config {
  int tile = 0;
  int pad = 0;
  int kb = 4;
};

bool operator==(const fft_conv_config& a, const fft_conv_config& b) noexcept;

// Stable identifier, e.g. "fft_t64_p0_kb4".
std::string fft_conv_config_id(const fft_conv_config& c);

// Parses exactly what fft_conv_config_id produces for a well-formed configuration (see
// check_fft_conv_config). On failure returns false, leaves `out` unchanged and sets *why (when
// non-null), e.g. kb 3 is not one of 1, 2, 4, 8 in "fft_t0_p0_kb3".
bool parse_fft_conv_config_id(std::string_view text, fft_conv_config& out, std::string* why);

// Empty when the configuration is well formed for some problem, else why not.
std::string check_fft_conv_config(const fft_conv_config& c);

// Empty when `c` can run the problem, else why not (groups != 1, stride != 1, a tile that covers
// the whole output, which duplicates tile 0, transforms too large, ...).
std::string check_fft_conv(dtype t, const kernels::conv::conv_shape& sh, const fft_conv_config& c);

// The transform size for `n` samples: pad_mode 0 the smallest m >= n with no prime factor above 7,
// pad_mode 1 the smallest power of two >= n. 1 for n < 1; 0 when the answer exceeds 2^30 or the
// mode is unknown.
int fast_fft_size(int n, int pad_mode);

// Alignment of every region of the workspace, in bytes.
inline constexpr long long fft_conv_alignment = 256;

// The plan of one problem and configuration. The workspace holds, in this order, each region
// rounded up to fft_conv_alignment: `real` (f32; the padded filter, then the input tiles, then the
// C2R output, in turn), the x, w and y spectra (complex f32, `bins` per transform), and cuFFT's
// work area, shared by the three plans (they run one after the other on one stream).
struct fft_conv_sizes {
  int p = 0, q = 0;              // output size
  int tile_h = 0, tile_w = 0;    // output tile in use
  int tiles_h = 0, tiles_w = 0;  // tiles per image
  int in_h = 0, in_w = 0;        // input patch of a tile: tile + (filter - 1) * dilation
  int lh = 0, lw = 0;            // transform size, >= the patch
  long long bins = 0;            // complex bins of one R2C transform: lh * (lw / 2 + 1)
  long long x_batch = 0;         // transforms: n * tiles * c
  long long w_batch = 0;         // k * c
  long long y_batch = 0;         // n * tiles * k
  long long real_bytes = 0;
  long long x_spectra_bytes = 0, w_spectra_bytes = 0, y_spectra_bytes = 0;
  long long buffer_bytes = 0;     // the four regions above
  long long fft_work_bytes = 0;   // plan_fft_conv: an estimate, the largest spectra region;
                                  // fft_conv::sizes(): what cuFFT asked for, rounded up
  long long workspace_bytes = 0;  // buffer_bytes + fft_work_bytes
};

// Host-only arithmetic. All zero when check_fft_conv refuses the problem.
fft_conv_sizes plan_fft_conv(dtype t, const kernels::conv::conv_shape& sh, const fft_conv_config& c);

}  // namespace cuop::backends
