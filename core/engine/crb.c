// Moduco core: joint-space inertia in the tree-sparse layout.
//
// Row i of qM starts at dof_Madr[i] and holds M(i,i), M(i,parent(i)), M(i,parent(parent(i))), ...
// up to the root of the dof tree. The factorization M = L'DL is computed in place in the same
// layout ("reverse" order, from the leaves up), which has no fill-in.
#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/parallel_stages.h"
#include "engine/threadpool.h"
#include "math/math.h"


// M(i,i) of a simple dof i (dof_simplenum > 0) from the model alone: the body's inertial frame is
// its frame, its joints pass through its origin and it has no child, so the entry does not depend
// on the configuration: armature + mass |a|^2 for a translation along a, armature +
// sum_k I_k a_k^2 for a rotation about a (body coordinates; free and ball rotations are about the
// body axes). Equal to the composite-inertia product up to rounding, and kept in step with
// body_mass and body_inertia without mc_setConst
static mcNum simpleDiagonal(const mcModel* m, int i) {
  int j = m->dof_jntid[i], b = m->dof_bodyid[i], k = i - m->jnt_dofadr[j];
  const mcNum* inertia = m->body_inertia + 3 * b;
  const mcNum* a = m->jnt_axis + 3 * j;
  mcNum v;
  switch (m->jnt_type[j]) {
  case mcJNT_FREE:
    if (k < 3) {
      v = m->body_mass[b];
      break;
    }
    k -= 3;
    // fall through
  case mcJNT_BALL:
    v = inertia[k];
    break;
  case mcJNT_SLIDE:
    v = m->body_mass[b] * mcu_dot3(a, a);
    break;
  default:
    v = inertia[0] * a[0] * a[0] + inertia[1] * a[1] * a[1] + inertia[2] * a[2] * a[2];
    break;
  }
  return m->dof_armature[i] + v;
}


// the rows of the run of simple dofs i .. i+run-1 (consecutive in M): zero, then the diagonal
// (out of line: keeps the loop over the other dofs lean)
static __attribute__((noinline)) void simpleRows(const mcModel* m, mcNum* M, int i, int run) {
  const int* Madr = m->dof_Madr;
  int end = i + run < m->nv ? Madr[i + run] : m->nM;
  mcu_zero(M + Madr[i], end - Madr[i]);
  for (int k = i; k < i + run; k++) {
    M[Madr[k]] = simpleDiagonal(m, k);
  }
}


// composite inertias of the bodies [first, last): body inertias summed over subtrees (a parent
// in the range or the world, which stays as it is)
static void crbBodies(const mcModel* m, mcData* d, int first, int last) {
  mcNum* crb = d->crb;
  mcu_copy(crb + 10 * first, d->cinert + 10 * first, 10 * (last - first));
  for (int i = last - 1; i >= first && i > 0; i--) {
    int p = m->body_parentid[i];
    if (p > 0) {
      mcu_addTo(crb + 10 * p, crb + 10 * i, 10);
    }
  }
}


// rows k0 .. k1-1 of M: force of the composite body moved along dof i, projected on the
// ancestor dofs; a run of simple dofs (dof_simplenum: bodies without child, inertial frame on the
// body frame, joints through the origin along orthogonal axes, hanging from the world) has
// diagonal blocks, whose off-diagonal entries are zero but for rounding: they are stored as exact
// zeros (the rows of a run are consecutive: one clear), the diagonal from the model
// (simpleDiagonal)
static void crbRows(const mcModel* m, mcData* d, int k0, int k1) {
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  const mcNum* cdof = d->cdof;
  const mcNum* crb = d->crb;
  mcNum* M = d->qM;
  for (int i = k0; i < k1; i++) {
    int run = m->dof_simplenum[i];
    if (run) {
      run = run < k1 - i ? run : k1 - i;
      simpleRows(m, M, i, run);
      i += run - 1;
      continue;
    }
    mcNum f[6];
    mcu_mulInertVec(f, crb + 10 * m->dof_bodyid[i], cdof + 6 * i);
    int adr = Madr[i];
    M[adr] = m->dof_armature[i] + mcu_dot6(f, cdof + 6 * i);
    for (int j = parent[i]; j >= 0; j = parent[j]) {
      M[++adr] = mcu_dot6(f, cdof + 6 * j);
    }
  }
}


void mc_crb(const mcModel* m, mcData* d) {
  crbBodies(m, d, 0, m->nbody);
  crbRows(m, d, 0, m->nv);
  mc_tendonArmatureM(m, d);
}


