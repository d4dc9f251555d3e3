// Moduco core: velocity-dependent quantities: com-based velocities (mc_comVel), the recursive
// Newton-Euler bias forces (mc_rne) and passive forces (mc_passive).
#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/fluid.h"
#include "engine/parallel_stages.h"
#include "math/math.h"


void mci_comVelRange(const mcModel* m, mcData* d, int first, int last) {
  // bodies in tree order
  for (int i = first; i < last; i++) {
    mcNum v[6], t[6];
    mcu_copy(v, d->cvel + 6 * m->body_parentid[i], 6);

    // walk the body's dofs, joint by joint: cdof_dot = v x cdof with the velocity before the
    // joint's own motion, then add the joint's velocity
    int dadr = m->body_dofadr[i], dnum = m->body_dofnum[i];
    for (int j = dadr; j < dadr + dnum;) {
      const mcNum* cdof = d->cdof + 6 * j;
      mcNum* cdot = d->cdof_dot + 6 * j;
      switch (m->jnt_type[m->dof_jntid[j]]) {
      case mcJNT_FREE:
        // translations: constant axes
        mcu_zero(cdot, 18);
        mcu_mulDofVec(t, cdof, d->qvel + j, 3);
        mcu_addTo(v, t, 6);
        j += 3;
        cdof += 18;
        cdot += 18;
        // fall through
      case mcJNT_BALL:
        // three rotations with the same velocity
        for (int k = 0; k < 3; k++) {
          mcu_crossMotion(cdot + 6 * k, v, cdof + 6 * k);
        }
        mcu_mulDofVec(t, cdof, d->qvel + j, 3);
        mcu_addTo(v, t, 6);
        j += 3;
        break;
      default:
        // hinge or slide
        mcu_crossMotion(cdot, v, cdof);
        mcu_addToScl(v, cdof, d->qvel[j], 6);
        j++;
        break;
      }
    }
    mcu_copy(d->cvel + 6 * i, v, 6);
  }
}


void mc_comVel(const mcModel* m, mcData* d) {
  mcu_zero(d->cvel, 6);           // world at rest
  mci_comVelRange(m, d, 1, m->nbody);
}


void mci_rneWorld(const mcModel* m, mcNum* cacc, mcNum* cfrc) {
  // the world accelerates against gravity
  mcu_zero(cacc, 6);
  mcu_zero(cfrc, 6);
  if (!(m->opt.disableflags & mcDSBL_GRAVITY)) {
    mcu_scl3(cacc + 3, m->opt.gravity, -1);
  }
}


void mci_rneRange(const mcModel* m, const mcData* d, int flg_acc, mcNum* cacc, mcNum* cfrc,
                  mcNum* result, int first, int last) {
  // forward pass: body accelerations and the forces that produce them
  for (int i = first; i < last; i++) {
    mcNum t[6], f[6];
    mcNum* a = cacc + 6 * i;
    const mcNum* v = d->cvel + 6 * i;
    const mcNum* I = d->cinert + 10 * i;
    int dadr = m->body_dofadr[i], dnum = m->body_dofnum[i];

    // a = a_parent + cdof_dot * qvel (+ cdof * qacc)
    mcu_copy(a, cacc + 6 * m->body_parentid[i], 6);
    if (dnum) {
      mcu_mulDofVec(t, d->cdof_dot + 6 * dadr, d->qvel + dadr, dnum);
      mcu_addTo(a, t, 6);
      if (flg_acc) {
        mcu_mulDofVec(t, d->cdof + 6 * dadr, d->qacc + dadr, dnum);
        mcu_addTo(a, t, 6);
      }
    }

    // f = I a + v x* (I v)
    mcu_mulInertVec(cfrc + 6 * i, I, a);
    mcu_mulInertVec(t, I, v);
    mcu_crossForce(f, v, t);
    mcu_addTo(cfrc + 6 * i, f, 6);
  }

  // backward pass: accumulate subtree forces
  for (int i = last - 1; i >= first; i--) {
    int p = m->body_parentid[i];
    if (p > 0) {
      mcu_addTo(cfrc + 6 * p, cfrc + 6 * i, 6);
    }
  }

  // project on the dofs
  for (int i = first; i < last; i++) {
    int dadr = m->body_dofadr[i];
    for (int j = dadr; j < dadr + m->body_dofnum[i]; j++) {
      result[j] = mcu_dot6(d->cdof + 6 * j, cfrc + 6 * i);
    }
  }
}


void mc_rne(const mcModel* m, mcData* d, int flg_acc, mcNum* result) {
  int nbody = m->nbody;
  mc_markStack(d);
  mcNum* cacc = mcSTACKALLOC(d, 6 * nbody, mcNum);
  mcNum* cfrc = mcSTACKALLOC(d, 6 * nbody, mcNum);
  if (!cacc || !cfrc) {
    mcu_zero(result, m->nv);
    mc_freeStack(d);
    return;
  }
  mci_rneWorld(m, cacc, cfrc);
  mci_rneRange(m, d, flg_acc, cacc, cfrc, result, 1, nbody);
  mc_freeStack(d);
}


