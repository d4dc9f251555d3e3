// Moduco plugin solver-pgs: the dense AR + R of PGS (A = B B' in 4 x 4 tiles) and its sweep, with
// kernels for plain C, SSE2 and AVX (chosen at run time) that give bitwise the same numbers: each
// sum has one fixed order of the same products, and no kernel fuses a multiply with an add.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PGS_X86 1
#endif

#include "pgs_dual.h"
#include "solver_internal.h"

#if defined(PGS_X86) && defined(__SSE2__)
#define PGS_HAVE_SSE2 1
#endif
#if defined(PGS_HAVE_SSE2) && defined(__GNUC__)
#define PGS_HAVE_AVX 1
#define PGS_AVX __attribute__((target("avx")))
#endif


//---------------------------------- lane dot ------------------------------------------------------

// four lanes, lane k over the indices i = k mod 4, then (s0 + s1) + (s2 + s3)
static inline mcNum dotPortable(const mcNum* a, const mcNum* b, int n) {
  mcNum s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int i = 0; i < n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  return (s0 + s1) + (s2 + s3);
}


#ifdef PGS_HAVE_SSE2
// (s0 + s1, s2 + s3) of the lanes in lo = (s0, s1), hi = (s2, s3), then their sum
static inline mcNum laneSum(__m128d lo, __m128d hi) {
  __m128d t = _mm_add_pd(_mm_unpacklo_pd(lo, hi), _mm_unpackhi_pd(lo, hi));
  return _mm_cvtsd_f64(t) + _mm_cvtsd_f64(_mm_unpackhi_pd(t, t));
}


// lanes 0, 1 in one register and 2, 3 in another
static inline mcNum dotSse2(const mcNum* a, const mcNum* b, int n) {
  __m128d s01 = _mm_setzero_pd(), s23 = _mm_setzero_pd();
  for (int i = 0; i < n; i += 4) {
    s01 = _mm_add_pd(s01, _mm_mul_pd(_mm_load_pd(a + i), _mm_load_pd(b + i)));
    s23 = _mm_add_pd(s23, _mm_mul_pd(_mm_load_pd(a + i + 2), _mm_load_pd(b + i + 2)));
  }
  return laneSum(s01, s23);
}
#endif


#ifdef PGS_HAVE_AVX
// the four lanes in one register (two steps per pass of the loop, in order)
PGS_AVX static inline mcNum dotAvx(const mcNum* a, const mcNum* b, int n) {
  __m256d s = _mm256_setzero_pd();
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_load_pd(a + i), _mm256_load_pd(b + i)));
    s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_load_pd(a + i + 4), _mm256_load_pd(b + i + 4)));
  }
  if (i < n) {
    s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_load_pd(a + i), _mm256_load_pd(b + i)));
  }
  __m256d h = _mm256_hadd_pd(s, s);                // (s0 + s1, s0 + s1, s2 + s3, s2 + s3)
  return _mm_cvtsd_f64(_mm_add_sd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1)));
}
#endif


//---------------------------------- stores of the swept forces ------------------------------------

// f[p] = v. A load wider than the store before it (the dot's vector loads after a scalar store of
// one force) cannot take its value from the store and waits until the store has left the core;
// so the SSE2 and AVX sweeps write the whole pair or block of four that the dot loads
static inline void storePortable(mcNum* f, int p, mcNum v) {
  f[p] = v;
}


#ifdef PGS_HAVE_SSE2
static inline void storeSse2(mcNum* f, int p, mcNum v) {
  mcNum* q = f + (p & ~1);
  __m128d pair = _mm_load_pd(q), x = _mm_set_sd(v);
  _mm_store_pd(q, p & 1 ? _mm_unpacklo_pd(pair, x) : _mm_move_sd(pair, x));
}
#endif


#ifdef PGS_HAVE_AVX
// the lanes are merged with and, and-not and or: gcc reads a blendv as a lane-wise condition on
// 64-bit integers, which AVX without AVX2 cannot compare, and makes four branches of it
PGS_AVX static inline void storeAvx(mcNum* f, int p, mcNum v) {
  static const long long kLane[4][4] = {{-1, 0, 0, 0}, {0, -1, 0, 0}, {0, 0, -1, 0}, {0, 0, 0, -1}};
  mcNum* q = f + (p & ~3);
  __m256d lane = _mm256_castsi256_pd(_mm256_loadu_si256((const __m256i*)kLane[p & 3]));
  __m256d keep = _mm256_andnot_pd(lane, _mm256_load_pd(q));
  _mm256_store_pd(q, _mm256_or_pd(keep, _mm256_and_pd(lane, _mm256_set1_pd(v))));
}
#endif