// may the rows of simple dofs (dof_simplenum > 0) be skipped in d->qM and its factor d->qLD?
// mc_crb stores their off-diagonal entries as exact zeros and the factorization keeps them; only
// tendon armature adds to them. Skipping a zero row saves the walk up the parents; the products
// with zero it leaves out change nothing but the sign of a zero sum (or a non-finite operand,
// which a finite zero would turn into NaN)
int mci_simpleRowsZero(const mcModel* m) {
  return !m->ntendon || !mc_tendonArmatureAny(m);
}


// two doubles at any 8-byte aligned address (GCC/Clang vector extension)
typedef double mciPair __attribute__((vector_size(16), aligned(8), may_alias));


// r -= t * a over n entries (distinct rows of qLD: no overlap). The rows are short (the depth of
// the dof tree): the odd entry first, then the pairs as straight-line code entered through a jump
// on their count (a loop only beyond 8 pairs), without a loop's per-pair count and branch; each
// entry gets the same single product and difference in any order
#define MCI_PAIR(j) (*(mciPair*)(r + (j)) -= tt * *(const mciPair*)(a + (j)))
static inline void axpyNeg(mcNum* restrict r, const mcNum* restrict a, mcNum t, int n) {
  if (n & 1) {
    r[n - 1] -= t * a[n - 1];
  }
  mciPair tt = {t, t};
  switch (n >> 1) {
  default:
    for (int j = 16; j + 2 <= n; j += 2) {
      MCI_PAIR(j);
    }
    // fall through
  case 8:
    MCI_PAIR(14);
    // fall through
  case 7:
    MCI_PAIR(12);
    // fall through
  case 6:
    MCI_PAIR(10);
    // fall through
  case 5:
    MCI_PAIR(8);
    // fall through
  case 4:
    MCI_PAIR(6);
    // fall through
  case 3:
    MCI_PAIR(4);
    // fall through
  case 2:
    MCI_PAIR(2);
    // fall through
  case 1:
    MCI_PAIR(0);
    // fall through
  case 0:
    break;
  }
}
#undef MCI_PAIR


// L'DL of the rows k0 .. k1-1 (whole trees) of LD in place; d (nullable) receives a warning for
// a non-positive pivot; skipSimple as in solveRange
static inline __attribute__((always_inline)) void factorRange(const mcModel* m, mcData* d,
                                                              mcNum* LD, mcNum* diagInv, int k0,
                                                              int k1, const int skipSimple) {
  int nv = m->nv;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;

  // eliminate dofs from the leaves up
  for (int k = k1 - 1; k >= k0; k--) {
    int kk = Madr[k];

    // guard the pivot
    if (LD[kk] < mcMINVAL) {
      if (d) {
        mc_warning(d, mcWARN_INERTIA, k);
      }
      LD[kk] = mcMINVAL;
    }
    mcNum invD = 1 / LD[kk];
    diagInv[k] = invD;  // the pivot is final: only ancestor rows are updated from here on

    // length of row k (k and its ancestors; rows are stored one after the other); a row without
    // off-diagonal entries (simple bodies, roots) updates nothing
    if (skipSimple && m->dof_simplenum[k]) {
      continue;
    }
    int len = (k + 1 < nv ? Madr[k + 1] : m->nM) - kk;
    int off = 1;
    while (off < len && LD[kk + off] == 0) {
      off++;
    }
    if (off == len) {
      continue;
    }

    // update every ancestor row i with the outer product of row k: the ancestors of i (i
    // included) are both the whole row i and the tail of row k from i's entry on, so the update
    // is one contiguous axpy of their count
    int ki = kk + 1;
    for (int i = parent[k]; i >= 0; i = parent[i], ki++) {
      mcNum t = LD[ki] * invD;
      axpyNeg(LD + Madr[i], LD + ki, t, len - (ki - kk));
      LD[ki] = t;
    }
  }
}


void mci_factorRange(const mcModel* m, mcData* d, mcNum* LD, mcNum* diagInv, int k0, int k1) {
  factorRange(m, d, LD, diagInv, k0, k1, 0);
}


// L'DL in place; d (nullable) receives a warning for a non-positive pivot; skipSimple as in
// solveRange
static inline __attribute__((always_inline)) void factorSparse(const mcModel* m, mcData* d,
                                                               const mcNum* M, mcNum* LD,
                                                               mcNum* diagInv,
                                                               const int skipSimple) {
  if (LD != M) {
    mcu_copy(LD, M, m->nM);
  }
  factorRange(m, d, LD, diagInv, 0, m->nv, skipSimple);
}


