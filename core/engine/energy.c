// Moduco core: potential and kinetic energy (mc_energyPos, mc_energyVel, mc_totalEnergy).
#include <moduco/moduco.h>

#include "engine/parallel_stages.h"
#include "math/math.h"


void mc_energyPos(const mcModel* m, mcData* d) {
  mcNum e = 0;

  // gravity
  if (!(m->opt.disableflags & mcDSBL_GRAVITY)) {
    for (int i = 1; i < m->nbody; i++) {
      e -= m->body_mass[i] * mcu_dot3(m->opt.gravity, d->xipos + 3 * i);
    }
  }

  // springs
  if (!(m->opt.disableflags & mcDSBL_PASSIVE)) {
    // joint springs
    for (int j = 0; j < m->njnt; j++) {
      mcNum k = m->jnt_stiffness[j];
      if (k == 0) {
        continue;
      }
      int padr = m->jnt_qposadr[j];
      const mcNum* q = d->qpos;
      const mcNum* q0 = m->qpos_spring;
      switch (m->jnt_type[j]) {
      case mcJNT_FREE: {
        // translational part, then the rotation as a ball joint
        mcNum dif[3];
        mcu_sub3(dif, q + padr, q0 + padr);
        e += 0.5 * k * mcu_dot3(dif, dif);
        padr += 3;
      }
        // fall through
      case mcJNT_BALL: {
        mcNum quat[4], dif[3];
        mcu_copy4(quat, q + padr);
        mcu_normalize4(quat);
        mcu_subQuat(dif, quat, q0 + padr);
        e += 0.5 * k * mcu_dot3(dif, dif);
        break;
      }
      default: {
        mcNum dif = q[padr] - q0[padr];
        e += 0.5 * k * dif * dif;
        break;
      }
      }
    }

    // tendon springs, with a dead band between the two spring lengths
    for (int i = 0; i < m->ntendon; i++) {
      mcNum k = m->tendon_stiffness[i];
      mcNum len = d->ten_length[i];
      const mcNum* rest = m->tendon_lengthspring + 2 * i;
      mcNum dif = len > rest[1] ? len - rest[1] : (len < rest[0] ? len - rest[0] : 0);
      e += 0.5 * k * dif * dif;
    }
  }

  d->energy[0] = e;
}


void mc_energyVel(const mcModel* m, mcData* d) {
  // 0.5 v' M v as a quadratic form over the tree-sparse rows: the diagonal once, each
  // off-diagonal entry (row i, ancestor j) twice; no product vector, no scatter. Rows of simple
  // dofs hold zeros off the diagonal (mci_simpleRowsZero)
  const mcNum* M = d->qM;
  const mcNum* v = d->qvel;
  int skip = mci_simpleRowsZero(m);
  mcNum e = 0;
  for (int i = 0; i < m->nv; i++) {
    if (skip && m->dof_simplenum[i]) {
      // a run of simple dofs: the diagonal only
      for (int end = i + m->dof_simplenum[i]; i < end; i++) {
        e += v[i] * (M[m->dof_Madr[i]] * v[i]);
      }
      i--;
      continue;
    }
    int adr = m->dof_Madr[i];
    mcNum s = 0;
    for (int j = m->dof_parentid[i], a = adr + 1; j >= 0; j = m->dof_parentid[j], a++) {
      s += M[a] * v[j];
    }
    e += v[i] * (M[adr] * v[i] + 2 * s);
  }
  d->energy[1] = 0.5 * e;
}


mcNum mc_totalEnergy(const mcModel* m, mcData* d) {
  // the position quantities energy needs: frames, tendons, inertia
  mc_kinematics(m, d);
  mc_comPos(m, d);
  mc_tendon(m, d);
  mc_crb(m, d);

  mc_energyPos(m, d);
  mc_energyVel(m, d);
  return d->energy[0] + d->energy[1];
}