//---------------------------------- statistics of a sweep -----------------------------------------

// set bits of a 4-bit mask
static const unsigned char kBits[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

static void countPortable(const mcNum* old, const mcNum* f, int n, int* nchange, int* nactive) {
  int change = 0, active = 0;
  for (int i = 0; i < n; i++) {
    change += (old[i] > 0) != (f[i] > 0);
    active += f[i] != 0;
  }
  *nchange = change;
  *nactive = active;
}


#ifdef PGS_HAVE_SSE2
static void countSse2(const mcNum* old, const mcNum* f, int n, int* nchange, int* nactive) {
  __m128d zero = _mm_setzero_pd();
  int change = 0, active = 0;
  for (int i = 0; i < n; i += 2) {
    __m128d o = _mm_load_pd(old + i), x = _mm_load_pd(f + i);
    change += kBits[_mm_movemask_pd(_mm_xor_pd(_mm_cmpgt_pd(o, zero), _mm_cmpgt_pd(x, zero)))];
    active += kBits[_mm_movemask_pd(_mm_cmpneq_pd(x, zero))];
  }
  *nchange = change;
  *nactive = active;
}
#endif


#ifdef PGS_HAVE_AVX
PGS_AVX static void countAvx(const mcNum* old, const mcNum* f, int n, int* nchange,
                             int* nactive) {
  __m256d zero = _mm256_setzero_pd();
  int change = 0, active = 0;
  for (int i = 0; i < n; i += 4) {
    __m256d o = _mm256_load_pd(old + i), x = _mm256_load_pd(f + i);
    __m256d sign = _mm256_xor_pd(_mm256_cmp_pd(o, zero, _CMP_GT_OQ),
                                 _mm256_cmp_pd(x, zero, _CMP_GT_OQ));
    change += kBits[_mm256_movemask_pd(sign)];
    active += kBits[_mm256_movemask_pd(_mm256_cmp_pd(x, zero, _CMP_NEQ_UQ))];
  }
  *nchange = change;
  *nactive = active;
}
#endif


//---------------------------------- A = B B' ------------------------------------------------------

// the lowest dof of a non-zero mask word, taken off the word
static inline int nextDof(uint64_t* bits) {
  uint64_t b = *bits;
  *bits = b & (b - 1);
#ifdef __GNUC__
  return __builtin_ctzll(b);
#else
  int k = 0;
  for (; !(b & 1); b >>= 1) {
    k++;
  }
  return k;
#endif
}


// the 4 x 4 tile of rows i..i+3, columns j..j+3: sum over k ascending of BT_k,i+r BT_k,j+c, over
// the dofs k of both masks (mi, mj: nw words)
static void tilePortable(const mcNum* BT, int ld, int i, int j, const uint64_t* mi,
                         const uint64_t* mj, int nw, mcNum* t) {
  mcNum acc[16] = {0};
  for (int w = 0; w < nw; w++) {
    for (uint64_t bits = mi[w] & mj[w]; bits;) {
      const mcNum* bk = BT + (size_t)(64 * w + nextDof(&bits)) * ld;
      for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 4; c++) {
          acc[4 * r + c] += bk[i + r] * bk[j + c];
        }
      }
    }
  }
  memcpy(t, acc, sizeof(acc));
}