void mc_factorI(const mcModel* m, const mcNum* M, mcNum* qLD, mcNum* qLDiagInv) {
  factorSparse(m, NULL, M, qLD, qLDiagInv, 0);
}


void mc_factorM(const mcModel* m, mcData* d) {
  // factor, then the square roots used by the constraint solvers
  if (mci_simpleRowsZero(m)) {
    factorSparse(m, d, d->qM, d->qLD, d->qLDiagInv, 1);
  } else {
    factorSparse(m, d, d->qM, d->qLD, d->qLDiagInv, 0);
  }
  for (int i = 0; i < m->nv; i++) {
    d->qLDiagSqrtInv[i] = sqrt(d->qLDiagInv[i]);
  }
}


void mci_inertiaRange(const mcModel* m, mcData* d, int first, int last, int k0, int k1) {
  crbBodies(m, d, first, last);
  crbRows(m, d, k0, k1);
  // the range's block of qM (none when its trees have no dofs: k0 = k1, possibly nv, past the
  // last dof_Madr)
  int a0 = k0 < m->nv ? m->dof_Madr[k0] : m->nM, a1 = k1 < m->nv ? m->dof_Madr[k1] : m->nM;
  mcu_copy(d->qLD + a0, d->qM + a0, a1 - a0);
  factorRange(m, d, d->qLD, d->qLDiagInv, k0, k1, 1);
  for (int i = k0; i < k1; i++) {
    d->qLDiagSqrtInv[i] = sqrt(d->qLDiagInv[i]);
  }
}


// x <- inv(L'DL) x for n vectors over the rows k0 .. k1-1 (whole trees); skipSimple (a literal,
// so that each use compiles its own loops): the rows of simple dofs are zero off the diagonal
// (simpleRowsZero)
static inline __attribute__((always_inline)) void solveRange(const mcModel* m, mcNum* x, int n,
                                                             const mcNum* qLD,
                                                             const mcNum* qLDiagInv, int k0,
                                                             int k1, const int skipSimple) {
  int nv = m->nv;
  const int* simple = m->dof_simplenum;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;

  for (int c = 0; c < n; c++, x += nv) {
    // x <- inv(L') x: leaves up, push each solved entry into its ancestors
    for (int k = k1 - 1; k >= k0; k--) {
      mcNum xk = x[k];
      if (xk == 0 || (skipSimple && simple[k])) {
        continue;
      }
      int adr = Madr[k] + 1;
      for (int i = parent[k]; i >= 0; i = parent[i]) {
        x[i] -= qLD[adr++] * xk;
      }
    }

    // x <- inv(D) x
    for (int i = k0; i < k1; i++) {
      x[i] *= qLDiagInv[i];
    }

    // x <- inv(L) x: root down, pull from the ancestors
    for (int k = k0; k < k1; k++) {
      if (skipSimple && simple[k]) {
        k += simple[k] - 1;  // the whole run (runs lie within one tree)
        continue;
      }
      int adr = Madr[k] + 1;
      mcNum s = 0;
      for (int i = parent[k]; i >= 0; i = parent[i]) {
        s += qLD[adr++] * x[i];
      }
      x[k] -= s;
    }
  }
}


void mci_solveLDRange(const mcModel* m, mcNum* x, int n, const mcNum* qLD,
                      const mcNum* qLDiagInv, int k0, int k1, int skipSimple) {
  if (skipSimple) {
    solveRange(m, x, n, qLD, qLDiagInv, k0, k1, 1);
  } else {
    solveRange(m, x, n, qLD, qLDiagInv, k0, k1, 0);
  }
}


void mc_solveLD(const mcModel* m, mcNum* x, int n, const mcNum* qLD, const mcNum* qLDiagInv) {
  solveRange(m, x, n, qLD, qLDiagInv, 0, m->nv, 0);
}


// the end of the dof tree whose root dof is a: the next root (dofs are in tree order)
static int treeEnd(const mcModel* m, int a) {
  int b = a + 1;
  while (b < m->nv && m->dof_parentid[b] >= 0) {
    b++;
  }
  return b;
}


// does any of D[a..b-1] differ from zero?
static int anyNonZero(const mcNum* D, int a, int b) {
  for (int i = a; i < b; i++) {
    if (D[i] != 0) {
      return 1;
    }
  }
  return 0;
}


// the factor and the solve of one run of trees, out of line: inlined into mci_solveMDamped's
// loop over runs they compiled to slower code (22_humanoids' Euler step +15 % in time)
static __attribute__((noinline)) void factorRun(const mcModel* m, mcNum* LD, mcNum* diagInv,
                                                int a, int b, int skip) {
  if (skip) {
    factorRange(m, NULL, LD, diagInv, a, b, 1);
  } else {
    factorRange(m, NULL, LD, diagInv, a, b, 0);
  }
}


