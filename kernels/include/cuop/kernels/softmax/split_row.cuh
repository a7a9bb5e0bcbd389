// Softmax family split_row, for rows too long for one block's registers: SPLITS = ceil(cols /
// (VEC * BLOCK_THREADS * CHUNKS)) blocks share a row, each holding its segment in registers.
// Grid: G groups * SPLITS blocks, all co-resident (the host launches it cooperatively); block b
// is segment b % SPLITS of group b / SPLITS, and group g handles rows g, g + G, ...
// Per row, each block publishes its segment's (max, sum) to a tagged slot of the workspace
// (split_workspace.hpp), issues the loads of its next row, waits until every slot of its group
// carries this row's tag, combines the partials, normalizes its registers and writes: exactly
// one read and one write of the data, and no fence or atomic on the per-row path.
//
// PERSISTENT 0: one block per (row, segment), ROWS * SPLITS blocks, an ordinary launch; block b
// is segment b % SPLITS of row b / SPLITS and issues its loads at once. Rows go to blocks as
// blocks finish. The hardware starts blocks in about blockIdx order, so a block's peers start
// with it, but CUDA does not promise that order; a block that has polled a peer's slot 1024
// times claims it and computes that segment's (max, sum) itself (decoupled fallback), so
// no wait depends on which blocks are resident. Each slot has a claim: its owner takes it
// when it starts (an atomic whose latency hides behind the loads), a waiting block only when the
// owner has not; exactly one of them publishes the slot, so every block of the row combines the
// same partials, and a claimed segment's input is read before any output of the row is written
// (in-place use stays safe). SMEM_CHUNKS (> 0, with PERSISTENT 0 only): each thread
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

// A plain (coherent) load of one element as float: the fallback reads another block's segment.
template <typename T>
__device__ __forceinline__ float ld_float(const T* p) {
  if constexpr (elem<T>::bits == 32) return *reinterpret_cast<const float*>(p);
  else return elem<T>::to_float(*reinterpret_cast<const unsigned short*>(p));
}

// Polls of a peer's slot (each at least a 20 ns sleep and an L2 round trip: 0.1-1 ms in all)
// before a PERSISTENT 0 block gives up waiting and claims what it can: far beyond any wait of a
// healthy launch, so the fallback costs nothing unless blocks really start out of order or a
// peer cannot be resident (and a merely slow launch that reaches it only reads more).
inline constexpr unsigned split_row_fallback_polls = 1024;

}  // namespace detail

