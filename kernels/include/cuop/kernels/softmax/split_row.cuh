// Softmax family split_row, for rows too long for one block's registers: SPLITS = ceil(cols /
// (VEC * BLOCK_THREADS * CHUNKS)) blocks share a row, each holding its segment in registers.
// Grid: G groups * SPLITS blocks, all co-resident (the host launches it cooperatively); block b
// is segment b % SPLITS of group b / SPLITS, and group g handles rows g, g + G, ...
// Per row, each block publishes its segment's (max, sum) to a tagged slot of the workspace
// (split_workspace.hpp), issues the loads of its next row, waits until every slot of its group
// carries this row's tag, combines the partials, normalizes its registers and writes: exactly
// one read and one write of the data, and no fence or atomic on the per-row path.
//
// PERSISTENT 0: one block per (row, segment), ROWS * SPLITS blocks, an ordinary launch. A block
// takes a ticket (a counter in the workspace) when it starts and works on segment
// ticket % SPLITS of row ticket / SPLITS; tickets follow the order in which blocks really start,
// so a block only waits for segments whose blocks have started, or will start as soon as a
// block of an earlier, complete row leaves (SPLITS resident blocks suffice; the host checks).
// Rows go to blocks as blocks finish. SMEM_CHUNKS (> 0, with PERSISTENT 0 only): each thread
// holds SMEM_CHUNKS more vectors of its segment in dynamic shared memory (smem_tile.cuh), so a
// block holds a longer segment and a row needs fewer of them.
#pragma once

#include "cuop/kernels/softmax/common.cuh"
#include "cuop/kernels/softmax/smem_tile.cuh"
#include "cuop/kernels/softmax/split_workspace.hpp"

