// The dense kernels of the PGS plugin (plugins/solver-pgs/pgs_dense.c): every instruction set
// the machine runs (plain C, SSE2, AVX chosen at run time) must give bitwise the same numbers as
// the orders written down here: the lane dot of the sweep, the tiled A = B B' (bitwise the plain
// sum over the dofs in order, the product of earlier sessions), the whole dense AR + R from J and
// the factor of M (bitwise the plain row-by-row product), and whole sweeps.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgs_dual.h"

#define NMAX 64
#define NVMAX 70

// deterministic pseudo-random numbers of mixed magnitude (xorshift64*): [-1, 1) scaled by
// 2^(-20..20), with exact zeros and negative zeros now and then
static double rnd(unsigned long long* s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  unsigned long long r = *s * 2685821657736338717ull;
  if ((r >> 59) == 0) {
    return (r >> 58) & 1 ? 0.0 : -0.0;
  }
  double v = (double)(r >> 11 & 0xfffffffffull) / 34359738368.0 * 2 - 1;
  return ldexp(v, (int)(r >> 48 & 0xff) % 41 - 20);
}


static int same(double a, double b) {
  return memcmp(&a, &b, sizeof(double)) == 0;
}


// four lanes over i = k mod 4 in ascending order, then (s0 + s1) + (s2 + s3)
static double laneDot(const double* a, const double* b, int n) {
  double s[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; i++) {
    s[i % 4] += a[i] * b[i];
  }
  return (s[0] + s[1]) + (s[2] + s[3]);
}


Test(pgs_dense, lane_dot_every_instruction_set) {
  _Alignas(32) double a[NMAX], b[NMAX];
  unsigned long long seed = 7;
  int tested = 0;
  for (int trial = 0; trial < 300; trial++) {
    for (int n = 0; n <= NMAX; n += 4) {
      for (int k = 0; k < n; k++) {
        a[k] = rnd(&seed);
        b[k] = rnd(&seed);
      }
      double want = laneDot(a, b, n);
      for (int isa = 0; isa < PGS_ISA_COUNT; isa++) {
        if (!pgs_isaAvailable((PgsIsa)isa)) {
          continue;
        }
        double got = pgs_dot(a, b, n, (PgsIsa)isa);
        cr_assert(same(got, want), "isa %d n %d trial %d: %.17g against %.17g", isa, n, trial,
                  got, want);
        tested++;
      }
    }
  }
  cr_assert_gt(tested, 300 * 17);
}


// B' (nv x ld) with zero columns past nefc, zero entries and whole zero dofs now and then
static void randomBT(unsigned long long* seed, double* BT, int nv, int nefc, int ld) {
  for (int k = 0; k < nv; k++) {
    int zerodof = *seed % 7 == 0;                   // a dof no row depends on
    for (int i = 0; i < ld; i++) {
      BT[k * ld + i] = i < nefc && !zerodof ? rnd(seed) : 0.0;
    }
  }
}


// the plain product: A_ij summed over the non-zeros of column i of BT in dof order
static double plainEntry(const double* BT, int nv, int ld, int i, int j) {
  double s = 0;
  for (int k = 0; k < nv; k++) {
    if (BT[k * ld + i] != 0) {
      s += BT[k * ld + i] * BT[k * ld + j];
    }
  }
  return s;
}


// the dof masks of BT's blocks of four rows: the dofs where one of the four is non-zero, and with
// extra (a superset) every other dof now and then as well
static void blockMasks(unsigned long long* seed, const double* BT, int nv, int ld, int extra,
                       uint64_t* mask) {
  int nw = pgs_maskWords(nv);
  memset(mask, 0, sizeof(uint64_t) * (size_t)(ld / 4 * nw));
  for (int b = 0; b < ld / 4; b++) {
    for (int k = 0; k < nv; k++) {
      const double* x = BT + k * ld + 4 * b;
      int set = x[0] != 0 || x[1] != 0 || x[2] != 0 || x[3] != 0;
      if (extra) {
        rnd(seed);
        set |= *seed % 3 == 0;
      }
      if (set) {
        mask[b * nw + k / 64] |= (uint64_t)1 << (k % 64);
      }
    }
  }
}