#ifdef PGS_HAVE_SSE2
static void tileSse2(const mcNum* BT, int ld, int i, int j, const uint64_t* mi,
                     const uint64_t* mj, int nw, mcNum* t) {
  __m128d a0 = _mm_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  for (int w = 0; w < nw; w++) {
    for (uint64_t bits = mi[w] & mj[w]; bits;) {
      const mcNum* bk = BT + (size_t)(64 * w + nextDof(&bits)) * ld;
      __m128d c01 = _mm_load_pd(bk + j), c23 = _mm_load_pd(bk + j + 2);
      __m128d x = _mm_set1_pd(bk[i]);
      a0 = _mm_add_pd(a0, _mm_mul_pd(x, c01));
      a1 = _mm_add_pd(a1, _mm_mul_pd(x, c23));
      x = _mm_set1_pd(bk[i + 1]);
      a2 = _mm_add_pd(a2, _mm_mul_pd(x, c01));
      a3 = _mm_add_pd(a3, _mm_mul_pd(x, c23));
      x = _mm_set1_pd(bk[i + 2]);
      a4 = _mm_add_pd(a4, _mm_mul_pd(x, c01));
      a5 = _mm_add_pd(a5, _mm_mul_pd(x, c23));
      x = _mm_set1_pd(bk[i + 3]);
      a6 = _mm_add_pd(a6, _mm_mul_pd(x, c01));
      a7 = _mm_add_pd(a7, _mm_mul_pd(x, c23));
    }
  }
  _mm_storeu_pd(t, a0);
  _mm_storeu_pd(t + 2, a1);
  _mm_storeu_pd(t + 4, a2);
  _mm_storeu_pd(t + 6, a3);
  _mm_storeu_pd(t + 8, a4);
  _mm_storeu_pd(t + 10, a5);
  _mm_storeu_pd(t + 12, a6);
  _mm_storeu_pd(t + 14, a7);
}
#endif


#ifdef PGS_HAVE_AVX
PGS_AVX static void tileAvx(const mcNum* BT, int ld, int i, int j, const uint64_t* mi,
                            const uint64_t* mj, int nw, mcNum* t) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  for (int w = 0; w < nw; w++) {
    for (uint64_t bits = mi[w] & mj[w]; bits;) {
      const mcNum* bk = BT + (size_t)(64 * w + nextDof(&bits)) * ld;
      __m256d c = _mm256_load_pd(bk + j);
      a0 = _mm256_add_pd(a0, _mm256_mul_pd(_mm256_broadcast_sd(bk + i), c));
      a1 = _mm256_add_pd(a1, _mm256_mul_pd(_mm256_broadcast_sd(bk + i + 1), c));
      a2 = _mm256_add_pd(a2, _mm256_mul_pd(_mm256_broadcast_sd(bk + i + 2), c));
      a3 = _mm256_add_pd(a3, _mm256_mul_pd(_mm256_broadcast_sd(bk + i + 3), c));
    }
  }
  _mm256_storeu_pd(t, a0);
  _mm256_storeu_pd(t + 4, a1);
  _mm256_storeu_pd(t + 8, a2);
  _mm256_storeu_pd(t + 12, a3);
}
#endif


void pgs_productBBT(const mcNum* BT, int nv, int ld, const uint64_t* mask, mcNum* A, PgsIsa isa) {
  int nw = pgs_maskWords(nv);
  mcNum t[16];
  for (int i = 0; i < ld; i += 4) {
    const uint64_t* mi = mask + (size_t)(i / 4) * nw;
    for (int j = 0; j <= i; j += 4) {
      const uint64_t* mj = mask + (size_t)(j / 4) * nw;
      switch (isa) {
#ifdef PGS_HAVE_AVX
      case PGS_ISA_AVX:
        tileAvx(BT, ld, i, j, mi, mj, nw, t);
        break;
#endif
#ifdef PGS_HAVE_SSE2
      case PGS_ISA_SSE2:
        tileSse2(BT, ld, i, j, mi, mj, nw, t);
        break;
#endif
      default:
        tilePortable(BT, ld, i, j, mi, mj, nw, t);
      }

      // the tile and its mirror (a diagonal tile is symmetric: x y and y x are the same number)
      for (int r = 0; r < 4; r++) {
        memcpy(A + (size_t)(i + r) * ld + j, t + 4 * r, sizeof(mcNum) * 4);
        for (int c = 0; c < 4 && j < i; c++) {
          A[(size_t)(j + c) * ld + i + r] = t[4 * r + c];
        }
      }
    }
  }
}


// x = x inv(L') on four interleaved rows of B (x: nv x 4, the four entries of a dof side by
// side), from the leaves up: dof k updates its ancestors a by x_a -= L_ka x_k. A dof where all four
// rows are zero is skipped; a row that is zero there while another is not takes an update by
// L * 0, which changes no value of B B' (only the sign of a zero in B). Every entry takes the same
// operations as solver-common's makeBT (noslip's): the same B. The dofs not skipped (x_k is final
// when k is reached: its descendants come after it) are set in mask (zeroed by the caller).
static void walkPortable(const mcModel* m, const mcNum* LD, mcNum* x, uint64_t* mask) {
  for (int k = m->nv - 1; k >= 0; k--) {
    const mcNum* xk = x + 4 * k;
    if (xk[0] == 0 && xk[1] == 0 && xk[2] == 0 && xk[3] == 0) {
      continue;
    }
    mask[k >> 6] |= (uint64_t)1 << (k & 63);
    int adr = m->dof_Madr[k] + 1;
    for (int a = m->dof_parentid[k]; a >= 0; a = m->dof_parentid[a]) {
      mcNum l = LD[adr++];
      mcNum* xa = x + 4 * a;
      for (int r = 0; r < 4; r++) {
        xa[r] -= l * xk[r];
      }
    }
  }
}


