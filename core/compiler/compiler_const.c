// Moduco core: quantities of the model at qpos0 (MuJoCo's setConst): dof_M0, invweight0 of
// dofs, bodies and tendons, tendon_length0, actuator_length0 and actuator_acc0.
//
// Computed with the engine's own kinematics and factorization on a temporary mcData.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

// r = M^-1 v for one vector (x and v may alias)
static void mcc_solve(const mcModel* m, mcData* d, mcNum* x, const mcNum* v) {
  mc_solveM(m, d, x, v, 1);
}

// Jacobian of a body's center of mass (3 x nv translational and rotational, row-major)
static void mcc_jacBodyCom(const mcModel* m, const mcData* d, int b, mcNum* jacp, mcNum* jacr) {
  int nv = m->nv;
  memset(jacp, 0, sizeof(mcNum) * 3 * (size_t)nv);
  memset(jacr, 0, sizeof(mcNum) * 3 * (size_t)nv);

  // last dof of the body or of its nearest ancestor with dofs
  int dof = -1;
  for (int a = b; a > 0 && dof < 0; a = m->body_parentid[a]) {
    if (m->body_dofnum[a]) {
      dof = m->body_dofadr[a] + m->body_dofnum[a] - 1;
    }
  }
  const mcNum* com = d->subtree_com + 3 * m->body_rootid[b];
  const mcNum* p = d->xipos + 3 * b;
  mcNum off[3] = {p[0] - com[0], p[1] - com[1], p[2] - com[2]};
  for (; dof >= 0; dof = m->dof_parentid[dof]) {
    const mcNum* cd = d->cdof + 6 * dof;
    // linear velocity of the point: v + w x off
    mcNum lin[3] = {cd[3] + cd[1] * off[2] - cd[2] * off[1], cd[4] + cd[2] * off[0] - cd[0] * off[2],
                    cd[5] + cd[0] * off[1] - cd[1] * off[0]};
    for (int i = 0; i < 3; i++) {
      jacp[i * nv + dof] = lin[i];
      jacr[i * nv + dof] = cd[i];
    }
  }
}

// mean of the diagonal of J M^-1 J' for a 3 x nv Jacobian
static mcNum mcc_meanDiag(const mcModel* m, mcData* d, const mcNum* J, mcNum* tmp) {
  int nv = m->nv;
  mcNum sum = 0;
  for (int i = 0; i < 3; i++) {
    mcc_solve(m, d, tmp, J + i * nv);
    for (int k = 0; k < nv; k++) {
      sum += J[i * nv + k] * tmp[k];
    }
  }
  return sum / 3;
}

int mcc_setConst(mcModel* m) {
  mcData* d = mc_makeData(m);
  if (!d) {
    return -1;
  }
  int nv = m->nv;
  mcNum* buf = (mcNum*)calloc((size_t)(7 * nv + 1), sizeof(mcNum));
  if (!buf) {
    mc_deleteData(d);
    return -1;
  }
  mcNum* jacp = buf;
  mcNum* jacr = buf + 3 * nv;
  mcNum* tmp = buf + 6 * nv;

  // position-dependent quantities at qpos0
  mc_resetData(m, d);
  mc_kinematics(m, d);
  mc_comPos(m, d);
  mc_tendon(m, d);
  mc_transmission(m, d);
  mc_crb(m, d);
  mc_factorM(m, d);

  // dofs: diagonal inertia and inverse weights (averaged per joint block)
  for (int i = 0; i < nv; i++) {
    m->dof_M0[i] = d->qM[m->dof_Madr[i]];
  }
  for (int j = 0; j < m->njnt; j++) {
    int adr = m->jnt_dofadr[j];
    int type = m->jnt_type[j];
    int n = type == mcJNT_FREE ? 6 : type == mcJNT_BALL ? 3 : 1;
    mcNum w[6];
    for (int k = 0; k < n; k++) {
      memset(tmp, 0, sizeof(mcNum) * (size_t)nv);
      tmp[adr + k] = 1;
      mcc_solve(m, d, tmp, tmp);
      w[k] = tmp[adr + k];
    }
    if (type == mcJNT_FREE) {
      mcNum t = (w[0] + w[1] + w[2]) / 3, r = (w[3] + w[4] + w[5]) / 3;
      for (int k = 0; k < 3; k++) {
        m->dof_invweight0[adr + k] = t;
        m->dof_invweight0[adr + 3 + k] = r;
      }
    } else if (type == mcJNT_BALL) {
      mcNum r = (w[0] + w[1] + w[2]) / 3;
      for (int k = 0; k < 3; k++) {
        m->dof_invweight0[adr + k] = r;
      }
    } else {
      m->dof_invweight0[adr] = w[0];
    }
  }

  // bodies: translational and rotational inverse weights of the center of mass
  for (int b = 1; b < m->nbody; b++) {
    if (m->body_weldid[b] == 0) {
      m->body_invweight0[2 * b] = m->body_invweight0[2 * b + 1] = 0;
      continue;
    }
    mcc_jacBodyCom(m, d, b, jacp, jacr);
    mcNum t = mcc_meanDiag(m, d, jacp, tmp);
    mcNum r = mcc_meanDiag(m, d, jacr, tmp);
    m->body_invweight0[2 * b] = t > mcMINVAL ? t : mcMINVAL;
    m->body_invweight0[2 * b + 1] = r > mcMINVAL ? r : mcMINVAL;
  }

  // tendons: length and inverse weight; an unset spring length is the length at qpos0
  for (int i = 0; i < m->ntendon; i++) {
    const mcNum* J = d->ten_J + (size_t)i * nv;
    m->tendon_length0[i] = d->ten_length[i];
    mcc_solve(m, d, tmp, J);
    mcNum w = 0;
    for (int k = 0; k < nv; k++) {
      w += J[k] * tmp[k];
    }
    m->tendon_invweight0[i] = w;
    for (int k = 0; k < 2; k++) {
      if (m->tendon_lengthspring[2 * i + k] < 0) {
        m->tendon_lengthspring[2 * i + k] = d->ten_length[i];
      }
    }
  }

  // actuators: length at qpos0 and the acceleration of a unit force
  for (int i = 0; i < m->nu; i++) {
    const mcNum* mom = d->actuator_moment + (size_t)i * nv;
    m->actuator_length0[i] = d->actuator_length[i];
    mcc_solve(m, d, tmp, mom);
    mcNum a = 0;
    for (int k = 0; k < nv; k++) {
      a += tmp[k] * tmp[k];
    }
    m->actuator_acc0[i] = sqrt(a);
  }

  free(buf);
  mc_deleteData(d);
  return 0;
}