Test(pgs_dense, tiled_product_is_the_plain_sum) {
  static _Alignas(32) double BT[NVMAX * NMAX], A[NMAX * NMAX];
  static uint64_t mask[NMAX / 4 * 2];
  unsigned long long seed = 99;
  for (int trial = 0; trial < 40; trial++) {
    for (int nefc = 1; nefc <= 41; nefc += 4 + trial % 3) {
      int nv = 1 + (trial * 7 + nefc) % NVMAX, ld = pgs_stride(nefc);
      randomBT(&seed, BT, nv, nefc, ld);
      for (int isa = 0; isa < PGS_ISA_COUNT; isa++) {
        if (!pgs_isaAvailable((PgsIsa)isa)) {
          continue;
        }
        memset(A, 0xff, sizeof(A));                   // NaN everywhere: every entry is written
        blockMasks(&seed, BT, nv, ld, trial % 2, mask);
        pgs_productBBT(BT, nv, ld, mask, A, (PgsIsa)isa);
        for (int i = 0; i < ld; i++) {
          for (int j = 0; j < ld; j++) {
            double want = i < nefc && j < nefc ? plainEntry(BT, nv, ld, i, j) : 0.0;
            cr_assert(same(A[i * ld + j], want),
                      "isa %d nv %d nefc %d A[%d][%d] %.17g against %.17g", isa, nv, nefc, i,
                      j, A[i * ld + j], want);
          }
        }
      }
    }
  }
}


// a dual problem with AR = B B' + R from random B (entries in [-1, 1], every row non-zero, so that
// rounding differences stay small), b random, boxes of every kind (free, [0, inf), [-fl, fl])
typedef struct {
  int nefc, ld;
  _Alignas(32) double AR[NMAX * NMAX];
  double diaginv[NMAX], lo[NMAX], hi[NMAX], b[NMAX];
} Problem;


static void randomProblem(unsigned long long* seed, Problem* p, int nv, int nefc, double* BT) {
  p->nefc = nefc;
  p->ld = pgs_stride(nefc);
  randomBT(seed, BT, nv, nefc, p->ld);
  for (int k = 0; k < nv * p->ld; k++) {
    BT[k] = BT[k] != 0 ? ldexp(frexp(BT[k], &(int){0}), 0) : BT[k];
  }
  for (int i = 0; i < nefc; i++) {
    BT[i % nv * p->ld + i] += 1;                      // no zero row
  }
  uint64_t mask[NMAX / 4 * 2];
  blockMasks(seed, BT, nv, p->ld, 0, mask);
  pgs_productBBT(BT, nv, p->ld, mask, p->AR, PGS_ISA_PORTABLE);
  for (int i = 0; i < nefc; i++) {
    p->AR[i * p->ld + i] += 0.1;
    p->diaginv[i] = 1 / p->AR[i * p->ld + i];
    p->b[i] = ldexp(frexp(rnd(seed), &(int){0}), 3);
    int kind = i % 3;
    p->lo[i] = kind == 0 ? -INFINITY : kind == 1 ? 0 : -0.5;
    p->hi[i] = kind == 2 ? 0.5 : INFINITY;
  }
}


// plain Gauss-Seidel: each row at the minimum along it from the current forces, clamped
static void plainSweep(const Problem* p, double* f) {
  for (int i = 0; i < p->nefc; i++) {
    double res = p->b[i];
    for (int j = 0; j < p->nefc; j++) {
      res += p->AR[i * p->ld + j] * f[j];
    }
    double v = f[i] - res * p->diaginv[i];
    f[i] = v < p->lo[i] ? p->lo[i] : v > p->hi[i] ? p->hi[i] : v;
  }
}


