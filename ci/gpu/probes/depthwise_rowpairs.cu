// Device probe: stage 3's MMA phase with two tap rows in one m16n8k16, as the library now has it
// (kernels/include/cuop/kernels/conv/depthwise_mma.cuh), against the loop it replaced.
//
// The replaced loop fed an MMA k 0-7 and k 8-15 from two adjacent 16-byte units of one input row
// (one filter row against 14 input columns). Each unit belongs to two column blocks, so the odd
// blocks' operands were paired into aligned register quads by register moves (16 per 8 MMAs in
// its SASS). Stage 3 now takes k 0-7 from unit u at tap row r and k 8-15 from the same unit at
// tap row r + 1: one ldmatrix.x4 is the A operand of two MMAs, no moves, the same units read, the
// same MMA work; an odd R's last tap row runs as m16n8k8 pairs.
//
// Each layer's configurations run as stage 3 and with the adjacent-unit loop: the whole kernel and
// its MMA phase alone (CUDA events after a 256 MB L2 flush, median of 30, two rounds). The loops
// sum in different orders, so the outputs are compared: the largest difference in f16 units in
// the last place (ulps) and in absolute value, and how many elements differ.
// Usage: ci/gpu/probes/depthwise_rowpairs.sh.
#include "depthwise_probe.hpp"

// Stage 3 with its MMA loop as it was before row pairs (commit c447de1): per tap row and row
// group, units 0..U-1 by ldmatrix.x4 two at a time, each block's quad from adjacent units.
template <int R, int BLOCK_C, int TILE_H, int TILE_W, int CPW>
struct stage3_adjacent : stage3<R, BLOCK_C, TILE_H, TILE_W, CPW> {
  using K = stage3<R, BLOCK_C, TILE_H, TILE_W, CPW>;
  static constexpr int G = K::row_groups, XB = K::xblocks, U = K::units;
  static_assert(K::chunks == 1, "one tap chunk");

  static __device__ __forceinline__ void compute_channel(const kc::conv_args& a, const typename K::tile_t&,
                                                         unsigned* planes, const unsigned short* filt, int slot) {
    const lane_setup<K, R> ls(planes, filt, slot);
    float acc[G][XB][4] = {};
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
      unsigned b[2];
      ls.taps(r, b);
#pragma unroll
      for (int g = 0; g < G; ++g) {
        unsigned u[U + 1][2];
        ls.template units<U>(K::group_row(g) + r, u);
#pragma unroll
        for (int xb = 0; xb < XB; ++xb) {
          const unsigned af[4] = {u[xb][0], u[xb][1], u[xb + 1][0], u[xb + 1][1]};
          cuop::kernels::common::mma_16816<__half>(acc[g][xb], af, b);
        }
      }
    }
    write_tile<K>(a, planes, slot, acc);
  }
};

// One configuration: stage 3 and the adjacent-unit loop, whole and MMA phase, two rounds; then
// the outputs.
template <int R, int BC, int TH, int TW, int CPW>
void run_config(const layer& l, const buffers& b, const char* config) {
  using S3 = stage3<R, BC, TH, TW, CPW>;
  using AD = stage3_adjacent<R, BC, TH, TW, CPW>;
  const void* s3_full = reinterpret_cast<const void*>(&entry<phases<S3, load | mma | store>>);
  const void* s3_mma = reinterpret_cast<const void*>(&entry<phases<S3, mma>>);
  const void* ad_full = reinterpret_cast<const void*>(&entry<phases<AD, load | mma | store>>);
  const void* ad_mma = reinterpret_cast<const void*>(&entry<phases<AD, mma>>);
  float t[2][4];
  for (auto& round : t) {
    round[0] = time_us<S3>(s3_full, l, b, 30);
    round[1] = time_us<AD>(ad_full, l, b, 30);
    round[2] = time_us<S3>(s3_mma, l, b, 30);
    round[3] = time_us<AD>(ad_mma, l, b, 30);
  }
  const ulp_report rep = compare_ulps(output_of<S3>(s3_full, l, b), output_of<AD>(ad_full, l, b));
  std::printf("| %s | %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %d ulps, %.2g, %lld differ |\n",
              l.name, config, t[0][0], t[1][0], t[0][1], t[1][1], t[0][2], t[1][2], t[0][3], t[1][3], rep.max_ulps,
              rep.max_abs, rep.differing);
}

int main() {
  const probe::l2_flush flush(256ull << 20);
  const buffers b = make_buffers(flush);
  randomize(b);
  std::printf("| layer (f16 NHWC 7x7) | configuration | stage 3 (row pairs) whole us, 2 rounds | adjacent units whole us | "
              "stage 3 MMA phase us | adjacent units MMA phase us | outputs: largest difference, elements differing |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | --- |\n");
  run_config<7, 32, 28, 32, 4>(l512, b, "c32_t28x32 cv4");
  run_config<7, 32, 16, 32, 4>(l512, b, "c32_t16x32 cv4");
  run_config<7, 32, 28, 32, 4>(l256, b, "c32_t28x32 cv4");
  run_config<7, 64, 28, 32, 4>(l256, b, "c64_t28x32 cv4");
  run_config<7, 64, 16, 56, 4>(l128, b, "c64_t16x56 cv4");
  run_config<7, 32, 16, 56, 4>(l128, b, "c32_t16x56 cv4");
  run_config<7, 32, 16, 32, 4>(l384, b, "c32_t16x32 cv4");
  run_config<7, 64, 16, 64, 4>(l384, b, "c64_t16x64 cv4");
  return 0;
}