namespace cuop::kernels::softmax {

namespace detail {

__device__ __forceinline__ unsigned ld_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned atom_add_acq_rel(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ void st_relaxed(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// A slot: two single-copy-atomic 64-bit words {value, tag}.
__device__ __forceinline__ void st_slot(unsigned* p, stats v, unsigned tag) {
  asm volatile(
      "{\n .reg .b64 a, b;\n mov.b64 a, {%1, %3};\n mov.b64 b, {%2, %3};\n"
      " st.relaxed.gpu.global.b64 [%0], a;\n st.relaxed.gpu.global.b64 [%0+8], b;\n}"
      :: "l"(p), "r"(__float_as_uint(v.m)), "r"(__float_as_uint(v.s)), "r"(tag) : "memory");
}
// Reads a slot; false unless both words carry `tag`.
__device__ __forceinline__ bool ld_slot(const unsigned* p, unsigned tag, stats& v) {
  unsigned m, tm, s, ts;
  asm volatile(
      "{\n .reg .b64 a, b;\n ld.relaxed.gpu.global.b64 a, [%4];\n ld.relaxed.gpu.global.b64 b, [%4+8];\n"
      " mov.b64 {%0, %1}, a;\n mov.b64 {%2, %3}, b;\n}"
      : "=r"(m), "=r"(tm), "=r"(s), "=r"(ts) : "l"(p) : "memory");
  v = {__uint_as_float(m), __uint_as_float(s)};
  return tm == tag && ts == tag;
}

}  // namespace detail

template <typename T, int VEC, int BLOCK_THREADS, int CHUNKS, int PERSISTENT = 1, int SMEM_CHUNKS = 0>
struct split_row {
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr long long cols_in_registers = static_cast<long long>(VEC) * BLOCK_THREADS * CHUNKS;
  static constexpr long long cols_per_block =
      cols_in_registers + static_cast<long long>(VEC) * BLOCK_THREADS * SMEM_CHUNKS;
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS <= 1024, "whole warps, <= 1024 threads");
  static_assert(CHUNKS >= 1, "chunks >= 1");
  static_assert(PERSISTENT == 0 || PERSISTENT == 1, "persistent: 0 or 1");
  static_assert(SMEM_CHUNKS >= 0 && (SMEM_CHUNKS == 0 || PERSISTENT == 0),
                "smem_chunks >= 0, and only with persistent 0");

  using tile_t = detail::tile<T, VEC, BLOCK_THREADS, CHUNKS>;
  using smem_t = detail::smem_tile<T, VEC, BLOCK_THREADS, SMEM_CHUNKS>;
  using scratch_t = float2[2][BLOCK_THREADS / 32];
  static constexpr bool prefetch = PERSISTENT && detail::prefetch_fits<T, VEC, CHUNKS, BLOCK_THREADS>;

  struct group_t {
    unsigned* header;  // epoch, finished blocks
    unsigned* slots;   // [2][groups][splits] x 4 words
    int groups, splits, index, split;  // the grid is < 2^31 blocks
    long long begin;   // first column of this block's segment
    unsigned tag;      // epoch + 1 + row iteration
  };

  struct where {
    const T* in;
    T* out;
    detail::row_layout<T, VEC> layout;
  };

  static __device__ __forceinline__ where locate(const softmax_args& a, const group_t& g,
                                                 long long row) {
    const T* in = detail::row_ptr<T>(a.in, row, a.in_stride);
    T* out = detail::row_ptr<T>(a.out, row, a.out_stride);
    return {in, out, detail::row_layout<T, VEC>(in, out, a.cols, g.splits * cols_per_block)};
  }

  static __device__ __forceinline__ unsigned* slots(const group_t& g, int parity) {
    return g.slots + 4ll * ((static_cast<long long>(parity) * g.groups + g.index) * g.splits);
  }

  // Phase 1: this block's (max, sum) (of the threads' `mine`) goes to its slot, tagged with the
  // row iteration.
  static __device__ __forceinline__ void publish(detail::stats mine, const group_t& g,
                                                 scratch_t& scratch, int parity) {
    mine = detail::block_reduce<BLOCK_THREADS>(mine, scratch, parity);
    if (threadIdx.x == 0) detail::st_slot(slots(g, parity) + 4 * g.split, mine, g.tag);
  }

  // Phase 2: warp 0 waits until every slot of the group carries the tag and combines them; the
  // row's (max, sum) comes back to every thread. Slots alternate by parity: a block cannot
  // publish row i+2 before every block of its group has published row i+1, which each does only
  // after it has read the slots of row i.
  static __device__ __forceinline__ detail::stats meet(group_t& g, int parity, float2 (&result)[2]) {
    if (threadIdx.x < 32) {
      const unsigned* p = slots(g, parity);
      detail::stats r{detail::neg_inf(), 0.f};
      for (int j0 = 0; j0 < g.splits; j0 += 32) {
        const int j = j0 + static_cast<int>(threadIdx.x);
        detail::stats v{detail::neg_inf(), 0.f};
        bool ok = j >= g.splits || detail::ld_slot(p + 4 * j, g.tag, v);
        while (!__all_sync(0xffffffffu, ok)) {
          __nanosleep(20);
          if (!ok) ok = detail::ld_slot(p + 4 * j, g.tag, v);
        }
        r = detail::combine(r, v);
      }
      r = detail::warp_reduce<32>(r);
      if (threadIdx.x == 0) result[parity] = make_float2(r.m, r.s);
    }
    __syncthreads();
    const float2 r = result[parity];
    ++g.tag;
    return {r.x, r.y};
  }

  static __device__ __forceinline__ void complete(tile_t& x, const softmax_args& a, const where& w,
                                                  group_t& g, int parity, float2 (&result)[2]) {
    x.store(w.out, g.begin, a.cols, w.layout, threadIdx.x, meet(g, parity, result));
  }

  static __device__ __forceinline__ void step(tile_t& cur, tile_t& next, const softmax_args& a,
                                              const where& w, group_t& g, long long row,
                                              where& w_next, scratch_t& scratch,
                                              float2 (&result)[2], int parity) {
    publish(cur.local_stats(), g, scratch, parity);
    const long long r = row + g.groups;
    if (r < a.rows) {  // in flight while the group meets
      w_next = locate(a, g, r);
      next.load(w_next.in, g.begin, a.cols, w_next.layout, threadIdx.x);
    }
    complete(cur, a, w, g, parity, result);
  }

  static __device__ void run(const softmax_args& a) {
    if constexpr (PERSISTENT) run_persistent(a);
    else run_ticketed(a);
  }

  // One segment of one row, by ticket; slots are per row (groups == rows), tag epoch + 1.
  static __device__ void run_ticketed(const softmax_args& a) {
    __shared__ scratch_t scratch;
    __shared__ float2 result[2];
    __shared__ unsigned ticket;
    group_t g;
    g.header = static_cast<unsigned*>(a.workspace);
    g.slots = reinterpret_cast<unsigned*>(static_cast<char*>(a.workspace) + split_row_header_bytes);
    if (threadIdx.x == 0) ticket = atomicAdd(g.header + split_row_ticket_word, 1u);
    const unsigned epoch = detail::ld_relaxed(g.header);
    g.splits = static_cast<int>((a.cols + cols_per_block - 1) / cols_per_block);
    g.groups = static_cast<int>(a.rows);
    g.tag = epoch + 1u;
    __syncthreads();
    g.index = static_cast<int>(ticket / static_cast<unsigned>(g.splits));
    g.split = static_cast<int>(ticket % static_cast<unsigned>(g.splits));
    g.begin = static_cast<long long>(g.split) * cols_per_block;
    const where w = locate(a, g, g.index);
    tile_t t0;
    if constexpr (SMEM_CHUNKS > 0) {  // the shared part's copies first: all loads in flight together
      const smem_t s(static_cast<unsigned>(__cvta_generic_to_shared(detail::dynamic_smem)));
      s.load(w.in, g.begin + cols_in_registers, a.cols, w.layout, threadIdx.x);
      t0.load(w.in, g.begin, a.cols, w.layout, threadIdx.x);
      smem_t::wait();
      publish(detail::combine(t0.local_stats(), s.local_stats(threadIdx.x)), g, scratch, 0);
      const detail::stats r = meet(g, 0, result);
      finish(g, epoch, 1);  // before the stores: see finish
      t0.store(w.out, g.begin, a.cols, w.layout, threadIdx.x, r);
      s.store(w.out, g.begin + cols_in_registers, a.cols, w.layout, threadIdx.x, r);
    } else {
      t0.load(w.in, g.begin, a.cols, w.layout, threadIdx.x);
      publish(t0.local_stats(), g, scratch, 0);
      const detail::stats r = meet(g, 0, result);
      finish(g, epoch, 1);
      t0.store(w.out, g.begin, a.cols, w.layout, threadIdx.x, r);
    }
  }

  // The last block to finish moves the epoch past every tag of this launch (all blocks read
  // the epoch before they arrive here: the arrival is a release) and resets the counters.
  // A ticketed block arrives as soon as its meet is done, before its output stores: it touches
  // the workspace no more, and its release fence then waits for few outstanding writes. Arriving
  // after the stores kept every block resident until thread 0's stores had drained (on the H200,
  // 0-0.7% of 256x262144 f32 with two blocks per SM, 4.7% with one).
  static __device__ __forceinline__ void finish(const group_t& g, unsigned epoch, long long iterations) {
    if (threadIdx.x == 0) {
      if (detail::atom_add_acq_rel(g.header + 1, 1) == gridDim.x - 1) {
        detail::st_relaxed(g.header + 1, 0);
        detail::st_relaxed(g.header + split_row_ticket_word, 0);
        detail::st_relaxed(g.header, epoch + static_cast<unsigned>(iterations) + 1u);
      }
    }
  }

  static __device__ void run_persistent(const softmax_args& a) {
    __shared__ scratch_t scratch;
    __shared__ float2 result[2];
    group_t g;
    g.splits = static_cast<int>((a.cols + cols_per_block - 1) / cols_per_block);
    g.groups = static_cast<int>(gridDim.x) / g.splits;
    g.index = static_cast<int>(blockIdx.x) / g.splits;
    g.split = static_cast<int>(blockIdx.x) % g.splits;
    g.begin = static_cast<long long>(g.split) * cols_per_block;
    g.header = static_cast<unsigned*>(a.workspace);
    g.slots = reinterpret_cast<unsigned*>(static_cast<char*>(a.workspace) + split_row_header_bytes);
    const unsigned epoch = detail::ld_relaxed(g.header);
    g.tag = epoch + 1u;  // tags start above the epoch: a zeroed slot never matches

    long long row = g.index;
    if (g.index >= g.groups) row = a.rows;  // not in any group: only counts as finished
    if constexpr (prefetch) {
      tile_t t0, t1;
      where w0, w1;
      if (row < a.rows) {
        w0 = locate(a, g, row);
        t0.load(w0.in, g.begin, a.cols, w0.layout, threadIdx.x);
      }
      while (row < a.rows) {
        step(t0, t1, a, w0, g, row, w1, scratch, result, 0);
        row += g.groups;
        if (row >= a.rows) break;
        step(t1, t0, a, w1, g, row, w0, scratch, result, 1);
        row += g.groups;
      }
    } else {
      for (int parity = 0; row < a.rows; row += g.groups, parity ^= 1) {
        tile_t t0;
        const where w0 = locate(a, g, row);
        t0.load(w0.in, g.begin, a.cols, w0.layout, threadIdx.x);
        publish(t0.local_stats(), g, scratch, parity);
        complete(t0, a, w0, g, parity, result);
      }
    }

    finish(g, epoch, (a.rows + g.groups - 1) / g.groups);
  }
};

}  // namespace cuop::kernels::softmax