Test(pgs_dense, sweeps_every_instruction_set_bitwise_and_gauss_seidel) {
  static Problem p;
  static double BT[NVMAX * NMAX];
  unsigned long long seed = 5;
  for (int trial = 0; trial < 30; trial++) {
    int nefc = 1 + (trial * 13) % 40, nv = 1 + (trial * 5) % NVMAX;
    randomProblem(&seed, &p, nv, nefc, BT);
    PgsDual P;
    memset(&P, 0, sizeof(P));
    P.nefc = nefc;
    P.ld = p.ld;
    P.AR = p.AR;
    P.diaginv = p.diaginv;
    P.lo = p.lo;
    P.hi = p.hi;
    P.b = p.b;
    static _Alignas(32) double fold[NMAX];
    P.fold = fold;

    // from the same start, five sweeps per instruction set
    _Alignas(32) double f[PGS_ISA_COUNT][NMAX], start[NMAX], plain[NMAX];
    for (int i = 0; i < p.ld; i++) {
      start[i] = i < nefc && i % 4 ? rnd(&seed) * 1e-2 : 0.0;
    }
    double impr[PGS_ISA_COUNT];
    int nch[PGS_ISA_COUNT], nact[PGS_ISA_COUNT];
    for (int isa = 0; isa < PGS_ISA_COUNT; isa++) {
      memcpy(f[isa], start, sizeof(start));
      impr[isa] = 0;
      if (!pgs_isaAvailable((PgsIsa)isa)) {
        continue;
      }
      _Alignas(32) double before[NMAX];
      for (int s = 0; s < 5; s++) {
        memcpy(before, f[isa], sizeof(before));
        impr[isa] += pgs_sweepDense(NULL, &P, f[isa], &nch[isa], &nact[isa], (PgsIsa)isa);
      }

      // the statistics of the last sweep: sign changes and non-zero forces
      int wantch = 0, wantact = 0;
      for (int i = 0; i < nefc; i++) {
        wantch += (before[i] > 0) != (f[isa][i] > 0);
        wantact += f[isa][i] != 0;
      }
      cr_assert(nch[isa] == wantch && nact[isa] == wantact, "trial %d isa %d: nchange %d "
                "(want %d) nactive %d (want %d)", trial, isa, nch[isa], wantch, nact[isa],
                wantact);
      for (int i = 0; i < p.ld; i++) {
        cr_assert(same(f[isa][i], f[0][i]), "trial %d isa %d f[%d] %.17g against %.17g", trial,
                  isa, i, f[isa][i], f[0][i]);
      }
      cr_assert(same(impr[isa], impr[0]) && nch[isa] == nch[0] && nact[isa] == nact[0],
                "trial %d isa %d: statistics differ", trial, isa);
    }

    // the same iterates as the plain Gauss-Seidel sweep up to rounding
    memcpy(plain, start, sizeof(start));
    for (int s = 0; s < 5; s++) {
      plainSweep(&p, plain);
    }
    for (int i = 0; i < nefc; i++) {
      cr_assert(fabs(f[0][i] - plain[i]) <= 1e-11 * (1 + fabs(plain[i])),
                "trial %d f[%d] %.17g against plain Gauss-Seidel %.17g", trial, i, f[0][i],
                plain[i]);
    }
    cr_assert(impr[0] >= 0, "trial %d: the sweeps raised the dual cost (%g)", trial, impr[0]);
  }
}


// a random tree of nv dofs (parents first), its L' D L factor in the dof_Madr layout (diagonal,
// then one entry per ancestor) and a dense J with zero rows, zero columns and scattered zeros;
// the plain A: each row of B alone (J_i, x_a -= L_ka x_k from the leaves up over the non-zero
// x_k, sqrt(inv(D))), A_ij summed over the non-zeros of B_i in dof order, plus R
#define TREE_NV 24
#define TREE_NEFC 30

typedef struct {
  int parent[TREE_NV], madr[TREE_NV];
  double LD[TREE_NV * TREE_NV], dinv[TREE_NV];
  double J[TREE_NEFC * TREE_NV], R[TREE_NEFC];
} Tree;


static void randomTree(unsigned long long* seed, Tree* t, int nv, int nefc) {
  int adr = 0;
  for (int k = 0; k < nv; k++) {
    t->parent[k] = k == 0 || *seed % 5 == 0 ? -1 : (int)(*seed % (unsigned long long)k);
    rnd(seed);
    t->madr[k] = adr;
    t->LD[adr++] = 1;
    for (int a = t->parent[k]; a >= 0; a = t->parent[a]) {
      t->LD[adr++] = ldexp(frexp(rnd(seed), &(int){0}), -1);
    }
    t->dinv[k] = 0.5 + fabs(ldexp(frexp(rnd(seed), &(int){0}), 0));
  }
  for (int i = 0; i < nefc; i++) {
    int zerorow = i % 7 == 3;
    for (int k = 0; k < nv; k++) {
      double v = rnd(seed);
      t->J[i * nv + k] = zerorow || k % 5 == 4 || fabs(v) < 1e-3 ? 0.0 : v;
    }
    t->R[i] = 1e-2 * (1 + i % 3);
  }
}


