// Moduco plugin solver-pgs: the PGS driver. Warmstart forces, the dual problem (row-sparse AR with
// the sparse Jacobian and no elliptic rows, else dense), sweeps until the scaled improvement falls
// below the tolerance, the finish.
#include <math.h>
#include <string.h>

#include "pgs_dual.h"
#include "solver.h"
#include "solver_internal.h"


// box of each scalar row in lo, hi; return 1 if a row is elliptic
static int rowBounds(const mcData* d, mcNum* lo, mcNum* hi) {
  int elliptic = 0;
  for (int i = 0; i < d->nefc; i++) {
    int type = d->efc_type[i];
    if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
      lo[i] = -d->efc_frictionloss[i];
      hi[i] = d->efc_frictionloss[i];
    } else {
      lo[i] = type == mcCNSTR_EQUALITY ? -INFINITY : 0;
      hi[i] = INFINITY;
    }
    elliptic |= type == mcCNSTR_CONTACT_ELLIPTIC;
  }
  return elliptic;
}


// the dense problem in P (AR, diaginv, ld, the sweep's scratch) and the padded forces to sweep;
// NULL if the host stack is full
static mcNum* denseProblem(const mcpHost* host, const mcModel* m, mcData* d, PgsDual* P,
                           PgsIsa isa) {
  int nv = m->nv, nefc = d->nefc, ld = pgs_stride(nefc);
  size_t nAR = (size_t)ld * ld, nBT = (size_t)nv * ld;
  mcNum* AR = host->stackAlloc(d, sizeof(mcNum) * (nAR + nBT + 3 * (size_t)ld), 32);
  mcNum* work = host->stackAlloc(d, sizeof(mcNum) * 5 * ((size_t)nv + 1), 32);
  uint64_t* mask = host->stackAlloc(d, sizeof(uint64_t) * (size_t)(ld / 4 * pgs_maskWords(nv)),
                                    16);
  if (!AR || !work || !mask) {
    return NULL;
  }
  mcNum* diaginv = AR + nAR + nBT;
  mcNum* f = diaginv + ld;
  pgs_makeDenseAR(m, d, AR, ld, AR + nAR, work, mask, diaginv, isa);
  d->solver_nnz = nefc * nefc;
  P->AR = AR;
  P->ld = ld;
  P->diaginv = diaginv;
  P->fold = f + ld;
  memcpy(f, d->efc_force, sizeof(mcNum) * nefc);
  memset(f + nefc, 0, sizeof(mcNum) * (size_t)(ld - nefc));
  return f;
}


void pgs_solve(const mcpHost* host, const mcModel* m, mcData* d, int maxiter, PgsIsa isa) {
  int nefc = d->nefc;
  d->solver_iter = 0;
  if (nefc == 0) {
    mcs_unconstrained(m, d);
    return;
  }
  mcs_warmstartDual(host, m, d);

  host->markStack(d);
  PgsDual P;
  memset(&P, 0, sizeof(P));
  P.nefc = nefc;
  P.ld = nefc;
  P.b = d->efc_b;

  // row-sparse AR with the sparse Jacobian (elliptic blocks need the dense rows); the sparse
  // sweep works on efc_force, the dense one on a padded copy
  PgsSparseAR S;
  mcNum* f = d->efc_force;
  int sparse = d->efc_J_rownnz != NULL;
  for (int i = 0; i < nefc && sparse; i++) {
    sparse = d->efc_type[i] != mcCNSTR_CONTACT_ELLIPTIC;
  }
  if (sparse && pgs_makeSparseAR(host, m, d, &S)) {
    P.S = &S;
    P.diaginv = S.diaginv;
  } else {
    host->freeStack(d);
    host->markStack(d);
    f = denseProblem(host, m, d, &P, isa);
  }
  mcNum* lo = f ? host->stackAlloc(d, sizeof(mcNum) * 2 * (size_t)nefc, 16) : NULL;
  if (!lo) {
    // the stack is full (warned): no constraint force
    host->freeStack(d);
    memset(d->efc_force, 0, sizeof(mcNum) * nefc);
    mcs_dualFinish(host, m, d);
    return;
  }
  P.lo = lo;
  P.hi = lo + nefc;
  P.elliptic = rowBounds(d, lo, lo + nefc);

  // sweeps until the scaled improvement falls below the tolerance
  mcNum scale = mcs_scale(m, d), tol = m->opt.tolerance;
  int iter = 0;
  while (iter < maxiter) {
    int nchange, nactive;
    mcNum improvement = P.AR ? pgs_sweepDense(d, &P, f, &nchange, &nactive, isa)
                             : pgs_sweepSparse(&P, f, &nchange, &nactive);
    mcSolverStat* stat = d->solver + (iter < mcNSOLVER ? iter : mcNSOLVER - 1);
    memset(stat, 0, sizeof(*stat));
    stat->improvement = scale * improvement;
    stat->nchange = nchange;
    stat->nactive = nactive;
    iter++;
    if (stat->improvement < tol) {
      break;
    }
  }
  d->solver_iter = iter;
  if (f != d->efc_force) {
    memcpy(d->efc_force, f, sizeof(mcNum) * nefc);
  }

  // never NaN
  f = d->efc_force;
  for (int i = 0; i < nefc; i++) {
    if (!isfinite(f[i])) {
      memset(f, 0, sizeof(mcNum) * nefc);
      break;
    }
  }
  host->freeStack(d);
  mcs_dualFinish(host, m, d);
}
