// Device probe: do co-resident depthwise blocks run their phases in lockstep, and does starting
// them apart help? (kernels/include/cuop/kernels/conv/depthwise_mma.cuh, stages 3 and 4.)
//
// A block of stage 3 or 4 loads its patch, computes and stores, with no overlap inside the block;
// only the blocks an SM holds at once (2 or 3 on the 7x7 layers' winners) overlap one another's
// phases. All of the first wave start together, so they would load together, compute together
// and store together. Here the library's kernel runs behind a start delay: the block of linear
// index i sleeps (i / SMs) x D nanoseconds first when i / SMs is below the blocks an SM holds, so
// the k-th block of each SM's first wave starts k x D later (the hardware's block-to-SM order is
// not documented; the first SMs-many blocks taking one SM each is the common observation). Later
// blocks start when a slot frees and keep whatever offset the first wave had.
//
// Each configuration at D = 0 (no block sleeps) and several D, two rounds each (CUDA events after
// a 256 MB L2 flush, median of 30); every output is compared with D = 0's bit for bit. Usage: ci/gpu/probes/depthwise_stagger.sh.
#include "depthwise_probe.hpp"

#include "cuop/kernels/conv/launch.hpp"

// The k-th block of an SM's first wave sleeps k x delay_ns (in steps: __nanosleep takes < 1 ms).
__device__ __forceinline__ void stagger(int sms, int per_sm, unsigned delay_ns) {
  const int id = static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  const int slot = id / sms;
  if (delay_ns == 0 || slot == 0 || slot >= per_sm) return;
  for (int k = 0; k < slot; ++k) __nanosleep(delay_ns);
}

template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks)
    staggered3(kc::conv_args a, int sms, int per_sm, unsigned delay_ns) {
  extern __shared__ __align__(16) unsigned char smem[];
  stagger(sms, per_sm, delay_ns);
  K::run(a, smem);
}

template <typename K>
__global__ void __launch_bounds__(K::block_threads, K::min_blocks)
    staggered4(kc::conv_args a, const __grid_constant__ kc::tma_input in, int sms, int per_sm, unsigned delay_ns) {
  extern __shared__ __align__(16) unsigned char smem[];
  stagger(sms, per_sm, delay_ns);
  K::run_tma(a, in, smem);
}

// One configuration of stage `STAGE` (3 or 4) on a layer: the rows described above.
template <int STAGE, int BC, int TH, int TW, int CPW>
void run_config(const layer& l, const buffers& b, const char* config, int sms) {
  using K = stage3<7, BC, TH, TW, CPW>;
  kc::conv_args a{b.x, b.w, b.y, l.n, l.c, l.hw, l.hw, l.c, l.hw, l.hw, 7, 7, 1, 1, 3, 3, 1, 1, l.c, 1.f, 0.f};
  kc::depthwise_config c;
  c.r = c.s = 7;
  c.block_c = BC, c.tile_h = TH, c.tile_w = TW, c.cvecs = CPW, c.ph = c.pw = 1, c.stage = STAGE;
  kc::tma_input in{};
  kc::make_tma_input(c, a, in);
  const int smem = STAGE == 4 ? K::tma_smem_bytes : K::smem_bytes;
  const void* kernel = STAGE == 4 ? reinterpret_cast<const void*>(&staggered4<K>)
                                  : reinterpret_cast<const void*>(&staggered3<K>);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, K::block_threads, smem);
  const int tiles = ((l.hw + TH - 1) / TH) * ((l.hw + TW - 1) / TW);
  const dim3 grid(tiles, (l.c + BC - 1) / BC, l.n);
  const std::size_t out_bytes = static_cast<std::size_t>(l.n) * l.hw * l.hw * l.c * 2;
  auto run = [&](unsigned delay) {
    void* p3[] = {&a, const_cast<int*>(&sms), &per_sm, &delay};
    void* p4[] = {&a, &in, const_cast<int*>(&sms), &per_sm, &delay};
    cudaLaunchKernel(kernel, grid, dim3(K::block_threads), STAGE == 4 ? p4 : p3, smem, nullptr);
  };
  auto output = [&](unsigned delay) {
    cudaMemset(b.y, 0, out_bytes);
    run(delay);
    std::vector<unsigned char> got(out_bytes);
    cudaMemcpy(got.data(), b.y, out_bytes, cudaMemcpyDeviceToHost);
    return got;
  };
  const unsigned delays[] = {0, 1000, 2000, 3000, 4000, 6000};
  const std::vector<unsigned char> ref = output(0);
  bool same = true;
  for (unsigned d : delays) same = same && output(d) == ref;
  std::string line = std::string("| ") + l.name + " | stage " + std::to_string(STAGE) + " " + config + " | " +
                     std::to_string(per_sm) + (in.valid || STAGE == 3 ? "" : " (no map)") + " |";
  for (unsigned d : delays) {
    float us[2];
    for (float& u : us) u = probe::median_us([&] { run(d); }, b.flush, 30);
    char cell[48];
    std::snprintf(cell, sizeof cell, " %.2f / %.2f |", us[0], us[1]);
    line += cell;
  }
  const cudaError_t err = cudaGetLastError();
  std::printf("%s %s |\n", line.c_str(), err != cudaSuccess ? cudaGetErrorString(err) : same ? "same" : "WRONG");
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const probe::l2_flush flush(256ull << 20);
  const buffers b = make_buffers(flush);
  randomize(b);
  std::printf("| layer (f16 NHWC 7x7) | configuration | blocks per SM | D = 0 us (2 rounds) | 1 us | 2 us | 3 us | 4 us "
              "| 6 us | outputs |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
  run_config<3, 32, 28, 32, 4>(l512, b, "c32_t28x32", sms);
  run_config<4, 32, 16, 32, 4>(l512, b, "c32_t16x32", sms);
  run_config<3, 32, 28, 32, 4>(l256, b, "c32_t28x32", sms);
  run_config<4, 32, 16, 32, 4>(l128, b, "c32_t16x32", sms);
  run_config<3, 32, 16, 56, 4>(l128, b, "c32_t16x56", sms);
  run_config<4, 32, 16, 32, 4>(l384, b, "c32_t16x32", sms);
  return 0;
}