static void plainAR(const Tree* t, int nv, int nefc, double* B, double* A) {
  for (int i = 0; i < nefc; i++) {
    double* x = B + i * nv;
    memcpy(x, t->J + i * nv, sizeof(double) * nv);
    for (int k = nv - 1; k >= 0; k--) {
      if (x[k] == 0) {
        continue;
      }
      int adr = t->madr[k] + 1;
      for (int a = t->parent[k]; a >= 0; a = t->parent[a]) {
        x[a] -= t->LD[adr++] * x[k];
      }
    }
    for (int k = 0; k < nv; k++) {
      x[k] *= sqrt(t->dinv[k]);
    }
  }
  for (int i = 0; i < nefc; i++) {
    for (int j = 0; j < nefc; j++) {
      double s = 0;
      for (int k = 0; k < nv; k++) {
        if (B[i * nv + k] != 0) {
          s += B[i * nv + k] * B[j * nv + k];
        }
      }
      A[i * nefc + j] = s + (i == j ? t->R[i] : 0);
    }
  }
}


Test(pgs_dense, dense_AR_is_the_plain_row_by_row_product) {
  static Tree t;
  static mcModel m;
  static mcData d;
  static double B[TREE_NEFC * TREE_NV], A[TREE_NEFC * TREE_NEFC];
  static _Alignas(32) double AR[32 * 32], BT[TREE_NV * 32], work[5 * (TREE_NV + 1)];
  static uint64_t mask[32 / 4];
  double diaginv[32];
  unsigned long long seed = 3;
  for (int trial = 0; trial < 60; trial++) {
    int nv = 1 + trial % TREE_NV, nefc = 1 + (trial * 7) % TREE_NEFC, ld = pgs_stride(nefc);
    randomTree(&seed, &t, nv, nefc);
    plainAR(&t, nv, nefc, B, A);
    m.nv = nv;
    m.dof_parentid = t.parent;
    m.dof_Madr = t.madr;
    d.nefc = nefc;
    d.efc_J = t.J;
    d.efc_R = t.R;
    d.qLD = t.LD;
    d.qLDiagInv = t.dinv;
    for (int isa = 0; isa < PGS_ISA_COUNT; isa++) {
      if (!pgs_isaAvailable((PgsIsa)isa)) {
        continue;
      }
      memset(AR, 0xff, sizeof(AR));
      memset(mask, 0xff, sizeof(mask));              // every word is written
      pgs_makeDenseAR(&m, &d, AR, ld, BT, work, mask, diaginv, (PgsIsa)isa);
      for (int i = 0; i < ld; i++) {
        for (int j = 0; j < ld; j++) {
          double want = i < nefc && j < nefc ? A[i * nefc + j] : 0.0;
          cr_assert(same(AR[i * ld + j], want), "trial %d isa %d nv %d nefc %d AR[%d][%d] %.17g "
                    "against %.17g", trial, isa, nv, nefc, i, j, AR[i * ld + j], want);
        }
        if (i < nefc) {
          cr_assert(same(diaginv[i], 1 / A[i * nefc + i]), "trial %d isa %d diaginv[%d]", trial,
                    isa, i);
        }
      }
    }
  }
}


// the sign changes and non-zeros counted after a sweep, with zeros of both signs, tiny numbers,
// infinities and NaN (not positive, non-zero)
Test(pgs_dense, force_statistics_every_instruction_set) {
  static const double kSpecial[] = {0.0, -0.0, 1.0, -1.0, 1e-300, -1e-300, INFINITY, -INFINITY,
                                    NAN, 3.5};
  _Alignas(32) double old[NMAX], f[NMAX];
  unsigned long long seed = 11;
  for (int trial = 0; trial < 200; trial++) {
    int n = 4 * (1 + trial % (NMAX / 4));
    for (int i = 0; i < n; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      unsigned r = (unsigned)(seed >> 33);
      old[i] = kSpecial[r % 10];
      f[i] = kSpecial[r / 10 % 10];
    }
    int wantch = 0, wantact = 0;
    for (int i = 0; i < n; i++) {
      wantch += (old[i] > 0) != (f[i] > 0);
      wantact += f[i] != 0;
    }
    for (int isa = 0; isa < PGS_ISA_COUNT; isa++) {
      if (!pgs_isaAvailable((PgsIsa)isa)) {
        continue;
      }
      int nch = -1, nact = -1;
      pgs_countForces(old, f, n, &nch, &nact, (PgsIsa)isa);
      cr_assert(nch == wantch && nact == wantact, "trial %d isa %d n %d: %d %d against %d %d",
                trial, isa, n, nch, nact, wantch, wantact);
    }
  }
}
