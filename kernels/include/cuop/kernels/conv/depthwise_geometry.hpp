// Geometry of the depthwise family's kernels that the kernels (template constants,
// __launch_bounds__) and the host planner (kernels/src/conv/family.cpp: threads, shared memory,
// the persistent grid) both compute: one constexpr definition, so the two cannot drift apart. Plain
// C++ without headers, read by nvcc, NVRTC and the host compiler alike.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CUOP_SEG_CONSTEXPR __host__ __device__ constexpr
#else
#define CUOP_SEG_CONSTEXPR constexpr
#endif

namespace cuop::kernels::conv {

// Shared memory of an SM where the device's is not known (the __launch_bounds__ of a kernel built
// for any target, a plan without a device): sm_90's and sm_100's 228 KiB. The driver reserves
// 1 KiB of it per resident block.
inline constexpr long long default_smem_per_sm = 228 * 1024;
inline constexpr long long smem_reserved_per_block = 1024;

// Blocks of `smem` bytes an SM of smem_per_sm runs at once, at most `cap` (mma and mma_tma:
// depthwise_mma.cuh), at least 1.
CUOP_SEG_CONSTEXPR long long blocks_for_smem(long long smem, long long smem_per_sm, long long cap) {
  const long long fit = smem_per_sm / (smem + smem_reserved_per_block);
  return fit < 1 ? 1 : fit > cap ? cap : fit;
}

// mma_seg (depthwise_seg.cuh): segments of l rows, slot sets of `span` segments x 2 cpairs column tiles (span x cpairs = 8),
// block_c / 4 warps a slot set. Shared memory: two boxes ((tile_h + r - 1) x (tile_w + 7) pixels
// of 2 block_c bytes, then a slack pixel, 1024-byte aligned), the tap pairs [block_c][r][9] words,
// the raw taps [block_c][r][s], two mbarriers. sets is 0 where the tile does not divide.
struct seg_geometry {
  long long segs = 0, ctiles = 0, span = 0, cpairs = 0, sets = 0;
  long long warps = 0, block_threads = 0;
  long long box_h = 0, box_w = 0, pix = 0, box_bytes = 0, buf_bytes = 0;
  long long pairs_offset = 0, raw_offset = 0, bar_offset = 0, smem_bytes = 0;
};

inline constexpr long long seg_pair_words = 9;  // P[-1..7] of a (channel, tap row)

CUOP_SEG_CONSTEXPR seg_geometry seg_geometry_of(long long r, long long s, long long tile_h, long long tile_w,
                                                long long l, long long block_c) {
  seg_geometry g;
  g.box_h = tile_h + r - 1;
  g.box_w = tile_w + 7;  // an odd row pitch
  g.pix = 2 * block_c;   // bytes of a box pixel (the swizzle span)
  g.box_bytes = g.box_h * g.box_w * g.pix;
  g.buf_bytes = (g.box_bytes + g.pix + 1023) / 1024 * 1024;
  g.pairs_offset = 2 * g.buf_bytes;
  g.raw_offset = g.pairs_offset + block_c * r * seg_pair_words * 4;
  g.bar_offset = (g.raw_offset + block_c * r * s * 2 + 15) / 16 * 16;
  g.smem_bytes = g.bar_offset + 16;
  if (l < 1 || tile_h < l || tile_h % l != 0 || tile_w < 8 || tile_w % 8 != 0) return g;
  const long long segs = tile_h / l, ctiles = tile_w / 8, span = segs < 8 ? segs : 8;
  if (8 % span != 0 || segs % span != 0 || ctiles % (2 * (8 / span)) != 0) return g;
  g.segs = segs;
  g.ctiles = ctiles;
  g.span = span;
  g.cpairs = 8 / span;
  g.sets = segs / span * (ctiles / (2 * g.cpairs));
  g.warps = block_c / 4 * g.sets;
  g.block_threads = 32 * g.warps;
  return g;
}

// Blocks an SM runs at once, for __launch_bounds__ and the persistent grid: as many as its shared
// memory holds, within 8 warps an SM when a lane holds 16 l > 64 accumulators (ptxas then takes up
// to 255 registers), else 12; at least 1.
CUOP_SEG_CONSTEXPR long long seg_min_blocks(const seg_geometry& g, long long l, long long smem_per_sm) {
  const long long fit = smem_per_sm / (g.smem_bytes + smem_reserved_per_block);
  const long long by_warps = (l > 4 ? 8 : 12) / (g.warps > 1 ? g.warps : 1);
  return fit < 1 ? 1 : by_warps < 1 ? 1 : fit < by_warps ? fit : by_warps;
}

// plane (depthwise_plane.cuh, NCHW): BLOCK_C channel planes of the tile's input patch as f32,
// [channel][patch row][row_pitch], then each channel's taps as f32, [channel][taps_pitch]. A
// thread owns ph x pw outputs of one channel; it reads an input row's (pw - 1) * stride + s
// columns as `loads` 16-byte vectors starting at a multiple of 4 floats (pw * stride % 4 == 0),
// so the row pitch covers the last thread's vectors too, and is a multiple of 4 floats.
struct plane_geometry {
  long long patch_h = 0, patch_w = 0, span = 0, loads = 0, row_pitch = 0, plane_words = 0, taps_pitch = 0;
  long long segs = 0, plane_threads = 0, block_threads = 0, smem_bytes = 0;
};

CUOP_SEG_CONSTEXPR plane_geometry plane_geometry_of(long long r, long long s, long long stride, long long block_c,
                                                    long long tile_h, long long tile_w, long long ph, long long pw) {
  plane_geometry g;
  if (ph < 1 || pw < 1 || tile_h < ph || tile_w < pw || tile_h % ph != 0 || tile_w % pw != 0) return g;
  g.patch_h = (tile_h - 1) * stride + r;
  g.patch_w = (tile_w - 1) * stride + s;
  g.span = (pw - 1) * stride + s;
  g.loads = (g.span + 3) / 4;
  g.segs = tile_w / pw;
  const long long reach = (g.segs - 1) * pw * stride + 4 * g.loads;
  g.row_pitch = ((reach > g.patch_w ? reach : g.patch_w) + 3) / 4 * 4;
  g.plane_words = g.patch_h * g.row_pitch;
  g.taps_pitch = (r * s + 3) / 4 * 4;
  g.plane_threads = g.segs * (tile_h / ph);
  g.block_threads = block_c * g.plane_threads;
  g.smem_bytes = block_c * (g.plane_words + g.taps_pitch) * 4;
  return g;
}

// plane's __launch_bounds__ minimum of blocks per SM: as many as shared memory holds, within 80
// registers a thread (the accumulators, a row's vectors and the taps in flight), at least 1.
CUOP_SEG_CONSTEXPR long long plane_min_blocks(const plane_geometry& g, long long smem_per_sm) {
  const long long by_registers = g.block_threads > 0 ? 65536 / (g.block_threads * 80) : 1;
  return blocks_for_smem(g.smem_bytes, smem_per_sm, by_registers < 1 ? 1 : by_registers);
}

}  // namespace cuop::kernels::conv

#undef CUOP_SEG_CONSTEXPR
