// Moduco core: joint-space inertia in the tree-sparse layout.
//
// Row i of qM starts at dof_Madr[i] and holds M(i,i), M(i,parent(i)), M(i,parent(parent(i))), ...
// up to the root of the dof tree. The factorization M = L'DL is computed in place in the same
// layout ("reverse" order, from the leaves up), which has no fill-in.
#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/parallel_stages.h"
#include "math/math.h"


void mc_crb(const mcModel* m, mcData* d) {
  int nv = m->nv, nbody = m->nbody;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  mcNum* crb = d->crb;
  mcNum* M = d->qM;

  // composite inertias: body inertias summed over subtrees (the world stays zero)
  mcu_copy(crb, d->cinert, 10 * nbody);
  for (int i = nbody - 1; i > 0; i--) {
    int p = m->body_parentid[i];
    if (p > 0) {
      mcu_addTo(crb + 10 * p, crb + 10 * i, 10);
    }
  }

  // each row: force of the composite body moved along dof i, projected on the ancestor dofs;
  // a simple body (dof_simplenum: no child, inertial frame on the body frame, joints through its
  // origin along orthogonal axes, hanging from the world) has a diagonal block, whose
  // off-diagonal entries are zero but for rounding: they are stored as exact zeros
  for (int i = 0; i < nv; i++) {
    mcNum f[6];
    mcu_mulInertVec(f, crb + 10 * m->dof_bodyid[i], d->cdof + 6 * i);
    int adr = Madr[i];
    M[adr] = m->dof_armature[i] + mcu_dot6(f, d->cdof + 6 * i);
    int simple = m->dof_simplenum[i] > 0;
    for (int j = parent[i]; j >= 0; j = parent[j]) {
      M[++adr] = simple ? 0 : mcu_dot6(f, d->cdof + 6 * j);
    }
  }
  mc_tendonArmatureM(m, d);
}


// r -= t * a over n entries (distinct rows of qLD: no overlap). The rows are short (the depth of
// the dof tree), so pairs of entries without a vectorized loop's set-up and remainder code; each
// entry gets the same single operation either way
static inline void axpyNeg(mcNum* restrict r, const mcNum* restrict a, mcNum t, int n) {
  int j = 0;
  for (; j + 2 <= n; j += 2) {
    r[j] -= t * a[j];
    r[j + 1] -= t * a[j + 1];
  }
  if (j < n) {
    r[j] -= t * a[j];
  }
}


// L'DL of the rows k0 .. k1-1 (whole trees) of LD in place; d (nullable) receives a warning for
// a non-positive pivot
void mci_factorRange(const mcModel* m, mcData* d, mcNum* LD, mcNum* diagInv, int k0, int k1) {
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

    // length of row k (k and its ancestors; rows are stored one after the other); a row without
    // off-diagonal entries (simple bodies, roots) updates nothing
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

  // inverse of the diagonal
  for (int i = k0; i < k1; i++) {
    diagInv[i] = 1 / LD[Madr[i]];
  }
}


// L'DL in place; d (nullable) receives a warning for a non-positive pivot
static void factorSparse(const mcModel* m, mcData* d, const mcNum* M, mcNum* LD, mcNum* diagInv) {
  if (LD != M) {
    mcu_copy(LD, M, m->nM);
  }
  mci_factorRange(m, d, LD, diagInv, 0, m->nv);
}


void mc_factorI(const mcModel* m, const mcNum* M, mcNum* qLD, mcNum* qLDiagInv) {
  factorSparse(m, NULL, M, qLD, qLDiagInv);
}


void mc_factorM(const mcModel* m, mcData* d) {
  // factor, then the square roots used by the constraint solvers
  factorSparse(m, d, d->qM, d->qLD, d->qLDiagInv);
  for (int i = 0; i < m->nv; i++) {
    d->qLDiagSqrtInv[i] = sqrt(d->qLDiagInv[i]);
  }
}


void mci_solveLDRange(const mcModel* m, mcNum* x, int n, const mcNum* qLD,
                      const mcNum* qLDiagInv, int k0, int k1) {
  int nv = m->nv;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;

  for (int c = 0; c < n; c++, x += nv) {
    // x <- inv(L') x: leaves up, push each solved entry into its ancestors
    for (int k = k1 - 1; k >= k0; k--) {
      mcNum xk = x[k];
      if (xk == 0) {
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
      int adr = Madr[k] + 1;
      mcNum s = 0;
      for (int i = parent[k]; i >= 0; i = parent[i]) {
        s += qLD[adr++] * x[i];
      }
      x[k] -= s;
    }
  }
}


void mc_solveLD(const mcModel* m, mcNum* x, int n, const mcNum* qLD, const mcNum* qLDiagInv) {
  mci_solveLDRange(m, x, n, qLD, qLDiagInv, 0, m->nv);
}


void mc_solveM(const mcModel* m, mcData* d, mcNum* x, const mcNum* y, int n) {
  if (x != y) {
    mcu_copy(x, y, m->nv * n);
  }
  mc_solveLD(m, x, n, d->qLD, d->qLDiagInv);
}


void mc_mulM(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec) {
  int nv = m->nv;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  const mcNum* M = d->qM;

  // diagonal
  for (int i = 0; i < nv; i++) {
    res[i] = M[Madr[i]] * vec[i];
  }

  // off-diagonal entries act on both triangles
  for (int i = 0; i < nv; i++) {
    int adr = Madr[i] + 1;
    mcNum vi = vec[i], s = 0;
    for (int j = parent[i]; j >= 0; j = parent[j], adr++) {
      s += M[adr] * vec[j];
      res[j] += M[adr] * vi;
    }
    res[i] += s;
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
