// Moduco core: model constants at qpos0 used by the constraint model (mc_setConst).
//
// The diagonal approximation of A = J inv(M) J' (efc_diagApprox) is built from "end-effector"
// inverse inertias of dofs, bodies and tendons measured once in the initial configuration qpos0;
// dof_M0 (diagonal of M at qpos0) scales the solver statistics. Tendon and actuator lengths and
// the acceleration produced by a unit actuator force at qpos0 come along. The compiler calls
// this once at the end of compilation (mcc_setConst).
#include <math.h>
#include <string.h>

#include <moduco/moduco.h>

#include "engine/constraint.h"
#include "math/math.h"


// mean diagonal of J inv(M) J' for a k x nv Jacobian J; MinvJT is k x nv scratch
static mcNum meanDiagInvM(const mcModel* m, mcData* d, const mcNum* J, int k, mcNum* MinvJT) {
  int nv = m->nv;
  mc_solveM(m, d, MinvJT, J, k);
  mcNum s = 0;
  for (int r = 0; r < k; r++) {
    s += mcu_dot(J + (size_t)r * nv, MinvJT + (size_t)r * nv, nv);
  }
  return s / k;
}


// diagonal element i of inv(M); col is nv scratch
static mcNum invMDiag(const mcModel* m, mcData* d, int i, mcNum* col) {
  mcu_zero(col, m->nv);
  col[i] = 1;
  mc_solveM(m, d, col, col, 1);
  return col[i];
}


// dof_invweight0: diagonal of inv(M) averaged over the translational and rotational parts of
// each joint (free: 3 + 3, ball: 3, hinge and slide: 1)
static void dofInvWeight(const mcModel* m, mcData* d, mcNum* col) {
  for (int j = 0; j < m->njnt; j++) {
    int adr = m->jnt_dofadr[j], type = m->jnt_type[j];
    if (type == mcJNT_FREE || type == mcJNT_BALL) {
      int first = type == mcJNT_FREE ? 1 : 0;
      for (int part = 0; part <= first; part++) {
        int a = adr + 3 * part;
        mcNum w = (invMDiag(m, d, a, col) + invMDiag(m, d, a + 1, col) +
                   invMDiag(m, d, a + 2, col)) / 3;
        for (int k = 0; k < 3; k++) {
          m->dof_invweight0[a + k] = w;
        }
      }
    } else {
      m->dof_invweight0[adr] = invMDiag(m, d, adr, col);
    }
  }
}


// body_invweight0: mean translational and rotational diagonal of J inv(M) J' for the Jacobian
// of the body's center of mass; zero for bodies welded to the world
static void bodyInvWeight(const mcModel* m, mcData* d, mcNum* jac, mcNum* tmp) {
  int nv = m->nv;
  m->body_invweight0[0] = m->body_invweight0[1] = 0;
  for (int b = 1; b < m->nbody; b++) {
    if (m->body_weldid[b] == 0 || nv == 0) {
      m->body_invweight0[2 * b] = m->body_invweight0[2 * b + 1] = 0;
      continue;
    }
    mcc_jac(m, d, jac, jac + 3 * nv, d->xipos + 3 * b, b);
    m->body_invweight0[2 * b] = meanDiagInvM(m, d, jac, 3, tmp);
    m->body_invweight0[2 * b + 1] = meanDiagInvM(m, d, jac + 3 * nv, 3, tmp);
  }
}


void mc_setConst(mcModel* m, mcData* d) {
  int nv = m->nv;

  // position-dependent quantities at qpos0
  mcu_copy(d->qpos, m->qpos0, m->nq);
  mc_kinematics(m, d);
  mc_comPos(m, d);
  mc_tendon(m, d);
  mc_transmission(m, d);
  mc_crb(m, d);
  mc_factorM(m, d);

  // diagonal of M
  for (int i = 0; i < nv; i++) {
    m->dof_M0[i] = d->qM[m->dof_Madr[i]];
  }

  mc_markStack(d);
  mcNum* jac = mc_stackAlloc(d, sizeof(mcNum) * 12 * (size_t)(nv > 0 ? nv : 1), 16);
  if (!jac) {
    mc_freeStack(d);
    return;
  }
  mcNum* tmp = jac + 6 * (size_t)nv;

  // inverse weights of dofs and bodies
  dofInvWeight(m, d, tmp);
  bodyInvWeight(m, d, jac, tmp);

  // tendons: length, and inverse weight of the moment-arm vector
  for (int i = 0; i < m->ntendon; i++) {
    m->tendon_length0[i] = d->ten_length[i];
    m->tendon_invweight0[i] = nv ? meanDiagInvM(m, d, d->ten_J + (size_t)i * nv, 1, tmp) : 0;
  }

  // actuators: length, and norm of the acceleration of a unit actuator force
  for (int i = 0; i < m->nu; i++) {
    m->actuator_length0[i] = d->actuator_length[i];
    if (nv) {
      mc_solveM(m, d, tmp, d->actuator_moment + (size_t)i * nv, 1);
      m->actuator_acc0[i] = sqrt(mcu_dot(tmp, tmp, nv));
    } else {
      m->actuator_acc0[i] = 0;
    }
  }
  mc_freeStack(d);
}