#ifdef PGS_HAVE_SSE2
static void walkSse2(const mcModel* m, const mcNum* LD, mcNum* x, uint64_t* mask) {
  __m128d zero = _mm_setzero_pd();
  for (int k = m->nv - 1; k >= 0; k--) {
    __m128d k01 = _mm_load_pd(x + 4 * k), k23 = _mm_load_pd(x + 4 * k + 2);
    if (!_mm_movemask_pd(_mm_or_pd(_mm_cmpneq_pd(k01, zero), _mm_cmpneq_pd(k23, zero)))) {
      continue;
    }
    mask[k >> 6] |= (uint64_t)1 << (k & 63);
    int adr = m->dof_Madr[k] + 1;
    for (int a = m->dof_parentid[k]; a >= 0; a = m->dof_parentid[a]) {
      __m128d l = _mm_set1_pd(LD[adr++]);
      mcNum* xa = x + 4 * a;
      _mm_store_pd(xa, _mm_sub_pd(_mm_load_pd(xa), _mm_mul_pd(l, k01)));
      _mm_store_pd(xa + 2, _mm_sub_pd(_mm_load_pd(xa + 2), _mm_mul_pd(l, k23)));
    }
  }
}
#endif


#ifdef PGS_HAVE_AVX
PGS_AVX static void walkAvx(const mcModel* m, const mcNum* LD, mcNum* x, uint64_t* mask) {
  __m256d zero = _mm256_setzero_pd();
  for (int k = m->nv - 1; k >= 0; k--) {
    __m256d xk = _mm256_load_pd(x + 4 * k);
    if (!_mm256_movemask_pd(_mm256_cmp_pd(xk, zero, _CMP_NEQ_UQ))) {
      continue;
    }
    mask[k >> 6] |= (uint64_t)1 << (k & 63);
    int adr = m->dof_Madr[k] + 1;
    for (int a = m->dof_parentid[k]; a >= 0; a = m->dof_parentid[a]) {
      __m256d l = _mm256_broadcast_sd(LD + adr++);
      mcNum* xa = x + 4 * a;
      _mm256_store_pd(xa, _mm256_sub_pd(_mm256_load_pd(xa), _mm256_mul_pd(l, xk)));
    }
  }
}
#endif


#ifdef PGS_HAVE_AVX
// x[4 k + r] = J_r[k] for four rows of a dense J (four dofs per pass, transposed in registers)
PGS_AVX static void interleaveAvx(const mcNum* J0, const mcNum* J1, const mcNum* J2,
                                  const mcNum* J3, int nv, mcNum* x) {
  int k = 0;
  for (; k + 4 <= nv; k += 4) {
    __m256d r0 = _mm256_loadu_pd(J0 + k), r1 = _mm256_loadu_pd(J1 + k);
    __m256d r2 = _mm256_loadu_pd(J2 + k), r3 = _mm256_loadu_pd(J3 + k);
    __m256d e01 = _mm256_unpacklo_pd(r0, r1), o01 = _mm256_unpackhi_pd(r0, r1);
    __m256d e23 = _mm256_unpacklo_pd(r2, r3), o23 = _mm256_unpackhi_pd(r2, r3);
    mcNum* xk = x + 4 * k;
    _mm256_store_pd(xk, _mm256_permute2f128_pd(e01, e23, 0x20));
    _mm256_store_pd(xk + 4, _mm256_permute2f128_pd(o01, o23, 0x20));
    _mm256_store_pd(xk + 8, _mm256_permute2f128_pd(e01, e23, 0x31));
    _mm256_store_pd(xk + 12, _mm256_permute2f128_pd(o01, o23, 0x31));
  }
  for (; k < nv; k++) {
    _mm256_store_pd(x + 4 * k, _mm256_set_pd(J3[k], J2[k], J1[k], J0[k]));
  }
}
#endif