static __attribute__((noinline)) void solveRun(const mcModel* m, mcNum* x, const mcNum* LD,
                                               const mcNum* diagInv, int a, int b, int skip) {
  if (skip) {
    solveRange(m, x, 1, LD, diagInv, a, b, 1);
  } else {
    solveRange(m, x, 1, LD, diagInv, a, b, 0);
  }
}


void mci_solveMDampedRange(const mcModel* m, const mcData* d, const mcNum* D, mcNum* x,
                           mcNum* LD, mcNum* diagInv, int k0, int k1) {
  const int* Madr = m->dof_Madr;

  // runs of whole trees, all with some D or all without
  int skip = mci_simpleRowsZero(m);
  for (int a = k0, b; a < k1; a = b) {
    b = treeEnd(m, a);
    int damped = anyNonZero(D, a, b);
    while (b < k1) {
      int c = treeEnd(m, b);
      if (anyNonZero(D, b, c) != damped) {
        break;
      }
      b = c;
    }
    const mcNum* factor = d->qLD;
    const mcNum* factorInv = d->qLDiagInv;
    if (damped) {
      // M + diag(D) on the run's rows, factored (skipping the simple rows changes no bit of it)
      int end = b < m->nv ? Madr[b] : m->nM;
      mcu_copy(LD + Madr[a], d->qM + Madr[a], end - Madr[a]);
      for (int i = a; i < b; i++) {
        LD[Madr[i]] += D[i];
      }
      factorRun(m, LD, diagInv, a, b, skip);
      factor = LD;
      factorInv = diagInv;
    }
    solveRun(m, x, factor, factorInv, a, b, skip);
  }
}


void mci_solveMDamped(const mcModel* m, mcData* d, const mcNum* D, mcNum* x, mcNum* LD,
                      mcNum* diagInv) {
  // the trees' ranges on the pool when it can (each range as the serial loop does it), else all
  if (!mci_solveMDampedPool(m, d, D, x, LD, diagInv)) {
    mci_solveMDampedRange(m, d, D, x, LD, diagInv, 0, m->nv);
  }
}


void mc_solveM(const mcModel* m, mcData* d, mcNum* x, const mcNum* y, int n) {
  if (x != y) {
    mcu_copy(x, y, m->nv * n);
  }
  if (mci_simpleRowsZero(m)) {
    solveRange(m, x, n, d->qLD, d->qLDiagInv, 0, m->nv, 1);
  } else {
    solveRange(m, x, n, d->qLD, d->qLDiagInv, 0, m->nv, 0);
  }
}


// res += (M - diag M) vec: the off-diagonal entries act on both triangles; skipSimple as in
// solveLD
static inline __attribute__((always_inline)) void mulOffDiagonal(const mcModel* m,
                                                                 const mcNum* M, mcNum* res,
                                                                 const mcNum* vec,
                                                                 const int skipSimple) {
  int nv = m->nv;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  const int* simple = m->dof_simplenum;
  for (int i = 0; i < nv; i++) {
    if (skipSimple && simple[i]) {
      i += simple[i] - 1;  // the whole run
      continue;
    }
    int adr = Madr[i] + 1;
    mcNum vi = vec[i], s = 0;
    for (int j = parent[i]; j >= 0; j = parent[j], adr++) {
      s += M[adr] * vec[j];
      res[j] += M[adr] * vi;
    }
    res[i] += s;
  }
}


void mc_mulM(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec) {
  const int* Madr = m->dof_Madr;
  const mcNum* M = d->qM;

  // diagonal, then the rest
  for (int i = 0; i < m->nv; i++) {
    res[i] = M[Madr[i]] * vec[i];
  }
  if (mci_simpleRowsZero(m)) {
    mulOffDiagonal(m, M, res, vec, 1);
  } else {
    mulOffDiagonal(m, M, res, vec, 0);
  }
}


void mc_fullM(const mcModel* m, mcNum* dst, const mcNum* M) {
  int nv = m->nv;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;

  // scatter each sparse row and its transpose
  mcu_zero(dst, nv * nv);
  for (int i = 0; i < nv; i++) {
    int adr = Madr[i];
    dst[i * nv + i] = M[adr++];
    for (int j = parent[i]; j >= 0; j = parent[j], adr++) {
      dst[i * nv + j] = M[adr];
      dst[j * nv + i] = M[adr];
    }
  }
}