// spring force of a tendon, with a dead band between the two spring lengths
static mcNum tendonSpring(const mcModel* m, const mcData* d, int i) {
  mcNum k = m->tendon_stiffness[i];
  if (k == 0) {
    return 0;
  }
  mcNum len = d->ten_length[i];
  const mcNum* rest = m->tendon_lengthspring + 2 * i;
  if (len > rest[1]) {
    return -k * (len - rest[1]);
  }
  if (len < rest[0]) {
    return -k * (len - rest[0]);
  }
  return 0;
}


// passive forces of the joints [j0, j1), dofs [k0, k1) and bodies [b0, b1) (b0 >= 1); whole:
// the tendons' and fluid forces too (which reach any dof: only on the range of everything)
static void passiveRange(const mcModel* m, mcData* d, int j0, int j1, int k0, int k1, int b0,
                         int b1, int whole) {
  int nv = m->nv;
  mcNum* qfrc = d->qfrc_passive;

  // nothing when disabled
  mcu_zero(qfrc + k0, k1 - k0);
  mcu_zero(d->qfrc_gravcomp + k0, k1 - k0);
  if (m->opt.disableflags & mcDSBL_PASSIVE) {
    return;
  }

  // joint springs toward qpos_spring
  for (int j = j0; j < j1; j++) {
    mcNum k = m->jnt_stiffness[j];
    if (k == 0) {
      continue;
    }
    int padr = m->jnt_qposadr[j], dadr = m->jnt_dofadr[j];
    const mcNum* q = d->qpos;
    const mcNum* q0 = m->qpos_spring;

    switch (m->jnt_type[j]) {
    case mcJNT_FREE:
      // translational spring
      for (int c = 0; c < 3; c++) {
        qfrc[dadr + c] = -k * (q[padr + c] - q0[padr + c]);
      }
      padr += 3;
      dadr += 3;
      // fall through
    case mcJNT_BALL: {
      // rotational spring on the local angular displacement
      mcNum quat[4], dif[3];
      mcu_copy4(quat, q + padr);
      mcu_normalize4(quat);
      mcu_subQuat(dif, quat, q0 + padr);
      for (int c = 0; c < 3; c++) {
        qfrc[dadr + c] = -k * dif[c];
      }
      break;
    }
    default:
      qfrc[dadr] = -k * (q[padr] - q0[padr]);
      break;
    }
  }

  // dof dampers
  for (int i = k0; i < k1; i++) {
    qfrc[i] -= m->dof_damping[i] * d->qvel[i];
  }

  // tendon spring-dampers, mapped through the tendon Jacobian
  for (int i = 0; whole && i < m->ntendon; i++) {
    mcNum f = tendonSpring(m, d, i) - m->tendon_damping[i] * d->ten_velocity[i];
    if (f == 0) {
      continue;
    }
    const mcNum* J = d->ten_J + (size_t)i * nv;
    for (int c = 0; c < nv; c++) {
      if (J[c] != 0) {
        qfrc[c] += J[c] * f;
      }
    }
  }

  // gravity compensation: an upward force at each compensated body's com, a passive force except
  // on the joints that count it as actuator force (actuatorgravcomp, added in mc_fwdActuation)
  if (!(m->opt.disableflags & mcDSBL_GRAVITY)) {
    for (int b = b0; b < b1; b++) {
      mcNum gc = m->body_gravcomp[b];
      if (gc != 0) {
        mcNum f[3];
        mcu_scl3(f, m->opt.gravity, -gc * m->body_mass[b]);
        mc_applyFT(m, d, f, NULL, d->xipos + 3 * b, b, d->qfrc_gravcomp);
      }
    }
    for (int i = k0; i < k1; i++) {
      if (!m->jnt_actgravcomp[m->dof_jntid[i]]) {
        qfrc[i] += d->qfrc_gravcomp[i];
      }
    }
  }

  // fluid forces (opt.density, opt.viscosity, opt.wind)
  if (whole) {
    mc_fluid(m, d, qfrc);
  }
}


void mc_passive(const mcModel* m, mcData* d) {
  passiveRange(m, d, 0, m->njnt, 0, m->nv, 1, m->nbody, 1);
}


int mci_passiveTreesOk(const mcModel* m) {
  if (mc_fluidOn(m)) {
    return 0;                     // fluid forces: on the whole model only
  }
  for (int i = 0; i < m->ntendon; i++) {
    if (m->tendon_stiffness[i] != 0 || m->tendon_damping[i] != 0) {
      return 0;                   // a tendon spring-damper may couple trees
    }
  }
  return 1;
}


void mci_passiveRange(const mcModel* m, mcData* d, int j0, int j1, int k0, int k1, int b0,
                      int b1) {
  passiveRange(m, d, j0, j1, k0, k1, b0, b1, 0);
}