// x[4 k + r] = J_i0+r[k] for the rows i0..i0+3 (zero past nefc), sparse or dense J
static void fillRows(const mcData* d, int nv, int nefc, int i0, mcNum* x) {
  const int* rownnz = d->efc_J_rownnz;
  memset(x, 0, sizeof(mcNum) * 4 * (size_t)nv);
  for (int r = 0; r < 4 && i0 + r < nefc; r++) {
    int i = i0 + r;
    if (rownnz) {
      const int* col = d->efc_J_colind + d->efc_J_rowadr[i];
      const mcNum* val = d->efc_J_val + d->efc_J_rowadr[i];
      for (int k = 0; k < rownnz[i]; k++) {
        x[4 * col[k] + r] = val[k];
      }
    } else {
      const mcNum* J = d->efc_J + (size_t)i * nv;
      for (int k = 0; k < nv; k++) {
        x[4 * k + r] = J[k];
      }
    }
  }
}


// B' of B = J inv(L) sqrt(inv(D)) (M = L' D L in qLD), nv x ld, so that J inv(M) J' = B B'; the
// rows of padding are zero. Rows of B are made four at a time in x (nv x 4, 32-byte aligned):
// J_i, then inv(L'), then sqrt(inv(D)); with the dof masks of the blocks (pgs_productBBT), and
// BT written at the dofs of its block's mask only (the product reads no other)
static void makeBT(const mcModel* m, const mcData* d, mcNum* BT, int ld, mcNum* x,
                   mcNum* sqrtinv, uint64_t* mask, PgsIsa isa) {
  int nv = m->nv, nefc = d->nefc, nw = pgs_maskWords(nv);
  for (int k = 0; k < nv; k++) {
    sqrtinv[k] = sqrt(d->qLDiagInv[k]);           // sqrt(inv(D)); qLDiagSqrtInv may be stale
  }
  for (int i0 = 0; i0 < ld; i0 += 4) {
    uint64_t* mb = mask + (size_t)(i0 / 4) * nw;
    memset(mb, 0, sizeof(uint64_t) * (size_t)nw);
#ifdef PGS_HAVE_AVX
    if (isa == PGS_ISA_AVX && !d->efc_J_rownnz && i0 + 4 <= nefc) {
      const mcNum* J = d->efc_J + (size_t)i0 * nv;
      interleaveAvx(J, J + nv, J + 2 * (size_t)nv, J + 3 * (size_t)nv, nv, x);
    } else
#endif
    {
      fillRows(d, nv, nefc, i0, x);
    }
    switch (isa) {
#ifdef PGS_HAVE_AVX
    case PGS_ISA_AVX:
      walkAvx(m, d->qLD, x, mb);
      break;
#endif
#ifdef PGS_HAVE_SSE2
    case PGS_ISA_SSE2:
      walkSse2(m, d->qLD, x, mb);
      break;
#endif
    default:
      walkPortable(m, d->qLD, x, mb);
    }
    for (int w = 0; w < nw; w++) {
      for (uint64_t bits = mb[w]; bits;) {
        int k = 64 * w + nextDof(&bits);
        mcNum* bk = BT + (size_t)k * ld + i0;
        for (int r = 0; r < 4; r++) {
          bk[r] = x[4 * k + r] * sqrtinv[k];
        }
      }
    }
  }
}


void pgs_makeDenseAR(const mcModel* m, const mcData* d, mcNum* AR, int ld, mcNum* BT,
                     mcNum* work, uint64_t* mask, mcNum* diaginv, PgsIsa isa) {
  int nv = m->nv, nefc = d->nefc;
  makeBT(m, d, BT, ld, work, work + 4 * (size_t)nv, mask, isa);
  pgs_productBBT(BT, nv, ld, mask, AR, isa);
  for (int i = 0; i < nefc; i++) {
    AR[(size_t)i * ld + i] += d->efc_R[i];
    diaginv[i] = 1 / AR[(size_t)i * ld + i];
  }
  for (int i = nefc; i < ld; i++) {
    diaginv[i] = 0;
  }
}


//---------------------------------- sweeps --------------------------------------------------------

