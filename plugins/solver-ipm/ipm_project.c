// Moduco plugin "ipm": the position projection of the paired integrator "ipm-euler".
//
// At a configuration q whose rows the core has just assembled (host->fwdPosition), find the
// smallest correction in the inertia metric that removes every penetration:
//   dq = argmin 1/2 dq' M dq   subject to   pos + J dq >= 0   (contact normals, limits)
//                                           J dq = 0          (equality rows: left as they are)
// Friction and friction-loss rows do not take part. It is the interior-point problem of the step
// with no velocity and no smooth force (ipm.h with v = 0, qfrc = 0), solved by the same
// ipm_optimize; the unknown is a = dq / h^2, so the gaps (c + h^2 J a) and the forces have the
// scale of the step's own problem and the same tolerances apply.
#include <string.h>

#include "ipm.h"


// the step's problem turned into the projection: contacts keep their normal row, friction loss
// is dropped, gaps are the measured distances, equality targets are zero
static void toProjection(const mcData* d, ipmProblem* P) {
  int nb = 0;
  for (int i = 0; i < P->nb; i++) {
    ipmBlock b = P->block[i];
    if (b.kind == IPM_FLOSS) {
      continue;
    }
    if (b.kind == IPM_CONTACT) {
      b.kind = IPM_ORTH;
      b.nrow = 1;
    }
    b.c = b.kind == IPM_EQ ? 0 : d->efc_pos[b.efc];
    P->block[nb++] = b;
  }
  P->nb = nb;
  memset(P->Jv, 0, sizeof(mcNum) * (size_t)P->nrow);
}


int ipm_project(const mcpHost* host, const mcModel* m, mcData* d, const ipmParam* prm,
                mcNum* dq, mcNum* r_vio, mcNum* kappa_vio) {
  int nv = m->nv, iter = -1;
  *r_vio = *kappa_vio = 0;
  memset(dq, 0, sizeof(mcNum) * (size_t)nv);
  host->markStack(d);
  ipmProblem P;
  mcNum* zero = host->stackAlloc(d, sizeof(mcNum) * (size_t)(nv > 0 ? nv : 1), _Alignof(mcNum));
  mcSolverStat* keep = host->stackAlloc(d, sizeof(mcSolverStat) * mcNSOLVER,
                                        _Alignof(mcSolverStat));
  if (zero && keep && ipm_build(host, m, d, &P)) {
    toProjection(d, &P);
    memset(zero, 0, sizeof(mcNum) * (size_t)nv);
    P.qfrc = zero;
    memset(P.a, 0, sizeof(mcNum) * (size_t)nv);
    ipm_start(&P, prm->kappa_init);

    // the statistics in d->solver stay those of the step's solve
    memcpy(keep, d->solver, sizeof(mcSolverStat) * mcNSOLVER);
    iter = ipm_optimize(d, &P, prm, r_vio, kappa_vio);
    memcpy(d->solver, keep, sizeof(mcSolverStat) * mcNSOLVER);
    for (int i = 0; i < nv; i++) {
      dq[i] = P.h * P.h * P.a[i];
    }
  }
  host->freeStack(d);
  return iter;
}