// FALLBACK_POLLS: split_row_fallback_polls everywhere but in a test, which forces the fallback
// by giving up at once (0).
template <typename T, int VEC, int BLOCK_THREADS, int CHUNKS, int PERSISTENT = 1, int SMEM_CHUNKS = 0,
          unsigned FALLBACK_POLLS = detail::split_row_fallback_polls>
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
  // PERSISTENT 0: the claims of the group's slots, after all slots (split_workspace.hpp).
  static __device__ __forceinline__ unsigned* claims(const group_t& g) {
    return g.slots + 4ll * g.groups * g.splits + 4ll * (static_cast<long long>(g.index) * g.splits);
  }
  // Takes claim j for this launch; true unless it was taken already. A claim is the second word
  // of a 16-byte cell, where every layout of this workspace keeps tags or zeros: it never holds
  // this launch's tag before this launch writes it (see split_workspace.hpp). A 32-bit atomic:
  // the exchange's width, not where it is issued, is what a wider claim costs (lab/JOURNAL.md).
  static __device__ __forceinline__ bool claim(const group_t& g, int j) {
    return atomicExch(claims(g) + 4 * j + 1, g.tag) != g.tag;
  }

  // Phase 1: this block's (max, sum) (of the threads' `mine`) goes to its slot, tagged with the
  // row iteration; not when another block has claimed the slot (`store` false, thread 0's).
  static __device__ __forceinline__ void publish(detail::stats mine, const group_t& g,
                                                 scratch_t& scratch, int parity, bool store = true) {
    mine = detail::block_reduce<BLOCK_THREADS>(mine, scratch, parity);
    if (threadIdx.x == 0 && store) detail::st_slot(slots(g, parity) + 4 * g.split, mine, g.tag);
  }

  // Phase 2, warp 0: waits until every slot of the group carries the tag and combines them into
  // result[parity]; help = 0. FALLBACK (PERSISTENT 0): gives up after FALLBACK_POLLS
  // polls of a missing slot instead, with help = 1.
  template <bool FALLBACK>
  static __device__ __forceinline__ void poll(const group_t& g, int parity, float2 (&result)[2],
                                              unsigned& help) {
    const unsigned* p = slots(g, parity);
    detail::stats r{detail::neg_inf(), 0.f};
    for (int j0 = 0; j0 < g.splits; j0 += 32) {
      const int j = j0 + static_cast<int>(threadIdx.x);
      detail::stats v{detail::neg_inf(), 0.f};
      bool ok = j >= g.splits || detail::ld_slot(p + 4 * j, g.tag, v);
      for (unsigned polls = 0; !__all_sync(0xffffffffu, ok); ++polls) {
        if (FALLBACK && polls == FALLBACK_POLLS) {
          if (threadIdx.x == 0) help = 1;
          return;
        }
        __nanosleep(20);
        if (!ok) ok = detail::ld_slot(p + 4 * j, g.tag, v);
      }
      r = detail::combine(r, v);
    }
    r = detail::warp_reduce<32>(r);
    if (threadIdx.x == 0) result[parity] = make_float2(r.m, r.s), help = 0;
  }

  // The row's (max, sum), back to every thread. Slots alternate by parity: a block cannot
  // publish row i+2 before every block of its group has published row i+1, which each does only
  // after it has read the slots of row i.
  static __device__ __forceinline__ detail::stats meet(group_t& g, int parity, float2 (&result)[2]) {
    unsigned unused;
    if (threadIdx.x < 32) poll<false>(g, parity, result, unused);
    __syncthreads();
    const float2 r = result[parity];
    ++g.tag;
    return {r.x, r.y};
  }

  // PERSISTENT 0: meet; each time warp 0 gives up waiting, the block claims and publishes what
  // it can (rescue) and waits again.
  static __device__ __forceinline__ detail::stats meet_or_help(const softmax_args& a, group_t& g,
                                                               float2 (&result)[2], scratch_t& scratch,
                                                               unsigned (&help)[2]) {
    for (;;) {
      if (threadIdx.x < 32) poll<true>(g, 0, result, help[0]);
      __syncthreads();
      if (help[0] == 0) break;
      rescue(a, g, scratch, help);
    }
    const float2 r = result[0];
    return {r.x, r.y};
  }

  // The fallback: for each run of 32 slots, warp 0 claims the missing ones whose owners have not
  // claimed them (their claimants, owners or other waiting blocks, publish the rest without
  // waiting), and the block computes each claimed segment's (max, sum) from global memory (two
  // passes, as local_stats does per thread) and publishes it. Every thread reads help[1] before
  // the barrier that precedes its next write (and help[0]'s, by warp 0's next poll). A segment
  // is the columns its owner holds: on a row that starts off the vector size, every segment
  // begins layout.head columns early (row_layout), so a rescue sums exactly the owner's columns.
  static __device__ __forceinline__ void rescue(const softmax_args& a, const group_t& g,
                                                scratch_t& scratch, unsigned (&help)[2]) {
    const where w = locate(a, g, g.index);
    int parity = 0;
    for (int j0 = 0; j0 < g.splits; j0 += 32) {
      if (threadIdx.x < 32) {
        const int j = j0 + static_cast<int>(threadIdx.x);
        detail::stats v;
        const bool won = j < g.splits && !detail::ld_slot(slots(g, 0) + 4 * j, g.tag, v) &&
                         claim(g, j);
        const unsigned mask = __ballot_sync(0xffffffffu, won);
        if (threadIdx.x == 0) help[1] = mask;
      }
      __syncthreads();
      for (unsigned mask = help[1]; mask != 0; mask &= mask - 1, parity ^= 1) {
        const int j = j0 + __ffs(static_cast<int>(mask)) - 1;
        const long long first = static_cast<long long>(j) * cols_per_block - w.layout.head;
        const long long begin = first > 0 ? first : 0;
        const long long end = first + cols_per_block < a.cols ? first + cols_per_block : a.cols;
        const T* seg = w.in + begin;
        const int len = static_cast<int>(end - begin);  // <= cols_per_block < 2^31
        float m = detail::neg_inf();
        for (int k = threadIdx.x; k < len; k += BLOCK_THREADS) m = fmaxf(m, detail::ld_float(seg + k));
        m *= detail::log2e;
        const float ms = m == detail::neg_inf() ? 0.f : m;
        float sum = 0.f;
        for (int k = threadIdx.x; k < len; k += BLOCK_THREADS)
          sum += detail::fast_exp2(fmaf(detail::ld_float(seg + k), detail::log2e, -ms));
        const detail::stats r = detail::block_reduce<BLOCK_THREADS>({m, sum}, scratch, parity);
        if (threadIdx.x == 0) detail::st_slot(slots(g, 0) + 4 * j, r, g.tag);
      }
      __syncthreads();
    }
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
    else run_per_segment(a);
  }

  // One segment of one row: segment blockIdx.x % SPLITS of row blockIdx.x / SPLITS; slots are
  // per row (groups == rows), tag epoch + 1. The loads go first: the claim's atomic returns while
  // they are in flight.
  static __device__ void run_per_segment(const softmax_args& a) {
    __shared__ scratch_t scratch;
    __shared__ float2 result[2];
    __shared__ unsigned help[2];
    group_t g;
    g.header = static_cast<unsigned*>(a.workspace);
    g.slots = reinterpret_cast<unsigned*>(static_cast<char*>(a.workspace) + split_row_header_bytes);
    const unsigned epoch = detail::ld_relaxed(g.header);
    g.splits = static_cast<int>((a.cols + cols_per_block - 1) / cols_per_block);
    g.groups = static_cast<int>(a.rows);
    g.index = static_cast<int>(blockIdx.x / static_cast<unsigned>(g.splits));
    g.split = static_cast<int>(blockIdx.x % static_cast<unsigned>(g.splits));
    g.begin = static_cast<long long>(g.split) * cols_per_block;
    g.tag = epoch + 1u;
    const where w = locate(a, g, g.index);
    tile_t t0;
    bool owner = false;  // thread 0's: this block, not a waiting peer, publishes its slot
    if constexpr (SMEM_CHUNKS > 0) {  // the shared part's copies first: all loads in flight together
      const smem_t s(static_cast<unsigned>(__cvta_generic_to_shared(detail::dynamic_smem)));
      s.load(w.in, g.begin + cols_in_registers, a.cols, w.layout, threadIdx.x);
      t0.load(w.in, g.begin, a.cols, w.layout, threadIdx.x);
      if (threadIdx.x == 0) owner = claim(g, g.split);
      smem_t::wait();
      publish(detail::combine(t0.local_stats(), s.local_stats(threadIdx.x)), g, scratch, 0, owner);
      const detail::stats r = meet_or_help(a, g, result, scratch, help);
      finish(g, epoch, 1);  // before the stores: see finish
      t0.store(w.out, g.begin, a.cols, w.layout, threadIdx.x, r);
      s.store(w.out, g.begin + cols_in_registers, a.cols, w.layout, threadIdx.x, r);
    } else {
      t0.load(w.in, g.begin, a.cols, w.layout, threadIdx.x);
      if (threadIdx.x == 0) owner = claim(g, g.split);
      publish(t0.local_stats(), g, scratch, 0, owner);
      const detail::stats r = meet_or_help(a, g, result, scratch, help);
      finish(g, epoch, 1);
      t0.store(w.out, g.begin, a.cols, w.layout, threadIdx.x, r);
    }
  }

  // The last block to finish moves the epoch past every tag of this launch (all blocks read
  // the epoch before they arrive here: the arrival is a release) and resets the counter.
  // A PERSISTENT 0 block arrives as soon as its meet is done, before its output stores: it touches
  // the workspace no more, and its release fence then waits for few outstanding writes. Arriving
  // after the stores would keep every block resident, its SM slot taken, until thread 0's stores
  // had drained; that costs most where one block fills an SM.
  static __device__ __forceinline__ void finish(const group_t& g, unsigned epoch, long long iterations) {
    if (threadIdx.x == 0) {
      if (detail::atom_add_acq_rel(g.header + 1, 1) == gridDim.x - 1) {
        detail::st_relaxed(g.header + 1, 0);
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
