// Moduco core: mc_solverResidual, the accuracy of a solver's output (dynamics, feasibility and
// optimality of efc_force; definitions in moduco.h and docs/plugins.md).
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/constraint.h"
#include "engine/solver_contract.h"
#include "math/math.h"


static mcNum norm(const mcNum* a, int n) {
  return sqrt(mcu_dot(a, a, n));
}


// sum of squared violations of the force's bounds (friction loss), sign or cone
static mcNum violation2(const mcData* d) {
  mcNum v2 = 0;
  const mcNum* f = d->efc_force;
  for (int i = 0; i < d->nefc; i++) {
    int type = d->efc_type[i];
    mcNum v = 0;
    if (type == mcCNSTR_FRICTION_DOF || type == mcCNSTR_FRICTION_TENDON) {
      v = mcu_max(0, fabs(f[i]) - d->efc_frictionloss[i]);
    } else if (type == mcCNSTR_CONTACT_ELLIPTIC) {
      const mcContact* con = d->contact + d->efc_id[i];
      mcNum t2 = 0;
      for (int k = 1; k < con->dim; k++) {
        mcNum u = f[i + k] / con->friction[k - 1];
        t2 += u * u;
      }
      mcNum vn = mcu_max(0, -f[i]), vt = mcu_max(0, sqrt(t2) - mcu_max(0, f[i]));
      v2 += vn * vn + vt * vt;
      i += con->dim - 1;
      continue;
    } else if (type != mcCNSTR_EQUALITY) {
      v = mcu_max(0, -f[i]);
    }
    v2 += v * v;
  }
  return v2;
}


mcNum mc_solverResidual(const mcModel* m, mcData* d, mcNum parts[3]) {
  int nv = m->nv, nefc = d->nefc;
  mc_markStack(d);
  mcNum* Ma = mcSTACKALLOC(d, 2 * (size_t)nv, mcNum);
  mcNum* save = mcSTACKALLOC(d, 2 * (size_t)nefc + nv + 1, mcNum);
  int* state = mcSTACKALLOC(d, (size_t)nefc + 1, int);
  if (!Ma || !save || !state) {
    mc_freeStack(d);
    return -1;
  }
  mcNum* JTf = Ma + nv;
  mcNum* soft = save + nefc;
  mcNum* qfrc = save + 2 * (size_t)nefc;

  // dynamics: M qacc - qfrc_smooth - J' f
  mc_mulM(m, d, Ma, d->qacc);
  mc_mulJT(m, d, JTf, d->efc_force);
  mcNum r2 = 0;
  for (int k = 0; k < nv; k++) {
    mcNum r = Ma[k] - d->qfrc_smooth[k] - JTf[k];
    r2 += r * r;
  }
  mcNum p0 = sqrt(r2) / (norm(Ma, nv) + norm(d->qfrc_smooth, nv) + norm(JTf, nv) +
                         mcMINVAL);

  // feasibility, and optimality against the soft model's force at J qacc - aref (computed by
  // the inverse's constraint step; the solver's force, states and qfrc_constraint are restored)
  mcNum p1 = 0, p2 = 0;
  if (nefc > 0) {
    mcNum fnorm = norm(d->efc_force, nefc);
    p1 = sqrt(violation2(d)) / (fnorm + mcMINVAL);
    memcpy(save, d->efc_force, sizeof(mcNum) * nefc);
    memcpy(state, d->efc_state, sizeof(int) * nefc);
    memcpy(qfrc, d->qfrc_constraint, sizeof(mcNum) * nv);
    mc_invConstraint(m, d, d->qacc);
    memcpy(soft, d->efc_force, sizeof(mcNum) * nefc);
    memcpy(d->efc_force, save, sizeof(mcNum) * nefc);
    memcpy(d->efc_state, state, sizeof(int) * nefc);
    memcpy(d->qfrc_constraint, qfrc, sizeof(mcNum) * nv);
    mcNum e2 = 0;
    for (int i = 0; i < nefc; i++) {
      mcNum e = save[i] - soft[i];
      e2 += e * e;
    }
    p2 = sqrt(e2) / (fnorm + norm(soft, nefc) + mcMINVAL);
  }
  mc_freeStack(d);

  if (parts) {
    parts[0] = p0;
    parts[1] = p1;
    parts[2] = p2;
  }
  return p0 + p1 + p2;
}
