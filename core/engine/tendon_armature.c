// Moduco core: tendon armature (MJCF <tendon><fixed|spatial armature="a">), as in MuJoCo 3.x.
//
// Armature a on a tendon of length l(q) and Jacobian J adds the kinetic energy a/2 (J qvel)^2,
// an inertia along the tendon's length coordinate (a rotor geared to the tendon, say). It enters
// the equations of motion in two places:
//   - the inertia a J'J is added to qM, on the tree sparsity of qM only: entries coupling two
//     dofs of which neither is an ancestor of the other are dropped (measured on MuJoCo 3.3.8,
//     which does the same, so that the sparse factorization keeps no fill-in);
//   - the velocity-product force a J' (dJ/dt qvel) is added to qfrc_bias (not to mc_rne's result:
//     MuJoCo 3.3.8's mj_rne leaves it out too, measured).
// dJ/dt qvel is zero for fixed tendons. For spatial tendons it is the second time derivative of
// the length at zero joint acceleration, summed over the straight site-to-site pieces (each scaled
// by its pulley divisor): for a piece of length L, direction u, end velocities va, vb and
// velocity-product accelerations aa, ab,
//   d2L/dt2 = (|vb - va|^2 - (u'(vb - va))^2) / L + u'(ab - aa).
// The compiler rejects armature on tendons that wrap around geoms, as MuJoCo 3.3.8 does.
// A zero armature changes nothing (both functions skip such tendons).
#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/jacobian.h"
#include "math/math.h"


int mc_tendonArmatureAny(const mcModel* m) {
  for (int i = 0; i < m->ntendon; i++) {
    if (m->tendon_armature[i] != 0) {
      return 1;
    }
  }
  return 0;
}


void mc_tendonArmatureM(const mcModel* m, mcData* d) {
  int nv = m->nv;
  if (!m->ntendon || !mc_tendonArmatureAny(m)) {
    return;
  }
  for (int t = 0; t < m->ntendon; t++) {
    mcNum a = m->tendon_armature[t];
    if (a == 0) {
      continue;
    }

    // a J(i) J(j) for each dof i and its ancestors j (the row of i in the qM layout)
    const mcNum* J = d->ten_J + (size_t)t * nv;
    for (int i = 0; i < nv; i++) {
      if (J[i] == 0) {
        continue;
      }
      mcNum aJi = a * J[i];
      int adr = m->dof_Madr[i];
      for (int j = i; j >= 0; j = m->dof_parentid[j], adr++) {
        d->qM[adr] += aJi * J[j];
      }
    }
  }
}


// second time derivative of a spatial tendon's length at zero qacc (sites and pulleys only)
static mcNum spatialLengthAcc(const mcModel* m, const mcData* d, int i) {
  int adr = m->tendon_adr[i], end = adr + m->tendon_num[i];
  mcNum sum = 0, div = 1;
  for (int j = adr; j < end - 1; j++) {
    int t0 = m->wrap_type[j], t1 = m->wrap_type[j + 1];
    if (t0 == mcWRAP_PULLEY) {
      div = m->wrap_prm[j];
      continue;
    }
    if (t0 != mcWRAP_SITE || t1 != mcWRAP_SITE) {
      continue;
    }

    // a piece between two sites of the same body keeps its length
    int s0 = m->wrap_objid[j], s1 = m->wrap_objid[j + 1];
    int b0 = m->site_bodyid[s0], b1 = m->site_bodyid[s1];
    if (b0 == b1) {
      continue;
    }
    const mcNum* p0 = d->site_xpos + 3 * s0;
    const mcNum* p1 = d->site_xpos + 3 * s1;
    mcNum u[3];
    mcu_sub3(u, p1, p0);
    mcNum len = mcu_norm3(u);
    if (!(len > mcMINVAL)) {
      continue;
    }
    mcu_scl3(u, u, 1 / len);

    mcPointMotion pm0, pm1;
    mcNum dv[3], da[3];
    mc_pointMotion(m, d, p0, b0, &pm0);
    mc_pointMotion(m, d, p1, b1, &pm1);
    mcu_sub3(dv, pm1.vel, pm0.vel);
    mcu_sub3(da, pm1.acc, pm0.acc);
    mcNum udv = mcu_dot3(u, dv);
    sum += ((mcu_dot3(dv, dv) - udv * udv) / len + mcu_dot3(u, da)) / div;
  }
  return sum;
}


void mc_tendonArmatureBias(const mcModel* m, mcData* d, mcNum* qfrc) {
  int nv = m->nv;
  if (!m->ntendon || !mc_tendonArmatureAny(m)) {
    return;
  }
  for (int t = 0; t < m->ntendon; t++) {
    mcNum a = m->tendon_armature[t];
    int adr = m->tendon_adr[t];
    if (a == 0 || !m->tendon_num[t] || m->wrap_type[adr] == mcWRAP_JOINT) {
      continue;
    }

    // a J' (dJ/dt qvel)
    mcNum f = a * spatialLengthAcc(m, d, t);
    if (f == 0) {
      continue;
    }
    const mcNum* J = d->ten_J + (size_t)t * nv;
    for (int i = 0; i < nv; i++) {
      if (J[i] != 0) {
        qfrc[i] += J[i] * f;
      }
    }
  }
}