#define PGS_SWEEP sweepPortable
#define PGS_SWEEP_ROWS sweepRowsPortable
#define PGS_SWEEP_ATTR
#define PGS_SWEEP_DOT dotPortable
#define PGS_SWEEP_STORE storePortable
#define PGS_SWEEP_COUNT countPortable
#include "pgs_sweep.inc"
#undef PGS_SWEEP
#undef PGS_SWEEP_ROWS
#undef PGS_SWEEP_ATTR
#undef PGS_SWEEP_DOT
#undef PGS_SWEEP_STORE
#undef PGS_SWEEP_COUNT

#ifdef PGS_HAVE_SSE2
#define PGS_SWEEP sweepSse2
#define PGS_SWEEP_ROWS sweepRowsSse2
#define PGS_SWEEP_ATTR
#define PGS_SWEEP_DOT dotSse2
#define PGS_SWEEP_STORE storeSse2
#define PGS_SWEEP_COUNT countSse2
#include "pgs_sweep.inc"
#undef PGS_SWEEP
#undef PGS_SWEEP_ROWS
#undef PGS_SWEEP_ATTR
#undef PGS_SWEEP_DOT
#undef PGS_SWEEP_STORE
#undef PGS_SWEEP_COUNT
#endif

#ifdef PGS_HAVE_AVX
#define PGS_SWEEP sweepAvx
#define PGS_SWEEP_ROWS sweepRowsAvx
#define PGS_SWEEP_ATTR PGS_AVX
#define PGS_SWEEP_DOT dotAvx
#define PGS_SWEEP_STORE storeAvx
#define PGS_SWEEP_COUNT countAvx
#include "pgs_sweep.inc"
#undef PGS_SWEEP
#undef PGS_SWEEP_ROWS
#undef PGS_SWEEP_ATTR
#undef PGS_SWEEP_DOT
#undef PGS_SWEEP_STORE
#undef PGS_SWEEP_COUNT
#endif


mcNum pgs_sweepDense(const mcData* d, const PgsDual* P, mcNum* f, int* nchange, int* nactive,
                     PgsIsa isa) {
  switch (isa) {
#ifdef PGS_HAVE_AVX
  case PGS_ISA_AVX:
    return sweepAvx(d, P, f, nchange, nactive);
#endif
#ifdef PGS_HAVE_SSE2
  case PGS_ISA_SSE2:
    return sweepSse2(d, P, f, nchange, nactive);
#endif
  default:
    return sweepPortable(d, P, f, nchange, nactive);
  }
}


void pgs_countForces(const mcNum* old, const mcNum* f, int n, int* nchange, int* nactive,
                     PgsIsa isa) {
  switch (isa) {
#ifdef PGS_HAVE_AVX
  case PGS_ISA_AVX:
    countAvx(old, f, n, nchange, nactive);
    return;
#endif
#ifdef PGS_HAVE_SSE2
  case PGS_ISA_SSE2:
    countSse2(old, f, n, nchange, nactive);
    return;
#endif
  default:
    countPortable(old, f, n, nchange, nactive);
  }
}


mcNum pgs_dot(const mcNum* a, const mcNum* b, int n, PgsIsa isa) {
  switch (isa) {
#ifdef PGS_HAVE_AVX
  case PGS_ISA_AVX:
    return dotAvx(a, b, n);
#endif
#ifdef PGS_HAVE_SSE2
  case PGS_ISA_SSE2:
    return dotSse2(a, b, n);
#endif
  default:
    return dotPortable(a, b, n);
  }
}


//---------------------------------- instruction set -----------------------------------------------

int pgs_isaAvailable(PgsIsa isa) {
  switch (isa) {
  case PGS_ISA_PORTABLE:
    return 1;
#ifdef PGS_HAVE_SSE2
  case PGS_ISA_SSE2:
    return 1;
#endif
#ifdef PGS_HAVE_AVX
  case PGS_ISA_AVX:
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") != 0;
#endif
  default:
    return 0;
  }
}


PgsIsa pgs_isaSelect(void) {
  static const char* const kName[PGS_ISA_COUNT] = {"portable", "sse2", "avx"};
  const char* want = getenv("MODUCO_PGS_ISA");
  for (int isa = 0; want && isa < PGS_ISA_COUNT; isa++) {
    if (strcmp(want, kName[isa]) == 0 && pgs_isaAvailable((PgsIsa)isa)) {
      return (PgsIsa)isa;
    }
  }
  for (int isa = PGS_ISA_COUNT - 1; isa > 0; isa--) {
    if (pgs_isaAvailable((PgsIsa)isa)) {
      return (PgsIsa)isa;
    }
  }
  return PGS_ISA_PORTABLE;
}
