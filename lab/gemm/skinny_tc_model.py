"""A model of kernels/include/cuop/kernels/gemm/skinny_tc.cuh's indexing, for changing the kernel
without a GPU: every lane's loads (16-byte vectors and the tail's zero-filled ones, rows and
columns past M and N clamped), the m16n8k16 fragment layouts of the PTX ISA (as
common/mma_sync.cuh states them), the warps' partials, the block's sum and the split over K.
Integer values, so D must equal A B^T exactly. Mirror a change of the kernel here first.
usage: python3 lab/gemm/skinny_tc_model.py [SEED] [CASES]"""
import numpy as np, random, sys

def run(m, n, k, lda, ldb, BLOCK_N, THREADS, M_TILE, K_CHUNK, SPLIT_K, vec, rng):
    A = rng.integers(-3, 4, size=(m, lda)).astype(np.float64)
    B = rng.integers(-3, 4, size=(n, ldb)).astype(np.float64)
    warps = THREADS // 32
    col_tiles = BLOCK_N // 16
    groups = min(col_tiles, warps)
    gw = warps // groups
    ct = col_tiles // groups
    rt = M_TILE // 8
    vecs = K_CHUNK // 8
    warp_k = 32 * vecs
    step_k = warp_k * gw
    D = np.zeros((m, n))
    gx = -(-n // BLOCK_N); gy = -(-m // M_TILE)
    part = {}
    for bz in range(SPLIT_K):
      for by in range(gy):
        for bx in range(gx):
          m0 = by * M_TILE; n0 = bx * BLOCK_N
          if SPLIT_K == 1: kb, ke = 0, k
          else:
            sl = ((k + SPLIT_K - 1) // SPLIT_K + 7) // 8 * 8
            kb = min(sl * bz, k); ke = min(sl * bz + sl, k)
          red = np.zeros((gw, M_TILE * BLOCK_N))
          for warp in range(warps):
            group, sub = warp // gw, warp % gw
            acc = np.zeros((ct, rt, 32, 4))
            # per lane pointers (row indices)
            def brow(lane, j, h):
              g = lane >> 2
              nn = n0 + (group * ct + j) * 16 + g + 8 * h
              return min(nn, n - 1)
            def arow(lane, r):
              g = lane >> 2
              return min(m0 + r * 8 + g, m - 1)
            def ld(M, row, kk, valid=8):
              out = np.zeros(8)
              for e in range(8):
                if e < valid: out[e] = M[row, kk + e]
              return out
            def mma_chunk(w0, w1, x, accv):
              # w0,w1,x: [32][8] element values per lane; regs are pairs of elements
              def reg(v, i): return v[2 * i: 2 * i + 2]
              Af = np.zeros((16, 16)); Bf = np.zeros((16, 8))
              for half in range(2):  # lo / hi k16 step
                base = 0 if half == 0 else 2
                for lane in range(32):
                  g, q = lane >> 2, lane & 3
                  a_regs = [reg(w0[lane], base), reg(w1[lane], base), reg(w0[lane], base + 1), reg(w1[lane], base + 1)]
                  b_regs = [reg(x[lane], base), reg(x[lane], base + 1)]
                  for ri, (row_off, kof) in enumerate([(0, 0), (8, 0), (0, 8), (8, 8)]):
                    Af[g + row_off, 2 * q + kof: 2 * q + kof + 2] = a_regs[ri]
                  for ri, kof in enumerate([0, 8]):
                    Bf[2 * q + kof: 2 * q + kof + 2, g] = b_regs[ri]
                Dm = Af @ Bf
                for lane in range(32):
                  g, q = lane >> 2, lane & 3
                  accv[lane, 0] += Dm[g, 2 * q]; accv[lane, 1] += Dm[g, 2 * q + 1]
                  accv[lane, 2] += Dm[g + 8, 2 * q]; accv[lane, 3] += Dm[g + 8, 2 * q + 1]
            def each_chunk(chunk):
              while chunk < ke:
                xs = [[None] * 32 for _ in range(rt)]
                ws = [[[None] * 32 for _ in range(2)] for _ in range(ct)]
                for lane in range(32):
                  q = lane & 3
                  kk = chunk + 8 * q
                  valid = 0 if ke - kk < 0 else min(ke - kk, 8)
                  for r in range(rt): xs[r][lane] = ld(A, arow(lane, r), kk, valid)
                  for j in range(ct):
                    for h in range(2): ws[j][h][lane] = ld(B, brow(lane, j, h), kk, valid)
                for j in range(ct):
                  for r in range(rt): mma_chunk(ws[j][0], ws[j][1], xs[r], acc[j, r])
                chunk += 32 * gw
            if not vec:
              each_chunk(kb + sub * 32)
            else:
              s = kb
              while s + step_k <= ke:
                for c in range(vecs):
                  ws = [[[ld(B, brow(l, j, h), s + sub * warp_k + 8 * (l & 3) + c * 32) for l in range(32)] for h in range(2)] for j in range(ct)]
                  xs = [[ld(A, arow(l, r), s + sub * warp_k + 8 * (l & 3) + c * 32) for l in range(32)] for r in range(rt)]
                  for j in range(ct):
                    for r in range(rt): mma_chunk(ws[j][0], ws[j][1], xs[r], acc[j, r])
                s += step_k
              each_chunk(s + sub * 32)
            for j in range(ct):
              for r in range(rt):
                for lane in range(32):
                  g, q = lane >> 2, lane & 3
                  for e in range(4):
                    col = (group * ct + j) * 16 + g + 8 * (e >> 1)
                    row = r * 8 + 2 * q + (e & 1)
                    red[sub, row * BLOCK_N + col] += acc[j, r, lane, e]  # += catches double writes too
          tot = red.sum(axis=0)
          for o in range(M_TILE * BLOCK_N):
            mm, nn = m0 + o // BLOCK_N, n0 + o % BLOCK_N
            if mm < m and nn < n: D[mm, nn] += tot[o]
    ref = A[:, :k] @ B[:, :k].T
    return np.array_equal(D, ref)

rng = np.random.default_rng(1)
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
bad = 0
cases = 0
for it in range(int(sys.argv[2]) if len(sys.argv) > 2 else 40):
    warps = random.choice([1, 2, 4, 8])
    col_tiles = random.choice([d for d in [1, 2, 4, 8] if d % warps == 0 or warps % d == 0])
    cfg = dict(BLOCK_N=16 * col_tiles, THREADS=32 * warps, M_TILE=random.choice([8, 16, 24, 32]),
               K_CHUNK=random.choice([8, 16, 32]), SPLIT_K=random.choice([1, 1, 2, 3]))
    m = random.randint(1, 40); n = random.randint(1, 70); k = random.choice([random.randint(1, 300), random.randint(500, 2500)])
    vec = random.random() < 0.7
    lda = k + (0 if vec else random.randint(0, 3)); ldb = k + random.randint(0, 2)
    if vec: lda = (k + 7) // 8 * 8; ldb = (k + 7) // 8 * 8
    ok = run(m, n, k, lda, ldb, vec=vec, rng=rng, **cfg)
    cases += 1
    if not ok:
        bad += 1; print('MISMATCH', m, n, k, lda, ldb, vec, cfg)
print(cases, 'cases', bad, 'mismatches')
